import Strata

/// Counting a file's records by SQL, when the cache does not hold them all.
extension GraphContext {
  /// The number of records of `type` (and its subtypes) in the file.
  func coldCount(_ store: GraphStore, _ type: ModelType, stubs: Bool) throws(StrataError) -> Int {
    let root = schema.models[type.keyRoot]
    guard store.layout.table(root.name) != nil else { return 0 }
    memory.startReading()
    let models = schema.recordModelNames(type)
    var sql =
      "SELECT count(*) FROM \(store.dialect.quoted(root.name)) WHERE \"strata_type\" IN (\(SQLText.parameters(models.count)))"
    if !stubs { sql += " AND \"strata_stub\" = 0" }
    return try store.connection.withStatement(sql) { (statement) throws(StrataError) -> Int in
      try statement.bind(1, cells: models.map(SQLCell.text))
      return try statement.step() ? Int(truncatingIfNeeded: statement.int64(0)) : 0
    }
  }
}
