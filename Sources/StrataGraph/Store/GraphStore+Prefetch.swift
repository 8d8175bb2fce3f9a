import Strata

/// Reading many records by key at once: the records an import is about to
/// touch, read before it in a few statements per table instead of a few
/// per record (on PostgreSQL each statement is a round trip to the server).
extension GraphStore {
  /// What `prefetch` read: the records found, each with its values
  /// (owned: the caller releases them) and the lengths of the lists left
  /// unread; and the keys the table does not hold.
  struct Prefetched {
    var found: [(key: RecordKey, stored: RecordRows.Stored, unread: [String: Int])] = []
    var absent: [RecordKey] = []
  }

  /// The most keys one statement asks for.
  static let prefetchChunk = 256

  /// Reads the records of `table` under `keys` (distinct) as a lazy read by
  /// key reads each (`stored(model:key:schema:listsUpTo:)`): a to-many list
  /// longer than `limit` is left unread, its length given instead. Keys of
  /// another shape than the table's are left out of both lists.
  func prefetch(_ table: TableLayout.Table, keys: [RecordKey], schema: Schema, listsUpTo limit: Int)
    throws(StrataError) -> Prefetched
  {
    var made = Prefetched()
    guard let layout = readLayout else { return made }
    var done = false
    defer { if !done { for entry in made.found { entry.stored.release() } } }
    var all: [(key: RecordKey, cells: [SQLCell])] = []
    for key in keys {
      // only keys that read back as themselves: a row found is then known
      // by the key asked for, and a key not found is surely absent
      guard let cells = RecordRows.cells(key, parts: table.keyParts),
        RecordRows.key(cells[...], parts: table.keyParts) == key
      else { continue }
      all.append((key, cells))
    }
    var start = 0
    while start < all.count {
      let chunk = all[start..<min(start + Self.prefetchChunk, all.count)]
      start = chunk.endIndex
      try prefetchChunk(table, chunk, in: layout, schema: schema, listsUpTo: limit, into: &made)
    }
    done = true
    return made
  }

