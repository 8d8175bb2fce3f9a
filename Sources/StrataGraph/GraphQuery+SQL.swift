import Strata

/// A query as SQL over the tables of the graph file (format 2): the keys of
/// the records it selects, in its order. Every value of the query is a
/// bound parameter; the SQL text holds only names from the layout (quoted)
/// and the query's structure, never text the query gave.
///
/// It gives the records that the same query run over the records in memory
/// (`QueryEvaluation`) gives, in the same order: a test holds when one of
/// the values a path reaches meets it (`EXISTS` over the joins a path
/// follows), an empty to-one reaches null, an empty to-many nothing, a list
/// each element (`json_each`); strings compare by bytes (SQLite's BINARY
/// collation), dates by their stored text (which sorts in time order,
/// `DateColumn`), nulls order first. Where the layout cannot say what memory
/// would (a property two models of a cluster store differently), `compile`
/// returns nil and the caller runs the query in memory.
struct QuerySQL {
  let schema: Schema
  let layout: TableLayout
  /// The database's dialect (docs/graph.md, "PostgreSQL").
  let dialect: SQLDialect
  /// The bound values, in the order of the `?` in the text.
  private(set) var parameters: [SQLCell] = []
  /// True to select the whole rows (key, system and property columns, in
  /// the table's order) instead of the key columns alone.
  var selectsRows = false
  private var aliases = 0

  init(schema: Schema, layout: TableLayout, dialect: SQLDialect = .sqlite) {
    self.schema = schema
    self.layout = layout
    self.dialect = dialect
  }

  /// The SELECT of the keys of the records `query` selects (or of their
  /// whole rows, `selectsRows`), in order; nil when it must run in memory.
  mutating func compile(_ query: GraphQuery) -> String? {
    guard query.type.keyRoot < schema.models.count,
      let table = layout.table(schema.models[query.type.keyRoot].name)
    else { return nil }
    let root = "r"
    var conditions: [String] = []
    let models = schema.recordModelNames(query.type)
    if models.count != table.models.count {
      conditions.append("\(column(root, "strata_type")) IN (\(textList(models)))")
    }
    if !query.stubs { conditions.append("\(column(root, "strata_stub")) = 0") }
    if let condition = query.condition {
      guard let made = test(condition, from: root, table) else { return nil }
      conditions.append(made)
    }
    var joins = ""
    var order: [String] = []
    for key in query.order {
      guard let reached = reach(key.path, from: root, table, joining: true) else { return nil }
      joins += reached.from
      // nulls first, as SQLite orders them (PostgreSQL's default is the other way)
      let nulls = dialect == .postgres ? (key.descending ? " NULLS LAST" : " NULLS FIRST") : ""
      order += reached.values.map { "\($0) \(key.descending ? "DESC" : "ASC")\(nulls)" }
    }
    order += table.keyColumns.map { "\(column(root, $0.name)) ASC" }
    var selected = table.keyColumns.map(\.name)
    if selectsRows { selected += TableLayout.systemColumns + table.properties.flatMap(\.columns).map(\.name) }
    var sql = "SELECT \(selected.map { column(root, $0) }.joined(separator: ", ")) "
    sql += "FROM \(dialect.quoted(table.name)) AS \(root)\(joins)"
    if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
    sql += " ORDER BY " + order.joined(separator: ", ")
    sql += " LIMIT ? OFFSET ?"
    // no limit: SQLite's is -1, PostgreSQL's NULL
    parameters.append(query.limit.map { .integer(Int64($0)) } ?? (dialect == .sqlite ? .integer(-1) : .null))
    parameters.append(.integer(Int64(query.offset)))
    return sql
  }

  // MARK: conditions

