import CJansson
import Strata

/// Reads the records of a graph file into memory (migrating a file of an
/// older schema version first), and links them.
enum GraphLoading {
  /// What a stored relationship holds, read while its body is alive.
  enum StoredLink {
    case none, null, one(RecordKey?), many([RecordKey?])
  }

  /// What a relationship of a record read from its row holds, its keys
  /// checked (`GraphRecord.unmadeLinks`); `unread(count)`, a to-many list
  /// of that many targets in the file left unread (`RecordList.unread`).
  enum UnmadeLink {
    case none, null, one(RecordKey), many([RecordKey]), unread(Int)
  }

  /// Reads the file's records into `memory` and links them. A file that
  /// must be rewritten first (format 1, tables of another schema, records of
  /// an older version: `GraphStore.needsRewrite`) is read, migrated and
  /// rewritten in one write transaction, so two processes opening it at
  /// once convert it once and nothing committed in between is lost.
  static func load(_ store: GraphStore, into memory: GraphMemory, schema: Schema) throws(StrataError) {
    guard store.needsRewrite, !store.isReadOnly || store.needsMigration else {
      try read(store, into: memory, schema: schema, rewriting: false)
      return
    }
    try store.connection.writeTransaction { () throws(StrataError) in
      try store.reloadMeta()
      try read(store, into: memory, schema: schema, rewriting: store.needsRewrite)
    }
  }

  /// Reads (and, when `rewriting`, migrates and rewrites) the records.
  private static func read(_ store: GraphStore, into memory: GraphMemory, schema: Schema, rewriting: Bool)
    throws(StrataError)
  {
    let migrating = store.needsMigration
    if migrating { try checkMigrations(store, schema: schema) }
    var rewritten: [JPtr] = []
    defer { for body in rewritten { JValue.release(body) } }
    let pending = try readRecords(store, into: memory, schema: schema, migrating: migrating)
    try link(pending, in: memory, schema: schema)
    let changes = materialize(
      pending, schema: schema, rewriting: rewriting, rewritten: &rewritten)
    if rewriting { try store.rewrite(changes) }
  }

  /// Fails when the schema cannot carry the file's records from the version
  /// they were written at: a version on the way has no migration.
  private static func checkMigrations(_ store: GraphStore, schema: Schema) throws(StrataError) {
    let gaps = Migration.gaps(schema, from: store.storedVersion)
    if !gaps.isEmpty {
      throw StrataError(
        code: .argument,
        message:
          "the graph file was written by schema version \(store.storedVersion); the schema has no migration from version "
          + gaps.map(String.init).joined(separator: ", "))
    }
  }

  /// Reads every stored record into `memory` (unlinked), each with its
  /// relationships as the keys it stores.
  private static func readRecords(
    _ store: GraphStore, into memory: GraphMemory, schema: Schema, migrating: Bool
  ) throws(StrataError) -> [(GraphRecord, [StoredLink])] {
    let collector = RelationCollector()
    var pending: [(GraphRecord, [StoredLink])] = []
    // One snapshot: a reader opening the file while another process commits
    // sees the graph before or after that commit, never half of it.
    for (rootName, storedRecords) in try store.loadEverything() {
      guard case .success(let rootType) = schema.modelType(rootName) else {
        throw StrataError(
          code: .argument,
          message: "the graph file holds records of model '\(rootName)', which this schema does not have")
      }
      for stored in storedRecords {
        let (record, held) = try readRecord(
          stored, root: rootName, rootType, store: store, schema: schema, migrating: migrating,
          collector: collector, owner: memory.serial)
        memory.insert(record)
        pending.append((record, held))
        if case .synthetic(let id) = record.key, id >= memory.nextSynthetic { memory.nextSynthetic = id + 1 }
      }
    }
    return pending
  }

