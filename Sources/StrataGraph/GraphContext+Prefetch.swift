import CJansson
import Strata

/// Reading ahead for an import on a database the cache does not hold
/// whole (another writer committed, or the file was not empty when
/// opened): the keys an input names are collected first (`PageKeys`), and
/// the records of the file under them read in a few statements per table
/// (`GraphStore.prefetch`) instead of a few statements per record. What is
/// read ahead is what reading each record by key would give; a record the
/// collector misses is read by key as before.
extension GraphContext {
  /// Reads ahead the records the input objects `elements` (of `type`)
  /// name, with the keys the file does not hold; the caller holds the
  /// change lock, inside the import's write transaction.
  func prefetch(_ elements: [JPtr], _ type: ModelType) throws(StrataError) {
    guard !memory.complete, memory.store != nil else { return }
    var collector = PageKeys(schema: schema)
    for element in elements { collector.object(element, type, depth: 0) }
    try readAhead(collector)
  }

  /// Reads the records under the keys `collector` found that the cache
  /// holds only as faults or not at all, in a few statements per table.
  private func readAhead(_ collector: PageKeys) throws(StrataError) {
    guard let store = memory.store, let layout = store.readLayout else { return }
    for (root, keys) in collector.keys {
      let wanted = keys.filter { memory.index.record(root, $0)?.isFault ?? true }
      guard !wanted.isEmpty, let table = layout.table(schema.models[root].name) else { continue }
      let read = try store.prefetch(
        table, keys: Array(wanted), schema: schema, listsUpTo: memory.listReadAtOnce)
      memory.readAhead(root, read)
    }
  }

  /// `prefetch` for input read straight into models (`importModels`): the
  /// records `objects` and the records their relationships hold.
  func prefetch(models objects: ArraySlice<ModelObject>) throws(StrataError) {
    guard !memory.complete, memory.store != nil else { return }
    var collector = PageKeys(schema: schema)
    for object in objects { collector.model(object, depth: 0) }
    try readAhead(collector)
  }

  /// `prefetch` for the records of `type` in `response` at `root`.
  func prefetch(_ response: JPtr, _ type: ModelType, root: ResponseLocation?) throws(StrataError) {
    guard !memory.complete, memory.store != nil else { return }
    switch RecordsRoot.find(root ?? ResponseLocation(keys: [], text: ""), in: response, type: type) {
    case .object(let object): try prefetch([object], type)
    case .array(let array):
      try prefetch((0..<json_array_size(array)).compactMap { json_array_get(array, $0) }, type)
    case .none, .failed: return
    }
  }
}

/// The keys an input names, by key space, as far as they can be read
/// without mapping: a record's single key property at a key path with no
/// transformer, and the same for the records its relationships hold (as
/// objects or as bare keys). Whatever it misses is read by key later.
struct PageKeys {
  let schema: Schema
  private(set) var keys: [Int: Set<RecordKey>] = [:]
  /// Nesting past this is left alone.
  static let depthLimit = 32

  init(schema: Schema) { self.schema = schema }

  /// Collects from `value`, an input object of `type`.
  mutating func object(_ value: JPtr, _ type: ModelType, depth: Int) {
    guard JValue.isObject(value), depth < Self.depthLimit else { return }
    if let spec = Self.keySpec(type), case .path(let path) = spec.location,
      let member = Self.follow(path, value),
      let key = GraphContext.plainKey(member, spec.type)
    {
      keys[type.keyRoot, default: []].insert(key)
    }
    for index in type.relations where index < type.properties.count {
      let spec = type.properties[index]
      guard let relation = spec.relation, relation.target < schema.models.count,
        case .path(let path) = spec.location, let member = Self.follow(path, value)
      else { continue }
      related(member, schema.models[relation.target], depth: depth + 1)
    }
  }

  /// Collects from `object`, a record's partial model read from input
  /// (`DirectReader.forEachRecord`): its key, and those of the records its
  /// relationships hold (nested models).
  mutating func model(_ object: ModelObject, depth: Int) {
    guard depth < Self.depthLimit else { return }
    let type = object.type
    if Self.keySpec(type) != nil, let index = type.primaryKey.first, index < object.slots.count,
      let key = object.slots[index].recordKey
    {
      keys[type.keyRoot, default: []].insert(key)
    }
    for index in type.relations where index < object.slots.count {
      switch object.slots[index] {
      case .model(let nested): model(nested, depth: depth + 1)
      case .array(let elements):
        for case .model(let nested) in elements { model(nested, depth: depth + 1) }
      default: continue
      }
    }
  }

  /// Collects from the value of a relationship to `target`: an object, a
  /// bare key, or an array of them.
  private mutating func related(_ value: JPtr, _ target: ModelType, depth: Int) {
    if JValue.isObject(value) {
      object(value, target, depth: depth)
    } else if JValue.isArray(value) {
      for position in 0..<json_array_size(value) {
        guard let element = json_array_get(value, position), !JValue.isArray(element) else { continue }
        related(element, target, depth: depth)
      }
    } else if let spec = Self.keySpec(target), let key = GraphContext.plainKey(value, spec.type) {
      keys[target.keyRoot, default: []].insert(key)
    }
  }

  /// The key property of `type` when its key is one plain property (no
  /// relationship, no transformer or rules).
  static func keySpec(_ type: ModelType) -> PropertySpec? {
    guard type.primaryKey.count == 1, let index = type.primaryKey.first, index < type.properties.count else {
      return nil
    }
    let spec = type.properties[index]
    return spec.relation == nil && spec.rules == nil ? spec : nil
  }

  /// The value at `path` in `value`, or nil.
  private static func follow(_ path: [Key], _ value: JPtr) -> JPtr? {
    var current = value
    for key in path {
      guard JValue.isObject(current), let next = JValue.member(current, key) else { return nil }
      current = next
    }
    return current
  }
}