  /// A condition as an SQL expression. Under a `not` (`negated`) it is 0
  /// or 1, never NULL (NOT NULL is NULL, where memory's `not` of a test
  /// that fails is true); elsewhere NULL may stand for 0 (WHERE, AND and OR
  /// treat them alike), so a test of the row's own column stays a plain
  /// comparison that an index serves.
  private mutating func test(
    _ condition: QueryCondition, from root: String, _ table: TableLayout.Table, negated: Bool = false
  ) -> String? {
    switch condition {
    case .all(let parts), .any(let parts):
      let isAll: Bool
      if case .all = condition { isAll = true } else { isAll = false }
      var made: [String] = []
      for part in parts {
        guard let one = test(part, from: root, table, negated: negated) else { return nil }
        made.append(one)
      }
      if made.isEmpty { return isAll ? "TRUE" : "FALSE" }
      return "(" + made.joined(separator: isAll ? " AND " : " OR ") + ")"
    case .not(let part):
      return test(part, from: root, table, negated: true).map { "NOT \($0)" }
    case .test(let path, let test):
      guard let reached = reach(path, from: root, table, joining: false),
        let holds = self.test(test, reached.values, kind: path.kind)
      else { return nil }
      if reached.from.isEmpty && reached.conditions.isEmpty {
        // one value, in the row itself
        return negated ? "((\(holds)) IS TRUE)" : "(\(holds))"
      }
      var sql = "EXISTS (SELECT 1 FROM (SELECT 1) AS s\(aliases)\(reached.from)"
      let wheres = reached.conditions + ["(\(holds)) IS TRUE"]
      sql += " WHERE " + wheres.joined(separator: " AND ") + ")"
      aliases += 1
      return sql
    }
  }

  /// One test of a value (its columns: several for a key) as SQL.
  private mutating func test(_ test: QueryTest, _ values: [String], kind: QueryKind) -> String? {
    guard let first = values.first else { return nil }
    switch test {
    case .null(let wanted): return "\(first) IS \(wanted ? "" : "NOT ")NULL"
    case .equal(let value):
      if value.isNull { return "\(first) IS NULL" }
      return equal(values, value, kind: kind)
    case .notEqual(let value):
      if value.isNull { return "FALSE" }
      return equal(values, value, kind: kind).map { "\(first) IS NOT NULL AND NOT (\($0))" }
    case .less(let value): return compare(values, "<", value, kind: kind)
    case .lessOrEqual(let value): return compare(values, "<=", value, kind: kind)
    case .greater(let value): return compare(values, ">", value, kind: kind)
    case .greaterOrEqual(let value): return compare(values, ">=", value, kind: kind)
    case .oneOf(let options):
      var made: [String] = []
      for option in options {
        if option.isNull {
          made.append("\(first) IS NULL")
        } else {
          guard let one = equal(values, option, kind: kind) else { return nil }
          made.append(one)
        }
      }
      return made.isEmpty ? "FALSE" : "(" + made.joined(separator: " OR ") + ")"
    case .prefix(let text):
      parameters.append(.text(text))
      // PostgreSQL's columns hold text only where they are text
      if dialect == .postgres { return "strpos(\(first), ?) = 1" }
      return "typeof(\(first)) = 'text' AND instr(\(first), ?) = 1"
    case .contains(let text):
      parameters.append(.text(text))
      if dialect == .postgres { return "strpos(\(first), ?) > 0" }
      return "typeof(\(first)) = 'text' AND instr(\(first), ?) > 0"
    }
  }

  /// The columns equal `value`'s cells.
  private mutating func equal(_ values: [String], _ value: QueryValue, kind: QueryKind) -> String? {
    guard let cells = cells(value, kind: kind), cells.count == values.count else { return nil }
    parameters += cells
    return values.map { "\($0) = ?" }.joined(separator: " AND ")
  }

  /// The columns compared with `value`'s cells (row values for a key).
  private mutating func compare(_ values: [String], _ operation: String, _ value: QueryValue, kind: QueryKind)
    -> String?
  {
    if value.isNull { return "FALSE" }
    guard let cells = cells(value, kind: kind), cells.count == values.count else { return nil }
    parameters += cells
    if values.count == 1 { return "\(values[0]) \(operation) ?" }
    return "(\(values.joined(separator: ", "))) \(operation) (\(SQLText.parameters(values.count)))"
  }

