import Strata

/// The SQL that writes each table's records, made once per table.
struct StoreStatements {
  /// The dialect of the SQL made.
  var dialect: SQLDialect = .sqlite
  /// The SQL of one link table.
  struct Link {
    /// Inserts 1, 2, 4, ... links (index n: 2^n rows), each owner key,
    /// position, target key (on SQLite `INSERT OR FAIL`: see `Table.inserts`).
    var inserts: [String]
    /// Deletes the links of one owner from a position on.
    var delete: String

    /// Inserts `rows` links (a power of two up to `inserts`' last).
    func insert(rows: Int) -> String { inserts[rows.trailingZeroBitCount] }
  }

  /// The SQL of one table.
  struct Table {
    /// Inserts or updates 1, 2, 4, ... rows of distinct keys (index n: 2^n
    /// rows; one `INSERT` of several rows: PostgreSQL runs it for much less
    /// than as many statements of one row): key, `strata_type`,
    /// `strata_stub`, `strata_extra`, property columns.
    var upserts: [String]
    /// Deletes the row of one key.
    var delete: String
    /// The link tables of the table's to-many properties, in order.
    var links: [Link]

    /// On SQLite: inserts 1, 2, 4, ... rows (index n: 2^n rows) of keys
    /// the file does not hold (records the write makes), columns as in
    /// `upserts`. `INSERT OR FAIL` of several rows without an upsert
    /// clause needs no statement journal: SQLite keeps one for a statement
    /// of several rows that may stop halfway (a constraint that aborts, or
    /// the update of an upsert), and writes every page the statement
    /// changes into it first (Benchmarks/README.md, "Rows of new records
    /// several to a statement"). A failing statement fails the write, whose
    /// transaction is rolled back. Empty on PostgreSQL, whose upserts are
    /// of several rows already.
    var inserts: [String] = []

    /// The texts that write rows of new keys (`inserting`) or any rows.
    func writes(inserting: Bool) -> [String] { inserting ? inserts : upserts }

    /// The most rows one of `writes(inserting:)` writes.
    func mostRows(inserting: Bool) -> Int { 1 << (writes(inserting: inserting).count - 1) }
  }

  /// `head`, then `row` 1, 2, 4, ... times (separated by commas) up to
  /// `most` rows, then `tail`: one text per count.
  static func rows(_ head: String, _ row: String, most: Int, _ tail: String) -> [String] {
    var texts: [String] = []
    var count = 1
    while count <= max(most, 1) {
      var sql = head
      for index in 0..<count {
        if index > 0 { sql += ", " }
        sql += row
      }
      texts.append(sql + tail)
      count *= 2
    }
    return texts
  }

  private var tables: [String: Table] = [:]
  private var plans: [String: RecordRows.Plan] = [:]

  /// Where the values of `type` go in `table`'s rows (`RecordRows.Plan`);
  /// nil when the table does not hold the model.
  mutating func plan(_ table: TableLayout.Table, type: ModelType, reading: Bool = false) -> RecordRows.Plan? {
    // the rows of one table come one after another: the last answer is
    // kept apart, as making and hashing the key below cost more than
    // reading a small row's cells (Benchmarks/README.md, "Rows handed to their records")
    let id = ObjectIdentifier(type)
    if let last = lastPlan, last.type == id, last.reading == reading, last.table == table.name {
      return last.plan
    }
    // the file's layout, which rows are read with, may be another than the one written
    let name = (reading ? "r\u{0}" : "w\u{0}") + table.name + "\u{0}" + type.name
    let made = plans[name] ?? RecordRows.Plan(table, type: type)
    plans[name] = made
    lastPlan = (reading, table.name, id, made)
    return made
  }

  /// The model a row read back names (its `strata_type` cell) and where its
  /// values are in `table`'s rows, or nil when the schema has no such model
  /// or the table does not hold it. The last answer is kept, as `plan`'s.
  mutating func readingPlan(_ table: TableLayout.Table, modelNamed name: String, in schema: Schema)
    -> (ModelType, RecordRows.Plan)?
  {
    if let last = lastModel, last.name == name, last.table == table.name,
      let plan = plan(table, type: last.type, reading: true)
    {
      return (last.type, plan)
    }
    guard case .success(let type) = schema.modelType(name), let plan = plan(table, type: type, reading: true)
    else { return nil }
    lastModel = (name, table.name, type)
    return (type, plan)
  }

  /// `plan`'s last answer, by what it was asked.
  private var lastPlan: (reading: Bool, table: String, type: ObjectIdentifier, plan: RecordRows.Plan?)? = nil
  /// `readingPlan`'s last model, by the name and table it was asked for.
  private var lastModel: (name: String, table: String, type: ModelType)? = nil

