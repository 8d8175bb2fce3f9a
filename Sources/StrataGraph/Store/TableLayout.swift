import Strata

/// How format 2 of the graph file lays a schema's records out in SQLite
/// tables: one table per key space (a model with a `primaryKey`, with the
/// subtypes that share its key), one column per stored property, a
/// foreign-key column (or columns) per to-one relationship and a link table
/// per to-many relationship (docs/graph.md, "The file's tables").
///
/// The layout is made from a schema (`init(schema:)`) and kept in the file
/// (`strata_meta` under `layout`, as JSON): a file is always read with the
/// layout it was written with, so a file of an older schema version reads
/// before its records are migrated and written with the new layout.
package struct TableLayout: Equatable, Sendable {
  /// What a column holds and how it is declared.
  package enum ColumnKind: String, Equatable, Sendable {
    /// An `int`: INTEGER.
    case integer
    /// A `double`: REAL.
    case real
    /// A `bool`: INTEGER, 0 or 1.
    case bool
    /// A `string` or `url`: TEXT.
    case text
    /// A `date`: RFC 3339 UTC text with nine fraction digits
    /// (`2011-04-10T20:09:31.000000000Z`), which sorts in time order: TEXT.
    case date
    /// A `json` value, a list or dictionary of values, an unkeyed nested
    /// model: its canonical JSON text, TEXT.
    case json

    /// The column's declared SQL type.
    var declared: String {
      switch self {
      case .integer, .bool: return "INTEGER"
      case .real: return "REAL"
      case .text, .date, .json: return "TEXT"
      }
    }
  }

  /// One column: its name and kind.
  package struct Column: Equatable, Sendable {
    /// The column's name.
    package var name: String
    /// What it holds.
    package var kind: ColumnKind
  }

  /// One part of a key: a value in one column, or the key of a record (a
  /// relationship in a primary key) in as many columns as that key has.
  package indirect enum KeyPart: Equatable, Sendable {
    /// A value.
    case value(ColumnKind)
    /// The key of a record of another key space, made of these parts.
    case key([KeyPart])
    /// PostgreSQL only, first in every key: the column that holds a key
    /// Strata made for a record that came without one (its number; 0 for
    /// every other record), `strata_synthetic` (SQLite keeps such a key as
    /// a blob in the key's first column, which no typed column can hold).
    case synthetic

    /// The number of columns the part takes.
    var width: Int {
      switch self {
      case .value, .synthetic: return 1
      case .key(let parts): return parts.reduce(0) { $0 + $1.width }
      }
    }
  }

  /// How a property is stored.
  package enum Storage: Equatable, Sendable {
    /// In one column of the record's row.
    case column(ColumnKind)
    /// A to-one relationship: the target's key in the row's `columns`.
    case toOne(target: String)
    /// A to-many relationship: rows of the link table `table`.
    case toMany(target: String, table: String)
  }

  /// A property a table stores outside its key.
  package struct Property: Equatable, Sendable {
    /// The property's name.
    package var name: String
    /// How it is stored.
    package var storage: Storage
    /// Its columns in the record's row: one for a value, the target's key
    /// width for a to-one, none for a to-many.
    package var columns: [Column]
  }

  /// A model whose records a table holds: its properties, in order.
  package struct Model: Equatable, Sendable {
    /// The model's name (what the row's `strata_type` holds).
    package var name: String
    /// True when its canonical dictionary carries `"$type"` (a subtype).
    package var tagged: Bool
    /// Its property names, in the schema's order (key properties included).
    package var properties: [String] { didSet { owns = Set(properties) } }
    /// The same names, to look up.
    private(set) var owns: Set<String>

    /// A model from its parts.
    init(name: String, tagged: Bool, properties: [String]) {
      self.name = name
      self.tagged = tagged
      self.properties = properties
      owns = Set(properties)
    }
  }

  /// The table of one key space.
  package struct Table: Equatable, Sendable {
    /// The table's name: the key space's model.
    package var name: String
    /// The primary key's properties.
    package var keyProperties: [String]
    /// The key's parts, one per key property.
    package var keyParts: [KeyPart]
    /// The key's columns (the table's primary key).
    package var keyColumns: [Column]
    /// Every other property of the table's models, each name once.
    package var properties: [Property]
    /// The models whose records the table holds.
    package var models: [Model]
    /// The schema's `indexes` of the table's models: each the columns of one
    /// index (a to-one relationship's foreign-key columns, a key property's
    /// key columns), named `<table>.index.<n>` in the file.
    package var indexes: [[String]] = []

    /// The property named `name`, if the table stores it outside the key.
    func property(_ name: String) -> Property? { properties.first { $0.name == name } }

    /// True when the key starts with a `strata_synthetic` column (PostgreSQL).
    var hasSyntheticColumn: Bool { keyParts.first == .synthetic }
    /// The parts of the key properties, one per key property (without the
    /// `synthetic` part).
    var propertyParts: ArraySlice<KeyPart> { hasSyntheticColumn ? keyParts.dropFirst() : keyParts[...] }

    /// The key columns of the key property at `position` of `keyProperties`.
    func keyColumns(ofProperty position: Int) -> ArraySlice<Column> {
      var start = hasSyntheticColumn ? 1 : 0
      let parts = propertyParts
      for part in parts.prefix(position) { start += part.width }
      return keyColumns[start..<(start + parts[parts.startIndex + position].width)]
    }
  }

  /// The tables, in the schema's order of their models.
  package private(set) var tables: [Table]
  /// Table index by name.
  private var byName: [String: Int]

  /// The names of the columns every model table has besides its properties.
  static let systemColumns = ["strata_type", "strata_stub", "strata_extra"]
  /// The name of the column of a `synthetic` key part.
  static let syntheticColumn = "strata_synthetic"

  /// True when `name` is the column of a `synthetic` key part, in its table
  /// or renamed in another (`owner.strata_synthetic`, `author.strata_synthetic`).
  static func isSynthetic(_ name: String) -> Bool {
    name == syntheticColumn || name.hasSuffix("." + syntheticColumn)
  }

  /// A layout from its tables (checked by the caller).
  init(tables: [Table]) {
    self.tables = tables
    byName = [:]
    for (index, table) in tables.enumerated() { byName[table.name] = index }
  }

  /// The table named `name`.
  package func table(_ name: String) -> Table? { byName[name].map { tables[$0] } }

  /// The key parts of the table named `name`, or nil: `table(name)?.keyParts`
  /// without a copy of the whole table (its arrays retained and released),
  /// for each to-one link of each row read back.
  package func keyParts(of name: String) -> [KeyPart]? { byName[name].map { tables[$0].keyParts } }

  /// Every link table: its name, and the table and property it belongs to.
  var linkTables: [(name: String, owner: Table, property: Property)] {
    var links: [(name: String, owner: Table, property: Property)] = []
    for table in tables {
      for property in table.properties {
        if case .toMany(_, let name) = property.storage { links.append((name, table, property)) }
      }
    }
    return links
  }

  /// The columns of a key space's key renamed for another table: the same
  /// name when the key has one column, else `prefix.name`. The columns of
  /// `synthetic` parts do not count and are always `prefix.name`, so that
  /// PostgreSQL's tables name their columns as SQLite's do.
  static func renamed(_ columns: [Column], as prefix: String) -> [Column] {
    let valueColumns = columns.reduce(0) { $0 + (isSynthetic($1.name) ? 0 : 1) }
    return columns.map { column in
      if valueColumns == 1 && !isSynthetic(column.name) { return Column(name: prefix, kind: column.kind) }
      return Column(name: "\(prefix).\(column.name)", kind: column.kind)
    }
  }

  package static func == (lhs: TableLayout, rhs: TableLayout) -> Bool { lhs.tables == rhs.tables }
}