  /// The cells a query value is stored as.
  private func cells(_ value: QueryValue, kind: QueryKind) -> [SQLCell]? {
    switch value {
    case .null: return [.null]
    case .bool(let flag): return [.integer(flag ? 1 : 0)]
    case .int(let number): return [.integer(number)]
    case .real(let number): return [.real(number)]
    case .string(let text): return [.text(text)]
    case .date(let date): return DateColumn.stored(RFC3339Formatter.format(date)).map { [.text($0)] }
    case .key(let key):
      guard case .relationship(let target) = kind, target < schema.models.count,
        let table = layout.table(schema.models[schema.models[target].keyRoot].name)
      else { return nil }
      return RecordRows.cells(key, parts: table.keyParts)
    case .other: return nil
    }
  }

  // MARK: paths

  /// What a path reaches from the row `root` of `table`: the joins (`from`,
  /// LEFT JOINs to append), the conditions that keep exactly the rows of
  /// the reached values (`conditions`; with `joining`, none are allowed:
  /// the path must reach one value per row), and the SQL of the value's
  /// columns.
  private mutating func reach(
    _ path: QueryPath, from root: String, _ table: TableLayout.Table, joining: Bool
  ) -> (from: String, conditions: [String], values: [String])? {
    var from = ""
    var conditions: [String] = []
    var alias = root
    var current = table
    for hop in path.hops {
      guard let stored = storage(hop, in: current) else { return nil }
      switch stored {
      case .toOne(let target, let columns):
        guard let targetTable = layout.table(target) else { return nil }
        let next = newAlias()
        from += " LEFT JOIN \(dialect.quoted(targetTable.name)) AS \(next) ON "
        from += zip(targetTable.keyColumns, columns).map { key, own in
          "\(column(next, key.name)) = \(column(alias, own))"
        }.joined(separator: " AND ")
        alias = next
        current = targetTable
      case .toMany(let target, let link, let owners):
        guard !joining, let targetTable = layout.table(target) else { return nil }
        let linkAlias = newAlias()
        let next = newAlias()
        let columns = linkColumnNames(current, targetTable)
        from += " LEFT JOIN \(dialect.quoted(link)) AS \(linkAlias) ON "
        from += zip(columns.owner, current.keyColumns).map { owner, key in
          "\(column(linkAlias, owner)) = \(column(alias, key.name))"
        }.joined(separator: " AND ")
        from += " LEFT JOIN \(dialect.quoted(targetTable.name)) AS \(next) ON "
        from += zip(targetTable.keyColumns, columns.target).map { key, target in
          "\(column(next, key.name)) = \(column(linkAlias, target))"
        }.joined(separator: " AND ")
        // a missing record or property reaches null; an empty list nothing
        conditions.append(
          "(\(column(alias, current.keyColumns[0].name)) IS NULL OR \(column(alias, "strata_type")) NOT IN (\(textList(owners))) OR \(column(linkAlias, columns.owner[0])) IS NOT NULL)"
        )
        alias = next
        current = targetTable
      case .key, .value, .list:
        return nil
      }
    }
    guard let stored = storage(path.property, in: current) else { return nil }
    switch stored {
    case .key(let columns):
      return (from, conditions, columns.map { column(alias, $0) })
    case .value(let name, let isKey):
      let value = column(alias, name)
      guard isKey else { return (from, conditions, [value]) }
      // a key Strata made (the property is absent): a blob on SQLite, a
      // number in strata_synthetic on PostgreSQL
      if current.hasSyntheticColumn {
        let synthetic = column(alias, TableLayout.syntheticColumn)
        return (from, conditions, ["CASE WHEN \(synthetic) = 0 THEN \(value) END"])
      }
      guard dialect == .sqlite else { return (from, conditions, [value]) }
      return (from, conditions, ["CASE WHEN typeof(\(value)) = 'blob' THEN NULL ELSE \(value) END"])
    case .toOne(_, let columns):
      return (from, conditions, columns.map { column(alias, $0) })
    case .toMany(let target, let link, let owners):
      guard !joining, let targetTable = layout.table(target) else { return nil }
      let linkAlias = newAlias()
      let columns = linkColumnNames(current, targetTable)
      from += " LEFT JOIN \(dialect.quoted(link)) AS \(linkAlias) ON "
      from += zip(columns.owner, current.keyColumns).map { owner, key in
        "\(column(linkAlias, owner)) = \(column(alias, key.name))"
      }.joined(separator: " AND ")
      // a null or absent list reaches null, an empty one nothing (the
      // parameters are bound in the order of the text: owners first)
      let extra = column(alias, "strata_extra")
      let ownerList = textList(owners)
      parameters.append(.text(path.property))
      let nullList: String
      if dialect == .postgres {
        parameters.append(.text(path.property))
        let json = "CAST(\(extra) AS jsonb)"
        nullList =
          "(\(extra) IS NOT NULL AND (COALESCE(\(json) -> 'absent', '[]') @> jsonb_build_array(CAST(? AS TEXT)) OR jsonb_typeof(\(json) -> 'values' -> CAST(? AS TEXT)) = 'null'))"
      } else {
        parameters.append(.text("$.values.\"\(path.property)\""))
        nullList =
          "(\(extra) IS NOT NULL AND (EXISTS (SELECT 1 FROM json_each(\(extra), '$.absent') WHERE value = ?) OR json_type(\(extra), ?) = 'null'))"
      }
      conditions.append(
        "(\(column(alias, current.keyColumns[0].name)) IS NULL OR \(column(alias, "strata_type")) NOT IN (\(ownerList)) OR \(column(linkAlias, columns.owner[0])) IS NOT NULL OR \(nullList))"
      )
      return (from, conditions, columns.target.map { column(linkAlias, $0) })
    case .list(let name, let isDate):
      guard !joining else { return nil }
      let value = column(alias, name)
      let each = "e\(aliases)_\(newAlias())"
      if dialect == .postgres {
        return postgresList(value, each, isDate: isDate, kind: path.kind, from, conditions)
      }
      from += " LEFT JOIN json_each(CASE WHEN json_type(\(value)) = 'array' THEN \(value) END) AS \(each)"
      conditions.append("(json_type(\(value)) IS NOT 'array' OR \(each).key IS NOT NULL)")
      var element = "\(each).value"
      if isDate {
        element = Self.storedDate(element, isText: "typeof(\(element)) = 'text'")
      }
      return (
        from, conditions, ["CASE WHEN json_type(\(value)) = 'array' THEN \(element) ELSE \(value) END"]
      )
    }
  }

