import CJansson

/// One record of a graph context: a model instance found by its key. The
/// context holds exactly one per key (per key space: a model and the
/// subtypes that share its primary key).
package final class GraphRecord: RecordIdentity {
  /// The record's key.
  let key: RecordKey
  /// The key as JSON (owned): what relationship slots of other records hold.
  let keyJSON: JPtr
  /// The model whose key space the record lives in (`ModelType.keyRoot`).
  let keyRoot: Int
  /// The committed state (for a record made by an import that has not
  /// committed yet, its first state).
  var state: RecordState
  /// True once the record is deleted (or its context closed).
  var isDeleted = false

  init?(key: RecordKey, keyRoot: Int, state: RecordState) {
    guard let json = key.makeJSON() else { return nil }
    self.key = key
    self.keyJSON = json
    self.keyRoot = keyRoot
    self.state = state
  }

  deinit { JValue.release(keyJSON) }

  /// Where the record is in messages about the graph: `/Model/key` (the key
  /// space's model) and `/property` when one is named.
  func pointer(_ schema: Schema, property: String = "") -> String {
    var path =
      "/" + JSONPointer.escape(schema.models[keyRoot].name) + "/" + JSONPointer.escape(key.description)
    if !property.isEmpty { path += "/" + JSONPointer.escape(property) }
    return path
  }

  /// Drops every link (breaking reference cycles between records).
  func clear() {
    state.links = []
    state.incoming = []
    isDeleted = true
  }
}

/// Where a link into a record comes from: a record and its property.
struct Incoming: Hashable {
  let record: GraphRecord
  let property: Int

  static func == (lhs: Incoming, rhs: Incoming) -> Bool {
    lhs.record === rhs.record && lhs.property == rhs.property
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(record))
    hasher.combine(property)
  }
}

/// The records a to-many relationship holds, in order, without repeats.
struct RecordList {
  private(set) var items: ContiguousArray<GraphRecord> = []
  private var members: Set<ObjectIdentifier> = []

  init() {}

  init<S: Sequence>(_ records: S) where S.Element == GraphRecord {
    for record in records { append(record) }
  }

  func contains(_ record: GraphRecord) -> Bool { members.contains(ObjectIdentifier(record)) }

  /// Appends `record` unless it is there already.
  mutating func append(_ record: GraphRecord) {
    if members.insert(ObjectIdentifier(record)).inserted { items.append(record) }
  }

  /// Removes `record` wherever it is.
  mutating func remove(_ record: GraphRecord) {
    guard members.remove(ObjectIdentifier(record)) != nil else { return }
    if let position = items.firstIndex(where: { $0 === record }) { items.remove(at: position) }
  }

  var count: Int { items.count }
}

/// The value of one relationship of a record.
enum Link {
  case absent
  case null
  case one(GraphRecord)
  case many(RecordList)

  /// The records linked, in order.
  var records: ContiguousArray<GraphRecord> {
    switch self {
    case .absent, .null: return []
    case .one(let record): return [record]
    case .many(let list): return list.items
    }
  }
}

/// A record's values: its model (a subtype where the input chose one), the
/// attribute slots, one link per relationship, and the links that point at
/// it.
struct RecordState {
  /// The record's model.
  var model: ModelType
  /// The slots. Committed states hold relationships as keys (what a record
  /// handle shows and the file stores); drafts ignore those slots and use `links`.
  var object: ModelObject
  /// One entry per property of `model` (`.absent` for non-relationships).
  var links: ContiguousArray<Link>
  /// Every (record, property) whose link holds this record.
  var incoming: Set<Incoming>
  /// True for a record known only by its key so far.
  var isStub: Bool

  init(model: ModelType, object: ModelObject, isStub: Bool) {
    self.model = model
    self.object = object
    self.links = ContiguousArray(repeating: .absent, count: model.properties.count)
    self.incoming = []
    self.isStub = isStub
  }
}