extension TableLayout {
  /// The layout of `schema`'s records. A schema whose names cannot make
  /// tables (a model named like Strata's own tables, a property named like a
  /// system column, two columns of one table with the same name, keys that
  /// refer to each other in a cycle) is an `argument` error. On PostgreSQL
  /// every key starts with a `synthetic` part.
  package init(schema: Schema, dialect: SQLDialect = .sqlite) throws(StrataError) {
    let models = schema.models
    var keyShapes: [Int: (parts: [KeyPart], columns: [Column])] = [:]

    func keyShape(_ root: Int, depth: Int) throws(StrataError) -> (parts: [KeyPart], columns: [Column]) {
      if let known = keyShapes[root] { return known }
      let model = models[root]
      guard depth < 16 else {
        throw StrataError(
          code: .argument,
          message: "the primary keys of '\(model.name)' and the models they refer to form a cycle")
      }
      var parts: [KeyPart] = []
      var columns: [Column] = []
      if dialect == .postgres {
        parts.append(.synthetic)
        columns.append(Column(name: Self.syntheticColumn, kind: .integer))
      }
      for index in model.primaryKey where index < model.properties.count {
        let property = model.properties[index]
        if let relation = property.relation, relation.target < models.count {
          let target = try keyShape(models[relation.target].keyRoot, depth: depth + 1)
          parts.append(.key(target.parts))
          columns += Self.renamed(target.columns, as: property.name)
        } else {
          let kind = Self.columnKind(property.type)
          parts.append(.value(kind))
          columns.append(Column(name: property.name, kind: kind))
        }
      }
      keyShapes[root] = (parts, columns)
      return (parts, columns)
    }

    var tables: [Table] = []
    for model in models where !model.primaryKey.isEmpty && model.keyRoot == model.index {
      let shape = try keyShape(model.index, depth: 0)
      let keyProperties = model.primaryKey.compactMap {
        $0 < model.properties.count ? model.properties[$0].name : nil
      }
      var table = Table(
        name: model.name, keyProperties: keyProperties, keyParts: shape.parts, keyColumns: shape.columns,
        properties: [], models: [])
      for member in models where !member.primaryKey.isEmpty && member.keyRoot == model.index {
        table.models.append(
          Model(name: member.name, tagged: member.isSubtype, properties: member.properties.map(\.name)))
        for property in member.properties where !keyProperties.contains(property.name) {
          guard table.property(property.name) == nil else { continue }
          let stored: Property
          if let relation = property.relation, relation.target < models.count {
            let root = models[relation.target].keyRoot
            let target = models[root].name
            if relation.toMany {
              stored = Property(
                name: property.name,
                storage: .toMany(target: target, table: "\(model.name).\(property.name)"),
                columns: [])
            } else {
              let columns = Self.renamed(try keyShape(root, depth: 0).columns, as: property.name)
              stored = Property(name: property.name, storage: .toOne(target: target), columns: columns)
            }
          } else {
            let kind = Self.columnKind(property.type)
            stored = Property(
              name: property.name, storage: .column(kind), columns: [Column(name: property.name, kind: kind)])
          }
          table.properties.append(stored)
        }
      }
      for member in models where !member.primaryKey.isEmpty && member.keyRoot == model.index {
        for names in member.indexes {
          let columns = names.flatMap { name in Self.columns(of: name, in: table) }
          if !columns.isEmpty && !table.indexes.contains(columns) { table.indexes.append(columns) }
        }
      }
      tables.append(table)
    }
    self.init(tables: tables)
    try check()
  }

