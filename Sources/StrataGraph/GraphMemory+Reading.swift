import CJansson
import Strata

/// Reading one record's state from the file's table: the row (or a row
/// read ahead, `readAhead`) mapped at no place, its links set aside. Apart
/// from `GraphMemory.swift`, which keeps the cache itself.
extension GraphMemory {
  /// The state of `record` as the file holds it, or nil when the file has no such record.
  /// Its links are left as keys (`GraphRecord.unmadeLinks`, set here) for
  /// `makeLinks`; `lazily`, a to-many list longer than `listReadAtOnce` is
  /// left unread (`UnmadeLink.unread`).
  func read(_ record: GraphRecord, _ store: GraphStore, lazily: Bool) throws(StrataError)
    -> RecordState?
  {
    let root = schema.models[record.keyRoot]
    let model: ModelType
    let isStub: Bool
    let unread: [String: Int]
    let mapped: ModelObject?
    let errors: [ErrorDetail]
    let collector = RelationCollector()
    // `map(steps, collector)` maps the record at no steps; only a record that
    // fails is mapped again at its place (the key space, then the key), for
    // the errors' paths: making that place costs a tenth of a cold get.
    func mapAtNoPlace(
      _ map: ([PathStep], RelationCollector) -> (ModelObject?, [ErrorDetail])
    ) -> (ModelObject?, [ErrorDetail]) {
      let (object, errors) = map([], collector)
      if errors.isEmpty { return (object, errors) }
      return (object, map([.name(root.name), .name(record.key.description)], RelationCollector()).1)
    }
    func noModel() -> StrataError {
      StrataError(
        code: .io, message: "the graph file is damaged: the '\(root.name)' record \(record.key) has no model")
    }
    // what was read is released when the record is made (its links are set aside from it)
    var readStored: RecordRows.Stored? = nil
    var readBody: JPtr? = nil
    defer {
      readStored?.release()
      if let readBody { JValue.release(readBody) }
    }
    if store.readsRows {
      // format 2: the row's values go to the mapper by property index
      let fetched: (stored: RecordRows.Stored, unread: [String: Int])?
      let ahead =
        takeHanded(record.keyRoot, record.key)
        ?? (prefetched.isEmpty ? nil : prefetched[record.keyRoot]?.removeValue(forKey: record.key))
      let aheadUnread =
        prefetchedUnread.isEmpty
        ? [:] : prefetchedUnread[record.keyRoot]?.removeValue(forKey: record.key) ?? [:]
      if let ahead, lazily || aheadUnread.isEmpty {
        fetched = (ahead, aheadUnread)
      } else {
        ahead?.release()  // read ahead lazily, wanted whole: read again
        fetched = try store.stored(
          model: root.name, key: record.keyJSON, schema: schema, listsUpTo: lazily ? listReadAtOnce : nil)
      }
      guard let (stored, lists) = fetched else { return nil }
      readStored = stored
      guard stored.type.keyRoot == root.index else { throw noModel() }
      model = stored.type
      isStub = stored.stub
      unread = lists
      (mapped, errors) = mapAtNoPlace {
        GraphLoading.mapStored(stored, at: $0, schema: schema, collector: $1)
      }
    } else {
      guard
        let (body, lists) = try store.get(
          model: root.name, key: record.keyJSON, listsUpTo: lazily ? listReadAtOnce : nil)
      else { return nil }
      readBody = body
      guard let modelValue = json_object_get(body, "model"), JValue.isString(modelValue),
        let values = json_object_get(body, "values"), JValue.isObject(values),
        case .success(let type) = schema.modelType(JValue.string(modelValue)), type.keyRoot == root.index
      else { throw noModel() }
      model = type
      isStub = json_object_get(body, "stub").map { $0.pointee.type == JSON_TRUE } ?? false
      unread = lists
      (mapped, errors) = mapAtNoPlace {
        GraphLoading.mapStored(
          values, model, isStub: isStub, at: $0, schema: schema, collector: $1,
          absent: json_object_get(body, "absent"))
      }
    }
    guard let object = mapped, errors.isEmpty else {
      collector.drop(to: 0)
      throw StrataError(
        errors.map { detail in
          var located = detail
          located.code = .io
          located.message = "the stored record does not fit the schema: \(detail.message)"
          return located
        })
    }
    // the links stay keys until followed (`makeLinks`; a lazy read's are
    // made at once by `fill`, with the lists it left unread)
    let held = try GraphLoading.showLinks(
      object, model, collector: collector, lists: readStored?.lists ?? [], unread: unread, schema: schema,
      record: record)
    record.tie(object, isStub: isStub)
    record.unmadeLinks = held
    return RecordState(model: model, object: object, isStub: isStub, links: RecordLinks())
  }

  /// Makes the links a record read from its row kept as keys
  /// (`GraphRecord.unmadeLinks`): each target is the record memory holds
  /// under its key, or a fault of it; a list left unread holds none yet
  /// (`GraphRecord.pendingLists`). Out of memory sets `failure`.
  func makeLinks(_ record: GraphRecord) {
    guard let held = record.unmadeLinks else { return }
    record.unmadeLinks = nil
    let model = record.storedState.model
    var links = RecordLinks(model)
    var pending = false
    for (position, index) in model.relations.enumerated() where position < held.count {
      guard let relation = model.properties[index].relation, relation.target < schema.models.count else {
        continue
      }
      let targetRoot = schema.models[relation.target].keyRoot
      switch held[position] {
      case .null: links[index] = .null
      case .one(let key):
        guard let target = fault(targetRoot, key) else { return }
        links[index] = .one(target)
      case .many(let keys):
        var list = RecordList()
        for key in keys {
          guard let target = fault(targetRoot, key) else { return }
          list.append(target)
        }
        links[index] = .many(list)
      case .unread(let count):
        links[index] = .many(RecordList(unread: count))
        pending = true
      case .none: continue
      }
    }
    record.storedState.links = links
    if pending { record.pendingLists = true }
  }
}
