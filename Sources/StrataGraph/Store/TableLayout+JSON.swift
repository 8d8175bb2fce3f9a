import Strata

/// The layout as JSON, as the file keeps it in `strata_meta` under `layout`.
extension TableLayout {
  /// The layout as a JSON value.
  package var json: JSON {
    .object(["tables": .array(tables.map(Self.json))])
  }

  /// Reads a layout the file kept; anything else is an `io` error (the file is damaged).
  package init(json: JSON) throws(StrataError) {
    guard case .array(let items)? = json["tables"] else { throw Self.damaged("no tables") }
    var tables: [Table] = []
    for item in items { tables.append(try Self.table(item)) }
    self.init(tables: tables)
  }

  private static func json(_ table: Table) -> JSON {
    .object([
      "name": .string(table.name),
      "key": .array(table.keyProperties.map(JSON.string)),
      "keyParts": .array(table.keyParts.map(json)),
      "keyColumns": .array(table.keyColumns.map(json)),
      "properties": .array(table.properties.map(json)),
      "indexes": .array(table.indexes.map { .array($0.map(JSON.string)) }),
      "models": .array(
        table.models.map { model in
          .object([
            "name": .string(model.name), "tagged": .bool(model.tagged),
            "properties": .array(model.properties.map(JSON.string)),
          ])
        }),
    ])
  }

  private static func json(_ part: KeyPart) -> JSON {
    switch part {
    case .value(let kind): return .string(kind.rawValue)
    case .key(let parts): return .array(parts.map(json))
    case .synthetic: return .string("synthetic")
    }
  }

  private static func json(_ column: Column) -> JSON {
    .array([.string(column.name), .string(column.kind.rawValue)])
  }

  private static func json(_ property: Property) -> JSON {
    var members: [(String, JSON)] = [("name", .string(property.name))]
    switch property.storage {
    case .column(let kind): members.append(("kind", .string(kind.rawValue)))
    case .toOne(let target): members.append(("toOne", .string(target)))
    case .toMany(let target, let table):
      members.append(("toMany", .string(target)))
      members.append(("table", .string(table)))
    }
    members.append(("columns", .array(property.columns.map(json))))
    return .object(JSONObject(members))
  }

  // MARK: reading

  private static func damaged(_ what: String) -> StrataError {
    StrataError(code: .io, message: "the graph file's table layout is damaged: \(what)")
  }

  private static func string(_ value: JSON?, _ what: String) throws(StrataError) -> String {
    guard case .string(let text)? = value else { throw damaged(what) }
    return text
  }

  private static func strings(_ value: JSON?, _ what: String) throws(StrataError) -> [String] {
    guard case .array(let items)? = value else { throw damaged(what) }
    var out: [String] = []
    for item in items { out.append(try string(item, what)) }
    return out
  }

  private static func kind(_ value: JSON?) throws(StrataError) -> ColumnKind {
    guard let kind = ColumnKind(rawValue: try string(value, "a column kind")) else {
      throw damaged("an unknown column kind")
    }
    return kind
  }

  private static func columns(_ value: JSON?) throws(StrataError) -> [Column] {
    guard case .array(let items)? = value else { throw damaged("no columns") }
    var out: [Column] = []
    for item in items {
      guard case .array(let pair) = item, pair.count == 2 else { throw damaged("a column") }
      out.append(Column(name: try string(pair[0], "a column name"), kind: try kind(pair[1])))
    }
    return out
  }

  private static func part(_ value: JSON, depth: Int = 0) throws(StrataError) -> KeyPart {
    switch value {
    case .string("synthetic"): return .synthetic
    case .string: return .value(try kind(value))
    case .array(let items) where depth < 16:
      var parts: [KeyPart] = []
      for item in items { parts.append(try part(item, depth: depth + 1)) }
      return .key(parts)
    default: throw damaged("a key part")
    }
  }

  private static func table(_ value: JSON) throws(StrataError) -> Table {
    guard case .array(let partItems)? = value["keyParts"],
      case .array(let propertyItems)? = value["properties"],
      case .array(let modelItems)? = value["models"]
    else { throw damaged("a table") }
    var parts: [KeyPart] = []
    for item in partItems { parts.append(try part(item)) }
    var properties: [Property] = []
    for item in propertyItems {
      let name = try string(item["name"], "a property name")
      let storage: Storage
      if let kindValue = item["kind"] {
        storage = .column(try kind(kindValue))
      } else if let target = item["toOne"] {
        storage = .toOne(target: try string(target, "a target"))
      } else {
        storage = .toMany(
          target: try string(item["toMany"], "a target"), table: try string(item["table"], "a link table"))
      }
      properties.append(Property(name: name, storage: storage, columns: try columns(item["columns"])))
    }
    var models: [Model] = []
    for item in modelItems {
      guard case .bool(let tagged)? = item["tagged"] else { throw damaged("a model") }
      models.append(
        Model(
          name: try string(item["name"], "a model name"), tagged: tagged,
          properties: try strings(item["properties"], "a model's properties")))
    }
    var indexes: [[String]] = []
    if case .array(let items)? = value["indexes"] {
      for item in items { indexes.append(try strings(item, "an index")) }
    }
    let table = Table(
      name: try string(value["name"], "a table name"), keyProperties: try strings(value["key"], "a key"),
      keyParts: parts, keyColumns: try columns(value["keyColumns"]), properties: properties, models: models,
      indexes: indexes)
    guard table.keyParts.reduce(0, { $0 + $1.width }) == table.keyColumns.count,
      table.propertyParts.count == table.keyProperties.count, !table.keyColumns.isEmpty,
      !table.propertyParts.contains(.synthetic)
    else { throw damaged("the key of '\(table.name)'") }
    return table
  }
}
