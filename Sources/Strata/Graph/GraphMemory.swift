/// The committed records of a graph context, by key space and key.
final class GraphMemory {
  /// keyRoot model index -> key -> record.
  var index: [Int: [RecordKey: GraphRecord]] = [:]
  /// The next synthetic key (records given no key).
  var nextSynthetic: Int64 = 1

  /// The committed record of key space `root` under `key`.
  func record(_ root: Int, _ key: RecordKey) -> GraphRecord? { index[root]?[key] }

  /// Every committed record, in no particular order.
  var records: [GraphRecord] { index.values.flatMap { $0.values } }

  /// Drops every record, breaking the reference cycles between them.
  func clear() {
    for record in records { record.clear() }
    index = [:]
  }
}