  /// Reads one stored record of the root `rootName`: checks its model,
  /// migrates its values when the file is older, maps them, and sets its
  /// relationships aside.
  private static func readRecord(
    _ stored: GraphStore.StoredRecord, root rootName: String, _ rootType: ModelType, store: GraphStore,
    schema: Schema, migrating: Bool, collector: RelationCollector, owner: UInt64
  ) throws(StrataError) -> (GraphRecord, [StoredLink]) {
    let body = stored.body
    guard JValue.isObject(body), let modelValue = json_object_get(body, "model"),
      JValue.isString(modelValue),
      var values = json_object_get(body, "values"), JValue.isObject(values)
    else { throw damaged("the record \(stored.keyText) of '\(rootName)' has no model or values") }
    let modelName = JValue.string(modelValue)
    guard case .success(let type) = schema.modelType(modelName), type.keyRoot == rootType.index else {
      throw StrataError(
        code: .argument,
        message:
          "the graph file holds a '\(modelName)' record, which this schema does not have under '\(rootName)'"
      )
    }
    var migrated: JPtr? = nil
    if migrating {
      let made = try migrate(values, model: modelName, store: store, schema: schema)
      migrated = made
      values = made
    }
    defer { if let migrated { JValue.release(migrated) } }
    guard let key = RecordKey(json: stored.key) else {
      throw damaged("the key \(stored.keyText) is not a key")
    }
    let isStub = json_object_get(body, "stub").map { $0.pointee.type == JSON_TRUE } ?? false
    let object = try mapRecord(
      values, type, isStub: isStub, at: [.name(rootName), .name(stored.keyText)], store: store,
      schema: schema,
      collector: collector, absent: json_object_get(body, "absent"))
    let held = setLinksAside(object, type, collector: collector)
    guard
      let record = GraphRecord(
        key: key, keyRoot: rootType.index, state: RecordState(model: type, object: object, isStub: isStub),
        owner: owner)
    else { throw damaged("cannot hold the record \(stored.keyText)") }
    return (record, held)
  }

  /// Migrates a copy of the stored `values` of a `model` record from the
  /// file's version to the schema's: the migrated values, owned by the caller.
  private static func migrate(
    _ values: JPtr, model: String, store: GraphStore, schema: Schema
  ) throws(StrataError) -> JPtr {
    switch Migration.run(schema, values: json_deep_copy(values), model: model, from: store.storedVersion) {
    case .failure(let error): throw error
    case .success(let made): return made
    }
  }

  /// Maps a record's stored values under `type`; values that do not fit the
  /// schema are an `io` error that says how to carry them over.
  private static func mapRecord(
    _ values: JPtr, _ type: ModelType, isStub: Bool, at steps: [PathStep], store: GraphStore, schema: Schema,
    collector: RelationCollector, absent: JPtr?
  ) throws(StrataError) -> ModelObject {
    let (mapped, errors) = mapStored(
      values, type, isStub: isStub, at: steps, schema: schema, collector: collector, absent: absent)
    guard let object = mapped, errors.isEmpty else {
      throw StrataError(
        errors.map { detail in
          var located = detail
          located.code = .io
          located.message =
            "the stored record does not fit the schema: \(detail.message). The schema changed since the file was written at version \(store.storedVersion): to carry its records over, raise the schema's \"version\" and add a migration (docs/schema.md#archives-and-migrations)"
          return located
        })
    }
    return object
  }

  /// Takes the relationships out of a mapped record: what each one stores
  /// (its target keys, from `collector`), its slot left absent until linking.
  private static func setLinksAside(
    _ object: ModelObject, _ type: ModelType, collector: RelationCollector
  ) -> [StoredLink] {
    var held = [StoredLink].filled(with: .none, count: type.properties.count)
    func storedKey(_ slot: Slot) -> RecordKey? {
      collector.entry(slot).flatMap { RecordKey(json: $0.value) }
    }
    for index in type.relations where index < object.slots.count {
      switch object.slots[index] {
      case .null: held[index] = .null
      case .leaf: held[index] = .one(storedKey(object.slots[index]))
      case .array(let elements): held[index] = .many(elements.map(storedKey))
      default: break
      }
      object.slots[index].release()
      object.slots[index] = .absent
    }
    collector.drop(to: 0)
    return held
  }

