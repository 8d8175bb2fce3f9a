import Strata

/// What a context that reads records on demand asks the file (read with
/// the schema's own layout: only when `readsOnDemand`): the keys of a
/// key space, the records that link to one record (through the indexed
/// foreign-key columns and link-table targets), the largest key Strata
/// made, and whether the file holds any record at all.
extension GraphStore {
  /// True when the file is read with the schema's own tables (format 2, the
  /// same layout, nothing to migrate): records can then be read one by one.
  package var readsOnDemand: Bool {
    fileFormat == Self.format && hasOwnLayout && !needsRewrite
  }

  /// The keys of every record of the table `model`, in key order (`RecordKey`'s).
  func keys(model: String) throws(StrataError) -> [RecordKey] {
    guard let table = layout.table(model) else { return [] }
    let sql = "SELECT \(dialect.list(table.keyColumns.map(\.name))) FROM \(dialect.quoted(model))"
    return try connection.withStatement(sql) { (statement) throws(StrataError) -> [RecordKey] in
      try RecordRows.keys(statement, of: table)
    }.sorted()
  }

  /// One place a record can be linked from: a to-one property's foreign-key
  /// columns, or a to-many property's link table.
  struct Referrer {
    /// The table whose records link (the owners).
    var table: TableLayout.Table
    /// The property that links.
    var property: String
    /// Selects the owners' key columns where the link's target columns equal the parameters.
    var sql: String
  }

  /// Every place that can link to a record of the table `target`: to-one
  /// and to-many relationships, and relationships inside a key.
  func referrers(to target: String, schema: Schema) -> [Referrer] {
    var found: [Referrer] = []
    for table in layout.tables {
      if case .success(let type) = schema.modelType(table.name) {
        var offset = table.hasSyntheticColumn ? 1 : 0
        for (name, part) in zip(table.keyProperties, table.propertyParts) {
          defer { offset += part.width }
          guard let index = type.propertyIndex[name], let relation = type.properties[index].relation,
            relation.target < schema.models.count,
            schema.models[schema.models[relation.target].keyRoot].name == target
          else { continue }
          let keys = table.keyColumns.map(\.name)
          found.append(
            Referrer(
              table: table, property: name,
              sql:
                "SELECT \(dialect.list(keys)) FROM \(dialect.quoted(table.name)) WHERE \(dialect.equalAll(Array(keys[offset..<offset + part.width])))"
            ))
        }
      }
      for property in table.properties {
        switch property.storage {
        case .toOne(let name) where name == target:
          found.append(
            Referrer(
              table: table, property: property.name,
              sql:
                "SELECT \(dialect.list(table.keyColumns.map(\.name))) FROM \(dialect.quoted(table.name)) WHERE \(dialect.equalAll(property.columns.map(\.name)))"
            ))
        case .toMany(let name, let link) where name == target:
          let columns = Self.linkColumns(table, property, in: layout)
          found.append(
            Referrer(
              table: table, property: property.name,
              sql:
                "SELECT DISTINCT \(dialect.list(columns.owner.map(\.name))) FROM \(dialect.quoted(link)) WHERE \(dialect.equalAll(columns.target.map(\.name)))"
            ))
        default: continue
        }
      }
    }
    return found
  }

  /// The keys of the records that link to the record of the table `target`
  /// under `key` through `referrer`.
  func owners(_ referrer: Referrer, target: String, key: RecordKey) throws(StrataError) -> [RecordKey] {
    guard let targetTable = layout.table(target),
      let cells = RecordRows.cells(key, parts: targetTable.keyParts)
    else { return [] }
    return try connection.withStatement(referrer.sql) { (statement) throws(StrataError) -> [RecordKey] in
      try statement.bind(1, cells: cells)
      return try RecordRows.keys(statement, of: referrer.table)
    }
  }

  /// The largest key Strata made for a record of the file (keys it makes
  /// are 8-byte blobs, which sort after every other value in a key column;
  /// on PostgreSQL numbers in `strata_synthetic`), or 0 when there is none.
  func largestSyntheticKey() throws(StrataError) -> Int64 {
    var largest: Int64 = 0
    for table in layout.tables {
      guard let first = table.keyColumns.first else { continue }
      let sql = "SELECT max(\(dialect.quoted(first.name))) FROM \(dialect.quoted(table.name))"
      try connection.withStatement(sql) { (statement) throws(StrataError) in
        guard try statement.step() else { return }
        switch statement.cell(0) {
        case .blob(let bytes): if let id = RecordRows.syntheticID(bytes) { largest = max(largest, id) }
        case .integer(let id) where table.hasSyntheticColumn: largest = max(largest, id)
        default: return
        }
      }
    }
    return largest
  }

  /// True when no table of the file holds a record.
  func holdsNoRecord() throws(StrataError) -> Bool {
    for table in layout.tables {
      let any = try connection.withStatement("SELECT 1 FROM \(dialect.quoted(table.name)) LIMIT 1") {
        (statement) throws(StrataError) -> Bool in try statement.step()
      }
      if any { return false }
    }
    return true
  }
}