  /// The columns that hold property `name` in `table`.
  static func columns(of name: String, in table: Table) -> [String] {
    if let position = table.keyProperties.firstIndex(of: name) {
      return table.keyColumns(ofProperty: position).map(\.name)
    }
    return table.property(name)?.columns.map(\.name) ?? []
  }

  /// The column kind of a property's type.
  static func columnKind(_ type: TypeRef) -> ColumnKind {
    switch type.unwrapped {
    case .int: return .integer
    case .double: return .real
    case .bool: return .bool
    case .string, .url: return .text
    case .date: return .date
    default: return .json
    }
  }

  /// Checks that every table and column name is free.
  func check() throws(StrataError) {
    var tableNames = Set(["strata_meta", "records"])
    func claim(_ name: String, what: String) throws(StrataError) {
      guard tableNames.insert(name).inserted else {
        throw StrataError(
          code: .argument,
          message:
            "\(what) would be stored in the table '\(name)', a name another table of the graph file has")
      }
    }
    for table in tables {
      try claim(table.name, what: "the model '\(table.name)'")
      var columns = Set(Self.systemColumns)
      for column in table.keyColumns + table.properties.flatMap(\.columns) {
        guard columns.insert(column.name).inserted else {
          throw StrataError(
            code: .argument,
            message:
              "the records of '\(table.name)' would have two columns named '\(column.name)' (a property named like a key column or like one of \(Self.systemColumns.joined(separator: ", ")))"
          )
        }
      }
      for property in table.properties {
        if case .toMany(_, let name) = property.storage {
          try claim(name, what: "the relationship '\(table.name).\(property.name)'")
          try claim("\(name).target", what: "the index of '\(table.name).\(property.name)'")
        } else if case .toOne = property.storage {
          try claim("\(table.name).\(property.name)", what: "the index of '\(table.name).\(property.name)'")
        }
      }
      for position in table.indexes.indices {
        try claim("\(table.name).index.\(position)", what: "an index of '\(table.name)'")
      }
    }
  }
}