  /// The relationships of a record read from its row, left in its object
  /// as their targets' keys (what `GraphOutput.materializeInPlace` would
  /// show: each key as `RecordKey.makeJSON` writes it, a list without
  /// repeats), and what each one stores, by property index, for
  /// `GraphMemory.makeLinks`. `lists` are the to-many lists read as keys
  /// (the mapper saw them empty); `unread`, by property name, the lengths of
  /// the lists a lazy read left unread (shown empty, as a list holding none
  /// of them shows). A value that is not a key is a damaged file, as when
  /// the links are made at once.
  static func showLinks(
    _ object: ModelObject, _ type: ModelType, collector: RelationCollector,
    lists: [(index: Int, keys: [RecordKey])], unread: [String: Int], schema: Schema, record: GraphRecord
  ) throws(StrataError) -> ContiguousArray<UnmadeLink> {
    var held = ContiguousArray<UnmadeLink>()
    held.reserveCapacity(type.relations.count)
    defer { collector.drop(to: 0) }
    func notAKey(_ index: Int) -> StrataError {
      StrataError(
        code: .io,
        message:
          "the graph file is damaged: the '\(type.name)' record \(record.key) holds through '\(type.properties[index].name)' a value that is not a key"
      )
    }
    // the slot kept when it holds the key as makeJSON writes it (one integer
    // or string, as a row's column gives it), else written again
    func shown(_ slot: Slot, _ index: Int) throws(StrataError) -> (RecordKey, Slot?) {
      guard let value = collector.entry(slot)?.value, let key = RecordKey(json: value) else {
        throw notAKey(index)
      }
      switch key {
      case .int, .string: return (key, nil)
      default:
        guard let made = key.makeJSON() else { throw StrataError(code: .oom, message: "out of memory") }
        return (key, .leaf(made))
      }
    }
    for index in type.relations {
      guard index < object.slots.count else {
        held.append(.none)
        continue
      }
      guard let relation = type.properties[index].relation, relation.target < schema.models.count else {
        object.slots[index].release()
        object.slots[index] = .absent
        held.append(.none)
        continue
      }
      if case .array = object.slots[index], !unread.isEmpty, let count = unread[type.properties[index].name],
        count > 0
      {
        object.slots[index].release()
        object.slots[index] = .array([])
        held.append(.unread(count))
        continue
      }
      if case .array = object.slots[index], let given = lists.first(where: { $0.index == index }) {
        // read as keys: the mapper saw an empty list
        var keys = given.keys
        _ = Self.dropRepeats(&keys)
        try Self.show(keys, at: index, of: object)
        held.append(.many(keys))
        continue
      }
      switch object.slots[index] {
      case .null: held.append(.null)
      case .leaf:
        let (key, replaced) = try shown(object.slots[index], index)
        held.append(.one(key))
        if let replaced {
          object.slots[index].release()
          object.slots[index] = replaced
        }
      case .array(let elements):
        var keys: [RecordKey] = []
        keys.reserveCapacity(elements.count)
        var rewrite = false
        for element in elements {
          let (key, replaced) = try shown(element, index)
          if let replaced {
            replaced.release()
            rewrite = true
          }
          keys.append(key)
        }
        if Self.dropRepeats(&keys) { rewrite = true }
        if rewrite { try Self.show(keys, at: index, of: object) }
        held.append(.many(keys))
      default:
        object.slots[index].release()
        object.slots[index] = .absent
        held.append(.none)
      }
    }
    return held
  }

  /// Writes `keys` into the slot `index` of `object` as a list of keys.
  private static func show(_ keys: [RecordKey], at index: Int, of object: ModelObject) throws(StrataError) {
    var elements = ContiguousArray<Slot>()
    elements.reserveCapacity(keys.count)
    for key in keys {
      guard let made = key.makeJSON() else {
        for element in elements { element.release() }
        throw StrataError(code: .oom, message: "out of memory")
      }
      elements.append(.leaf(made))
    }
    object.slots[index].release()
    object.slots[index] = .array(elements)
  }

  /// Drops the repeats of `keys` after their first place (a `RecordList`
  /// holds each target once); true when there were any.
  static func dropRepeats(_ keys: inout [RecordKey]) -> Bool {
    if keys.count < 2 { return false }
    if keys.count <= 16 {
      var repeated = false
      outer: for later in 1..<keys.count {
        for earlier in 0..<later where keys[earlier] == keys[later] {
          repeated = true
          break outer
        }
      }
      if !repeated { return false }
    }
    var seen = Set<RecordKey>(minimumCapacity: keys.count)
    let before = keys.count
    keys = keys.filter { seen.insert($0).inserted }
    return keys.count != before
  }