  private func prefetchChunk(
    _ table: TableLayout.Table, _ chunk: ArraySlice<(key: RecordKey, cells: [SQLCell])>,
    in layout: TableLayout,
    schema: Schema, listsUpTo limit: Int, into made: inout Prefetched
  ) throws(StrataError) {
    let width = table.keyColumns.count
    let parameters = chunk.flatMap(\.cells)
    // the links of the chunk's owners, their first limit + 1 (positions run from 0 without gaps)
    var links: [String: [RecordKey: [RecordKey]]] = [:]
    // per link table with long lists: the property, the table, its owner columns, the long owners' keys and cells
    var long: [(name: String, link: String, owners: [TableLayout.Column], keys: [(RecordKey, [SQLCell])])] =
      []
    for property in table.properties {
      guard case .toMany(let target, let link) = property.storage, let targetTable = layout.table(target)
      else {
        continue
      }
      let columns = Self.linkColumns(table, property, in: layout)
      let owners = columns.owner.map(\.name)
      let sql =
        "SELECT \(dialect.list(owners + columns.target.map(\.name)) + ", \"position\"") FROM \(dialect.quoted(link)) "
        + "WHERE \(membership(columns.owner, count: chunk.count)) AND \"position\" <= ? "
        + "ORDER BY \(dialect.list(owners + ["position"]))"
      let total = Int32(owners.count + columns.target.count)
      var byOwner: [RecordKey: [RecordKey]] = [:]
      var longOwners: [(RecordKey, [SQLCell])] = []
      try connection.withStatement(sql) { (statement) throws(StrataError) in
        try statement.bind(1, cells: parameters + [.integer(Int64(limit))])
        while try statement.step() {
          let cells = (0..<total).map(statement.cell)
          guard let owner = RecordRows.key(cells[0..<owners.count], parts: table.keyParts),
            let targetKey = RecordRows.key(cells[owners.count...], parts: targetTable.keyParts)
          else { throw RecordRows.damaged("a row of '\(link)' does not hold keys") }
          if statement.int64(total) >= Int64(limit) {
            longOwners.append((owner, Array(cells[0..<owners.count])))
          } else {
            byOwner[owner, default: []].append(targetKey)
          }
        }
      }
      for (owner, _) in longOwners { byOwner[owner] = nil }
      links[property.name] = byOwner
      if !longOwners.isEmpty { long.append((property.name, link, columns.owner, longOwners)) }
    }
    // the lengths of the long lists, left unread
    var unread: [RecordKey: [String: Int]] = [:]
    for (name, link, ownerColumns, owners) in long {
      let ownerNames = ownerColumns.map(\.name)
      let sql =
        "SELECT \(dialect.list(ownerNames)), max(\"position\") + 1 FROM \(dialect.quoted(link)) "
        + "WHERE \(membership(ownerColumns, count: owners.count)) GROUP BY \(dialect.list(ownerNames))"
      try connection.withStatement(sql) { (statement) throws(StrataError) in
        try statement.bind(1, cells: owners.flatMap(\.1))
        while try statement.step() {
          let cells = (0..<Int32(ownerNames.count)).map(statement.cell)
          guard let owner = RecordRows.key(cells[...], parts: table.keyParts) else { continue }
          unread[owner, default: [:]][name] = Int(
            truncatingIfNeeded: statement.int64(Int32(ownerNames.count)))
        }
      }
    }
    // the rows
    // every row of the table (key, system and property columns), of the chunk's keys
    let sql =
      statements.reading(table, in: layout, byKey: false).rows
      + " WHERE \(membership(table.keyColumns, count: chunk.count))"
    var seen = Set<RecordKey>()
    try connection.withStatement(sql) { (statement) throws(StrataError) in
      try statement.bind(1, cells: parameters)
      let count = Int32(
        width + TableLayout.systemColumns.count + table.properties.reduce(0) { $0 + $1.columns.count })
      while try statement.step() {
        let cells = (0..<count).map(statement.cell)
        guard let key = RecordRows.key(cells[0..<width], parts: table.keyParts) else {
          throw RecordRows.damaged("a row of '\(table.name)' does not hold a key")
        }
        var own: LinkLists = [:]
        for (name, byOwner) in links { own[name] = byOwner[key] }
        let stored = try RecordRows.stored(
          table, in: layout, plan: { statements.readingPlan(table, modelNamed: $0, in: schema) },
          key: key, cells: cells, links: own)
        if seen.insert(key).inserted {
          made.found.append((key, stored, unread[key] ?? [:]))
        } else {
          stored.release()
        }
      }
    }
    for entry in chunk where !seen.contains(entry.key) { made.absent.append(entry.key) }
  }

  /// `"a" IN (?, ?)` for one column, `("a", "b") IN (VALUES (?, ?), (?, ?))`
  /// for several (on PostgreSQL each value cast to its column's type: a
  /// VALUES list's text parameters have no other).
  private func membership(_ columns: [TableLayout.Column], count: Int) -> String {
    let names = columns.map(\.name)
    if names.count == 1 { return "\(dialect.quoted(names[0])) IN (\(SQLText.parameters(count)))" }
    let row: String
    if dialect == .postgres {
      row = "(" + columns.map { "CAST(? AS \(Self.castType($0.kind)))" }.joined(separator: ", ") + ")"
    } else {
      row = "(" + SQLText.parameters(names.count) + ")"
    }
    return
      "(\(dialect.list(names))) IN (VALUES \(Array(repeating: row, count: count).joined(separator: ", ")))"
  }

  /// PostgreSQL's type for a parameter compared with a column of `kind`.
  private static func castType(_ kind: TableLayout.ColumnKind) -> String {
    switch kind {
    case .integer: return "BIGINT"
    case .bool: return "SMALLINT"
    case .real: return "DOUBLE PRECISION"
    case .text, .date, .json: return "TEXT"
    }
  }
}