  /// A date of a JSON list (RFC 3339 text in UTC, with or without a
  /// fraction) as `DateColumn` stores dates: nine fraction digits, so that
  /// text order is time order.
  static func storedDate(_ element: String, isText: String) -> String {
    "CASE WHEN \(isText) AND length(\(element)) = 20 THEN substr(\(element), 1, 19) || '.000000000Z' WHEN \(isText) AND length(\(element)) BETWEEN 22 AND 30 THEN substr(\(element), 1, length(\(element)) - 1) || substr('000000000', 1, 30 - length(\(element))) || 'Z' ELSE \(element) END"
  }

  /// A leaf that may be a JSON list, on PostgreSQL: each element of a list
  /// (`jsonb_array_elements`), as SQL values of the property's kind (text
  /// for strings and dates, numbers and bools as numbers), or the value
  /// itself when it is not a list.
  private func postgresList(
    _ value: String, _ each: String, isDate: Bool, kind: QueryKind, _ from: String, _ conditions: [String]
  ) -> (from: String, conditions: [String], values: [String]) {
    let json = "CAST(\(value) AS jsonb)"
    let from =
      from
      + " LEFT JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(\(json)) = 'array' THEN \(json) END) AS \(each)(value) ON TRUE"
    let conditions =
      conditions + ["(jsonb_typeof(\(json)) IS DISTINCT FROM 'array' OR \(each).value IS NOT NULL)"]
    func typed(_ element: String) -> String {
      switch kind {
      case .scalar(text: false):
        return
          "CASE jsonb_typeof(\(element)) WHEN 'number' THEN CAST(\(element) #>> '{}' AS NUMERIC) WHEN 'boolean' THEN CASE WHEN \(element) = 'true' THEN 1 ELSE 0 END END"
      default:
        let text = "CASE WHEN jsonb_typeof(\(element)) = 'string' THEN \(element) #>> '{}' END"
        return isDate ? Self.storedDate(text, isText: "\(text) IS NOT NULL") : text
      }
    }
    if case .opaque = kind {
      // only null tests apply: an element as JSON text, a value that is no list as it is
      let element = "\(each).value"
      return (
        from, conditions,
        [
          "CASE WHEN jsonb_typeof(\(json)) = 'array' THEN CASE WHEN jsonb_typeof(\(element)) = 'null' THEN NULL ELSE CAST(\(element) AS TEXT) END ELSE \(value) END"
        ]
      )
    }
    return (
      from, conditions,
      ["CASE WHEN jsonb_typeof(\(json)) = 'array' THEN \(typed("\(each).value")) ELSE \(typed(json)) END"]
    )
  }

