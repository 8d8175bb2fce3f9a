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

  /// Takes the records of `fresh`, the file read again after another
  /// connection wrote it. A record this memory holds under a key the file
  /// still has stays the same object (handles of it follow it on) and takes
  /// the fresh state; one the file no longer has is deleted; every link and
  /// incoming entry points to the records kept.
  func replace(with fresh: GraphMemory) {
    var kept: [ObjectIdentifier: GraphRecord] = [:]
    var merged: [Int: [RecordKey: GraphRecord]] = [:]
    for (root, records) in fresh.index {
      for (key, record) in records {
        let same = index[root]?[key] ?? record
        kept[ObjectIdentifier(record)] = same
        merged[root, default: [:]][key] = same
      }
    }
    for old in records where merged[old.keyRoot]?[old.key] !== old { old.clear() }
    func canonical(_ record: GraphRecord) -> GraphRecord { kept[ObjectIdentifier(record)] ?? record }
    for record in fresh.records {
      let same = canonical(record)
      var state = record.state
      for position in state.links.indices {
        switch state.links[position] {
        case .one(let target): state.links[position] = .one(canonical(target))
        case .many(let list): state.links[position] = .many(RecordList(list.items.lazy.map(canonical)))
        case .absent, .null: break
        }
      }
      state.incoming = Set(
        state.incoming.lazy.map { Incoming(record: canonical($0.record), property: $0.property) })
      state.object.graphRecord = same
      if same !== record { record.clear() }
      same.state = state
      same.isDeleted = false
    }
    index = merged
    nextSynthetic = fresh.nextSynthetic
  }

  /// Drops every record, breaking the reference cycles between them.
  func clear() {
    for record in records { record.clear() }
    index = [:]
  }
}
