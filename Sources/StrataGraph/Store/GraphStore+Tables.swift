import Strata

/// Making and changing the tables of format 2 (TableLayout).
extension GraphStore {
  /// Creates the tables and indexes of `layout` that do not exist yet
  /// (`TableLayout.creationStatements`).
  func createTables(_ layout: TableLayout) throws(StrataError) {
    for statement in layout.creationStatements(dialect) { try connection.execute(statement) }
  }

  /// The owner and target columns of a link table.
  static func linkColumns(
    _ owner: TableLayout.Table, _ property: TableLayout.Property, in layout: TableLayout
  )
    -> (owner: [TableLayout.Column], target: [TableLayout.Column])
  {
    guard case .toMany(let target, _) = property.storage, let targetTable = layout.table(target) else {
      return ([], [])
    }
    return (
      TableLayout.renamed(owner.keyColumns, as: "owner"),
      TableLayout.renamed(targetTable.keyColumns, as: "target")
    )
  }

  /// Changes the tables of `old` (nil: the single `records` table of format
  /// 1) into those of `new`, keeping what both have: a table whose key
  /// columns stay gets the columns it lacks (`ALTER TABLE ... ADD COLUMN`)
  /// and loses those `new` does not have (`DROP COLUMN`); any other table
  /// of `old` is dropped, any other of `new` made. Rows are not rewritten:
  /// the caller writes every record after. Runs inside the caller's transaction.
  func changeTables(from old: TableLayout?, to new: TableLayout) throws(StrataError) {
    guard let old else {
      try connection.execute("DROP TABLE IF EXISTS records")
      try createTables(new)
      return
    }
    let newLinks = Dictionary(
      new.linkTables.map { ($0.name, Self.linkColumns($0.owner, $0.property, in: new)) },
      uniquingKeysWith: { first, _ in first })
    for link in old.linkTables {
      let columns = Self.linkColumns(link.owner, link.property, in: old)
      if let kept = newLinks[link.name], kept.owner == columns.owner, kept.target == columns.target {
        continue
      }
      try connection.execute("DROP TABLE IF EXISTS \(dialect.quoted(link.name))")
    }
    for table in old.tables {
      for position in table.indexes.indices {
        try connection.execute("DROP INDEX IF EXISTS \(dialect.quoted("\(table.name).index.\(position)"))")
      }
      for property in table.properties {
        if case .toOne = property.storage {
          try connection.execute("DROP INDEX IF EXISTS \(dialect.quoted("\(table.name).\(property.name)"))")
        }
      }
      guard let kept = new.table(table.name), kept.keyColumns == table.keyColumns else {
        try connection.execute("DROP TABLE IF EXISTS \(dialect.quoted(table.name))")
        continue
      }
      let before = table.properties.flatMap(\.columns)
      let after = kept.properties.flatMap(\.columns)
      let quotedTable = dialect.quoted(table.name)
      for column in before where !after.contains(column) {
        try connection.execute("ALTER TABLE \(quotedTable) DROP COLUMN \(dialect.quoted(column.name))")
      }
      for column in after where !before.contains(column) {
        try connection.execute(
          "ALTER TABLE \(quotedTable) ADD COLUMN \(dialect.quoted(column.name)) \(column.kind.declared)")
      }
    }
    try createTables(new)
  }

  /// Rewrites the file for this store's layout and schema version, in ONE
  /// transaction: the tables changed (`changeTables`), every record written
  /// (`changes`: all of them, as the schema now maps them), `format`,
  /// `version` and `layout` recorded. On any failure the file is as before.
  package func rewrite(_ changes: [Change]) throws(StrataError) {
    let rows = try prepare(changes, layout: layout)
    try connection.writeTransaction { () throws(StrataError) in
      try changeTables(from: fileFormat < Self.format ? nil : fileLayout, to: layout)
      try apply(rows, layout: layout, progress: nil)
      try Self.setMeta(connection, "format", Self.format)
      try Self.setMeta(connection, "version", schemaVersion)
      try Self.setMeta(connection, "layout", text: layout.json.serialized())
    }
    fileFormat = Self.format
    fileLayout = layout
    storedVersion = schemaVersion
  }
}