  /// How a table stores a property, as queries read it.
  private enum Stored {
    /// A key attribute or a plain column (`isKey`: a key column, which holds
    /// a blob for a record Strata made a key for: the property is absent).
    case value(String, isKey: Bool)
    /// A relationship in the key: the key columns of its part.
    case key([String])
    /// A to-one relationship: its foreign-key columns.
    case toOne(target: String, columns: [String])
    /// A to-many relationship: its link table; `owners` the models that have it.
    case toMany(target: String, link: String, owners: [String])
    /// A leaf whose value may be a JSON list (each element is a value).
    case list(String, isDate: Bool)
  }

  /// How `table` stores `name`; nil when its models do not all store it
  /// alike (the caller runs the query in memory).
  private func storage(_ name: String, in table: TableLayout.Table) -> Stored? {
    var specs: [PropertySpec] = []
    var owners: [String] = []
    for model in table.models {
      guard case .success(let type) = schema.modelType(model.name), let index = type.propertyIndex[name],
        index < type.properties.count
      else { continue }
      specs.append(type.properties[index])
      owners.append(model.name)
    }
    guard let spec = specs.first else { return nil }
    for other in specs.dropFirst() {
      guard other.type.name(models: schema.modelNames) == spec.type.name(models: schema.modelNames) else {
        return nil
      }
    }
    if let position = table.keyProperties.firstIndex(of: name) {
      let columns = table.keyColumns(ofProperty: position).map(\.name)
      if case .key = table.propertyParts[table.propertyParts.startIndex + position] { return .key(columns) }
      return .value(columns[0], isKey: true)
    }
    guard let property = table.property(name) else { return nil }
    switch property.storage {
    case .toOne(let target): return .toOne(target: target, columns: property.columns.map(\.name))
    case .toMany(let target, let link): return .toMany(target: target, link: link, owners: owners)
    case .column(let kind):
      let type = spec.type.unwrapped
      if kind == .json && type.isLeafy {
        var element = type
        if case .array(let inner) = type { element = inner.unwrapped }
        if case .date = element { return .list(property.columns[0].name, isDate: true) }
        return .list(property.columns[0].name, isDate: false)
      }
      return .value(property.columns[0].name, isKey: false)
    }
  }

  /// The owner and target column names of the link table from `owner` to `target`.
  private func linkColumnNames(_ owner: TableLayout.Table, _ target: TableLayout.Table) -> (
    owner: [String], target: [String]
  ) {
    (
      TableLayout.renamed(owner.keyColumns, as: "owner").map(\.name),
      TableLayout.renamed(target.keyColumns, as: "target").map(\.name)
    )
  }

  private mutating func newAlias() -> String {
    aliases += 1
    return "a\(aliases)"
  }

  /// `alias."name"`.
  private func column(_ alias: String, _ name: String) -> String { "\(alias).\(dialect.quoted(name))" }

  /// Model names as bound text parameters: `?, ?`.
  private mutating func textList(_ names: [String]) -> String {
    parameters += names.map(SQLCell.text)
    return SQLText.parameters(names.count)
  }
}