  /// The SQL of `table` of `layout`.
  mutating func sql(for table: TableLayout.Table, in layout: TableLayout) -> Table {
    if let made = tables[table.name] { return made }
    let keys = table.keyColumns.map(\.name)
    let others = TableLayout.systemColumns + table.properties.flatMap(\.columns).map(\.name)
    let all = keys + others
    let quotedTable = dialect.quoted(table.name)
    // several rows a statement without a statement journal (`Table.inserts`)
    let insertVerb = dialect == .sqlite ? "INSERT OR FAIL" : "INSERT"
    let upsertTail =
      " ON CONFLICT(\(dialect.list(keys))) DO UPDATE SET "
      + others.map { "\(dialect.quoted($0)) = excluded.\(dialect.quoted($0))" }.joined(separator: ", ")
    var links: [Link] = []
    for property in table.properties {
      guard case .toMany(_, let name) = property.storage else { continue }
      let columns = GraphStore.linkColumns(table, property, in: layout)
      let owners = columns.owner.map(\.name)
      let linkColumns = owners + ["position"] + columns.target.map(\.name)
      links.append(
        Link(
          inserts: Self.rows(
            "\(insertVerb) INTO \(dialect.quoted(name))(\(dialect.list(linkColumns))) VALUES ",
            "(\(SQLText.parameters(linkColumns.count)))",
            most: GraphStore.rowsPerStatement(dialect, parameters: linkColumns.count, most: 128), ""),
          delete:
            "DELETE FROM \(dialect.quoted(name)) WHERE \(dialect.equalAll(owners)) AND \"position\" >= ?"))
    }
    let values = "(\(SQLText.parameters(all.count)))"
    var made = Table(
      upserts: Self.rows(
        "INSERT INTO \(quotedTable)(\(dialect.list(all))) VALUES ", values,
        most: GraphStore.upsertsPerStatement(dialect, parameters: all.count), upsertTail),
      delete: "DELETE FROM \(quotedTable) WHERE \(dialect.equalAll(keys))", links: links)
    if dialect == .sqlite {
      made.inserts = Self.rows(
        "\(insertVerb) INTO \(quotedTable)(\(dialect.list(all))) VALUES ", values,
        most: GraphStore.rowsPerStatement(dialect, parameters: all.count), "")
    }
    tables[table.name] = made
    return made
  }

  /// The SQL that reads one table's records and their links.
  struct Reading {
    /// Selects key columns, system columns and property columns (`WHERE`
    /// the key columns equal the parameters, for one record).
    var rows: String
    /// For each to-many property (in order): its name and the SELECT of
    /// owner and target key columns, ordered by owner and position.
    var links: [(property: String, sql: String)]
    /// For each to-many property (in order, one record's readings only):
    /// the SELECT of the number of the owner's link rows (its last position + 1).
    var counts: [String] = []
    /// For each to-many property (in order): its link table's name and
    /// the key parts and number of key columns of its target's table (nil
    /// when the layout has no such table), so that reading a record's links
    /// looks up no table by name.
    var targets: [(link: String, parts: [TableLayout.KeyPart], columns: Int)?] = []
    /// For each property of the table (in order): the key parts of the
    /// table a to-one relationship refers to, else nil (`RecordRows.stored`
    /// reads its columns without looking the table up).
    var toOneParts: [[TableLayout.KeyPart]?] = []
  }

  private var readings: [String: Reading] = [:]

  /// `reading`'s last answer, by what it was asked (as `plan`'s).
  private var lastReading: (byKey: Bool, table: String, reading: Reading)? = nil

  /// Forgets the reading SQL (the file's layout changed).
  mutating func forgetReadings() {
    readings = [:]
    lastReading = nil
  }

  /// The SQL that reads `table` of `layout`: every record, or (`byKey`) one.
  mutating func reading(_ table: TableLayout.Table, in layout: TableLayout, byKey: Bool) -> Reading {
    if let last = lastReading, last.byKey == byKey, last.table == table.name { return last.reading }
    let name = (byKey ? "1:" : "*:") + table.name
    if let made = readings[name] {
      lastReading = (byKey, table.name, made)
      return made
    }
    var links: [(property: String, sql: String)] = []
    var counts: [String] = []
    var targets: [(link: String, parts: [TableLayout.KeyPart], columns: Int)?] = []
    for property in table.properties {
      guard case .toMany(let target, let link) = property.storage else { continue }
      targets.append(layout.table(target).map { (link, $0.keyParts, $0.keyColumns.count) })
      let columns = GraphStore.linkColumns(table, property, in: layout)
      let owners = columns.owner.map(\.name)
      var sql = "SELECT \(dialect.list(owners + columns.target.map(\.name))) FROM \(dialect.quoted(link))"
      if byKey { sql += " WHERE \(dialect.equalAll(owners))" }
      sql += " ORDER BY \(dialect.list(owners + ["position"]))"
      links.append((property.name, sql))
      if byKey {
        // positions run from 0 without gaps: the largest one is found in the key's index
        counts.append(
          "SELECT coalesce(max(position) + 1, 0) FROM \(dialect.quoted(link)) WHERE \(dialect.equalAll(owners))"
        )
      }
    }
    let keyNames = table.keyColumns.map(\.name)
    let columns = keyNames + TableLayout.systemColumns + table.properties.flatMap(\.columns).map(\.name)
    var rows = "SELECT \(dialect.list(columns)) FROM \(dialect.quoted(table.name))"
    if byKey { rows += " WHERE \(dialect.equalAll(keyNames))" }
    let toOneParts = table.properties.map { property -> [TableLayout.KeyPart]? in
      guard case .toOne(let target) = property.storage else { return nil }
      return layout.keyParts(of: target)
    }
    let made = Reading(rows: rows, links: links, counts: counts, targets: targets, toOneParts: toOneParts)
    readings[name] = made
    lastReading = (byKey, table.name, made)
    return made
  }
}