  /// Links the records read: both sides of every relationship are stored, so
  /// each is set as read.
  private static func link(
    _ pending: [(GraphRecord, [StoredLink])], in memory: GraphMemory, schema: Schema
  ) throws(StrataError) {
    for (record, held) in pending {
      let model = record.state.model
      for index in model.relations where index < held.count {
        guard let relation = model.properties[index].relation, relation.target < schema.models.count else {
          continue
        }
        let root = schema.models[relation.target].keyRoot
        func target(_ key: RecordKey?) throws(StrataError) -> GraphRecord {
          guard let key, let found = memory.record(root, key) else {
            throw damaged(
              "the '\(model.name)' record \(record.key) refers through '\(model.properties[index].name)' to a record that is not in the file"
            )
          }
          return found
        }
        switch held[index] {
        case .null: record.state.links[index] = .null
        case .one(let key):
          let found = try target(key)
          record.state.links[index] = .one(found)
          found.storedState.incoming.insert(Incoming(record: record, property: index))
        case .many(let elements):
          var list = RecordList()
          for element in elements {
            let found = try target(element)
            list.append(found)
            found.storedState.incoming.insert(Incoming(record: record, property: index))
          }
          record.state.links[index] = .many(list)
        case .none: continue
        }
      }
    }
  }

  /// Makes the linked records' objects; when rewriting, also their bodies
  /// (kept in `rewritten` for the caller to release): the changes that
  /// rewrite the file in this schema's tables, at its version.
  private static func materialize(
    _ pending: [(GraphRecord, [StoredLink])], schema: Schema, rewriting: Bool,
    rewritten: inout [JPtr]
  ) -> [GraphStore.Change] {
    var changes: [GraphStore.Change] = []
    for (record, _) in pending {
      let object = GraphOutput.materialize(record.state, schema: schema)
      record.tie(object, isStub: record.state.isStub)
      record.state.object = object
      if rewriting, let body = GraphCommit.body(record.state) {
        rewritten.append(body)
        changes.append(
          GraphStore.Change(model: schema.models[record.keyRoot].name, key: record.keyJSON, body: body))
      }
    }
    return changes
  }

  /// Maps the values a record is stored with (canonical, relationships as
  /// keys set aside in `collector`) under `type`, at `steps`: the record, or
  /// nil, and the errors. A stub (a record known by its key only) maps
  /// partially: what it lacks stays absent, required or not, and takes no
  /// default.
  static func mapStored(
    _ values: JPtr, _ type: ModelType, isStub: Bool, at steps: [PathStep], schema: Schema,
    collector: RelationCollector, absent: JPtr? = nil
  ) -> (ModelObject?, [ErrorDetail]) {
    var mapper = Mapper(schema: schema, mode: .canonical)
    prepareStored(&mapper, at: steps, collector: collector, partial: isStub)
    let object = mapper.model(values, type)
    // the properties the row says hold nothing stay absent (no default)
    if let object, let absent, JValue.isArray(absent) {
      for position in 0..<json_array_size(absent) {
        guard let name = json_array_get(absent, position), JValue.isString(name),
          let index = type.propertyIndex[JValue.string(name)], index < object.slots.count,
          json_object_get(values, JValue.string(name)) == nil
        else { continue }
        object.slots[index].release()
        object.slots[index] = .absent
      }
    }
    return (object, mapper.errors)
  }

  /// Maps a record read from its row (`RecordRows.Stored`: its values by
  /// property index) in canonical mode, as `mapStored(_:_:...)` maps the
  /// same values given as an object.
  static func mapStored(
    _ stored: RecordRows.Stored, at steps: [PathStep], schema: Schema, collector: RelationCollector
  ) -> (ModelObject?, [ErrorDetail]) {
    var mapper = Mapper(schema: schema, mode: .canonical)
    prepareStored(&mapper, at: steps, collector: collector, partial: stored.stub)
    let object = mapper.canonicalModel(stored.type, unknown: stored.unknown, absent: stored.absent) {
      stored.values[$0]
    }
    return (object, mapper.errors)
  }

  /// Sets up `mapper` (canonical) for a stored record at `steps`, its
  /// relationships collected by `collector`; `partial` for a stub.
  private static func prepareStored(
    _ mapper: inout Mapper, at steps: [PathStep], collector: RelationCollector, partial: Bool
  ) {
    mapper.relations = collector
    // a record mapped at no place keeps the mapper's own reserved steps
    // (replaced by an empty array, they were freed and made again at the
    // first property: Benchmarks/README.md, "Rows handed to their records")
    if !steps.isEmpty { mapper.steps = steps }
    collector.base = mapper.steps.count
    mapper.partial = partial
  }

  /// An `io` error for a file whose contents do not make sense.
  private static func damaged(_ message: String) -> StrataError {
    StrataError(code: .io, message: "the graph file is damaged: \(message)")
  }
}
