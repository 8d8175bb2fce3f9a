import CJansson

/// Reading a file's records from its tables while memory holds none of
/// them: a context opens a file without reading it (O(1) in its size), and
/// `get`, `count` and queries answer from SQL until a call needs the whole
/// graph (`ensureLoaded`). A record read so is the record as the file holds
/// it, mapped as opening the file would map it; its handle follows the
/// record by key (`ModelObject.recordSource`).
extension GraphContext {
  /// Counts `count` records about to be read one by one from the file; once
  /// a quarter of the file's records (at least 1,000) were read so, reading
  /// the whole graph in is cheaper than going on: it is read in, and true
  /// returned (the caller then reads memory).
  func readingInstead(_ count: Int, _ store: GraphStore) throws(StrataError) -> Bool {
    if coldBudget == nil {
      var total = 0
      for table in store.layout.tables { total += try store.count(model: table.name) }
      coldBudget = max(1000, total / 4)
    }
    coldReads += count
    guard coldReads > coldBudget ?? 0 else { return false }
    try ensureLoaded()
    return true
  }

  /// The record of `type` (or a subtype) under `key`, read from the file; nil when there is none.
  func coldRecord(_ store: GraphStore, _ type: ModelType, _ key: RecordKey) throws(StrataError)
    -> ModelObject?
  {
    let root = schema.models[type.keyRoot]
    guard let keyJSON = key.makeJSON() else { throw StrataError(code: .oom, message: "out of memory") }
    defer { JValue.release(keyJSON) }
    guard let body = try store.get(model: root.name, key: keyJSON) else { return nil }
    defer { JValue.release(body) }
    guard let modelValue = json_object_get(body, "model"), JValue.isString(modelValue),
      let values = json_object_get(body, "values"), JValue.isObject(values),
      case .success(let model) = schema.modelType(JValue.string(modelValue)), model.keyRoot == type.keyRoot
    else {
      throw StrataError(
        code: .io, message: "the graph file is damaged: the '\(root.name)' record \(key) has no model")
    }
    guard model.isSelfOrDescendant(of: type) else { return nil }
    let isStub = json_object_get(body, "stub").map { $0.pointee.type == JSON_TRUE } ?? false
    let collector = RelationCollector()
    // relationships map to the keys the file stores: what a committed record shows
    let (mapped, errors) = GraphLoading.mapStored(
      values, model, isStub: isStub, at: [.name(root.name), .name(key.description)], schema: schema,
      collector: collector)
    collector.drop(to: 0)
    guard let object = mapped, errors.isEmpty else {
      throw StrataError(
        errors.map { detail in
          var located = detail
          located.code = .io
          located.message = "the stored record does not fit the schema: \(detail.message)"
          return located
        })
    }
    object.markRead(key: key, stub: isStub, source: ObjectIdentifier(self))
    return object
  }

  /// The number of records of `type` (and its subtypes) in the file.
  func coldCount(_ store: GraphStore, _ type: ModelType, stubs: Bool) throws(StrataError) -> Int {
    let root = schema.models[type.keyRoot]
    guard store.layout.table(root.name) != nil else { return 0 }
    let models = schema.models.filter { $0.keyRoot == type.keyRoot && $0.isSelfOrDescendant(of: type) }.map(
      \.name)
    var sql =
      "SELECT count(*) FROM \(SQLText.quoted(root.name)) WHERE \"strata_type\" IN (\(SQLText.parameters(models.count)))"
    if !stubs { sql += " AND \"strata_stub\" = 0" }
    return try store.connection.withStatement(sql) { (statement) throws(StrataError) -> Int in
      try statement.bind(1, cells: models.map(SQLCell.text))
      return try statement.step() ? Int(truncatingIfNeeded: statement.int64(0)) : 0
    }
  }
}
