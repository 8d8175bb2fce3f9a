/// Where the graph's SQL differs between its two databases, SQLite and
/// PostgreSQL: column types, names, and how a table is declared. The tables
/// themselves, their columns, keys and indexes are the same on both
/// (`TableLayout`; docs/architecture.md, "Storage").
package enum SQLDialect: Sendable {
  /// SQLite: the file's tables as format 2 lays them out.
  case sqlite
  /// PostgreSQL: the same tables with PostgreSQL's types.
  case postgres

  /// PostgreSQL's longest identifier, in bytes (NAMEDATALEN - 1): a longer
  /// name would be cut off, and two long names could become one.
  static let postgresNameLimit = 63

  /// The SQL type of a column of `kind`.
  ///
  /// SQLite: INTEGER (`int`, and `bool` as 0 or 1), REAL, TEXT (strings,
  /// dates as RFC 3339 text, JSON text). PostgreSQL: BIGINT, SMALLINT (a
  /// `bool`, 0 or 1), DOUBLE PRECISION, TEXT in the "C" collation (so that
  /// text compares and sorts by bytes, as SQLite's BINARY collation does).
  package func type(_ kind: TableLayout.ColumnKind) -> String {
    switch (self, kind) {
    case (.sqlite, _): return kind.declared
    case (.postgres, .integer): return "BIGINT"
    case (.postgres, .bool): return "SMALLINT"
    case (.postgres, .real): return "DOUBLE PRECISION"
    // byte order (code point order for UTF-8), as SQLite's BINARY compares and sorts
    case (.postgres, .text), (.postgres, .date), (.postgres, .json): return "TEXT COLLATE \"C\""
    }
  }

  /// `name` as a quoted identifier. On PostgreSQL a name longer than 63
  /// bytes becomes its first bytes (whole characters), `~` and 16 hex
  /// digits of a hash of the whole name: distinct names stay distinct.
  package func quoted(_ name: String) -> String {
    SQLText.quoted(identifier(name))
  }

  /// The quoted names, comma-separated.
  package func list(_ names: [String]) -> String { names.map(quoted).joined(separator: ", ") }

  /// `"a" = ? AND "b" = ?` for the names.
  package func equalAll(_ names: [String]) -> String {
    names.map { "\(quoted($0)) = ?" }.joined(separator: " AND ")
  }

  /// The name as the database holds it (see `quoted`).
  package func identifier(_ name: String) -> String {
    guard self == .postgres, name.utf8.count > Self.postgresNameLimit else { return name }
    let suffix = "~" + Self.hex(Self.fnv1a(name))
    var prefix = ""
    for character in name {
      if prefix.utf8.count + String(character).utf8.count + suffix.utf8.count > Self.postgresNameLimit {
        break
      }
      prefix.append(character)
    }
    return prefix + suffix
  }

  /// The definition of a key column: NOT NULL; a `strata_synthetic`
  /// column also DEFAULT 0, so that rows inserted by other programs, which
  /// do not name it, hold keys of their own.
  func keyColumn(_ column: TableLayout.Column) -> String {
    let definition = "\(quoted(column.name)) \(type(column.kind)) NOT NULL"
    return TableLayout.isSynthetic(column.name) ? definition + " DEFAULT 0" : definition
  }

  /// What follows a table's column list: SQLite keeps a table's rows in its
  /// primary key's order (`WITHOUT ROWID`); PostgreSQL has no such clause.
  var tableSuffix: String { self == .sqlite ? " WITHOUT ROWID" : "" }

  /// The statement that creates `strata_meta`, the store's metadata: on
  /// SQLite its values keep their own types; PostgreSQL's are text (the
  /// integers read back by `GraphStore.meta`).
  var metaTable: String {
    self == .sqlite
      ? "CREATE TABLE strata_meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID"
      : "CREATE TABLE strata_meta(key TEXT PRIMARY KEY, value TEXT)"
  }

  /// FNV-1a, 64 bits, of the name's UTF-8: stable across runs and machines.
  static func fnv1a(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    return hash
  }

  /// `value` as 16 hex digits, most significant first.
  static func hex(_ value: UInt64) -> String {
    SQLText.hex(stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: value >> UInt64($0)) })
  }
}

extension TableLayout {
  /// The statements that create this layout's tables and indexes where they
  /// do not exist yet, in `dialect`, in order: each model table (key
  /// columns, `strata_type`, `strata_stub`, `strata_extra`, one column per
  /// stored property, the key as primary key), its declared indexes and one
  /// per to-one relationship (of the rows where it is not null); then each
  /// link table (owner key, position, target key) and its index on the target.
  package func creationStatements(_ dialect: SQLDialect) -> [String] {
    var statements: [String] = []
    for table in tables {
      var definitions = table.keyColumns.map(dialect.keyColumn)
      definitions += [
        "\"strata_type\" TEXT NOT NULL", "\"strata_stub\" \(dialect.type(.integer)) NOT NULL DEFAULT 0",
        "\"strata_extra\" TEXT",
      ]
      for property in table.properties {
        definitions += property.columns.map { "\(dialect.quoted($0.name)) \(dialect.type($0.kind))" }
      }
      definitions.append("PRIMARY KEY(\(dialect.list(table.keyColumns.map(\.name))))")
      statements.append(
        "CREATE TABLE IF NOT EXISTS \(dialect.quoted(table.name))(\(definitions.joined(separator: ", ")))"
          + dialect.tableSuffix)
      for (position, columns) in table.indexes.enumerated() {
        statements.append(
          "CREATE INDEX IF NOT EXISTS \(dialect.quoted("\(table.name).index.\(position)")) ON "
            + "\(dialect.quoted(table.name))(\(dialect.list(columns)))")
      }
      for property in table.properties where !property.columns.isEmpty {
        if case .toOne = property.storage {
          // partial: a row whose relationship is null (or absent) has no
          // entry, so that a write of it costs no index insert; every lookup
          // of the index compares the columns with a key, which implies
          // `IS NOT NULL`, and so may use it
          statements.append(
            "CREATE INDEX IF NOT EXISTS \(dialect.quoted("\(table.name).\(property.name)")) ON "
              + "\(dialect.quoted(table.name))(\(dialect.list(property.columns.map(\.name))))"
              + " WHERE \(dialect.quoted(property.columns[0].name)) IS NOT NULL")
        }
      }
    }
    for link in linkTables {
      let columns = GraphStore.linkColumns(link.owner, link.property, in: self)
      var definitions = columns.owner.map(dialect.keyColumn)
      definitions.append("\"position\" \(dialect.type(.integer)) NOT NULL")
      definitions += columns.target.map(dialect.keyColumn)
      definitions.append("PRIMARY KEY(\(dialect.list(columns.owner.map(\.name) + ["position"])))")
      statements.append(
        "CREATE TABLE IF NOT EXISTS \(dialect.quoted(link.name))(\(definitions.joined(separator: ", ")))"
          + dialect.tableSuffix)
      statements.append(
        "CREATE INDEX IF NOT EXISTS \(dialect.quoted("\(link.name).target")) ON "
          + "\(dialect.quoted(link.name))(\(dialect.list(columns.target.map(\.name))))")
    }
    return statements
  }
}
