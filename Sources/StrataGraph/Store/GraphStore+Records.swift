import CSQLite
import Strata

/// Reading records: by key, by model in key order, the rows a query
/// selects (format 2; a file of format 1 is read by GraphStore+Format1).
/// Writing is GraphStore+Writing.
extension GraphStore {
  /// The layout the file is read with, or nil for format 1.
  var readLayout: TableLayout? { fileFormat < Self.format ? nil : fileLayout }

  /// True when records are read from tables (format 2: `stored`), false
  /// for a file of format 1 (`get`).
  var readsRows: Bool { readLayout != nil }

  /// The body of the record of `model` under `key` (borrowed), as a new
  /// reference; nil when there is none.
  package func get(model: String, key: JPtr) throws(StrataError) -> JPtr? {
    try get(model: model, key: key, listsUpTo: nil)?.body
  }

  /// The body of the record of `model` under `key` (borrowed), as a new
  /// reference, or nil when there is none. With `listsUpTo`, a to-many
  /// list longer than that is not read: the body holds an empty list for
  /// it, and `unread` its length by property name (format 1 files are
  /// read whole).
  package func get(model: String, key: JPtr, listsUpTo limit: Int?) throws(StrataError) -> (
    body: JPtr, unread: [String: Int]
  )? {
    guard let layout = readLayout else {
      return try format1Get(model: model, key: key).map { ($0, [:]) }
    }
    guard let table = layout.table(model), let recordKey = RecordKey(json: key),
      let cells = RecordRows.cells(recordKey, parts: table.keyParts)
    else { return nil }
    var found: (JPtr, [String: Int])? = nil
    try readRows(table, in: layout, where: cells, listsUpTo: limit) { (_, body, unread) throws(StrataError) in
      found = (JValue.retain(body), unread)
    }
    return found
  }

  /// The record of `model` under `key` (borrowed) as its values by
  /// property index (`RecordRows.Stored`, owned: the caller releases it),
  /// or nil when there is none; `listsUpTo` as for `get`. Nil as well for
  /// a file of format 1, whose records are read by `get`.
  func stored(model: String, key: JPtr, schema: Schema, listsUpTo limit: Int?) throws(StrataError) -> (
    stored: RecordRows.Stored, unread: [String: Int]
  )? {
    guard let layout = readLayout, let table = layout.table(model), let recordKey = RecordKey(json: key),
      let cells = RecordRows.cells(recordKey, parts: table.keyParts)
    else { return nil }
    // the row read where it is (no array of cells), its links first
    let reading = statements.reading(table, in: layout, byKey: true)
    let (own, unread) = try readLinks(of: cells, table, in: layout, reading: reading, listsUpTo: limit)
    return try connection.withStatement(reading.rows) {
      (statement) throws(StrataError) -> (RecordRows.Stored, [String: Int])? in
      try statement.bind(1, cells: cells)
      guard try statement.step() else { return nil }
      return (
        try RecordRows.stored(
          table, in: layout, plan: { statements.readingPlan(table, modelNamed: $0, in: schema) },
          key: recordKey, statement: statement, links: own, toOneParts: reading.toOneParts), unread
      )
    }
  }

  /// The targets of the to-many `property` of the record of `model` under
  /// `key`, in order (the list's link rows).
  func linkTargets(model: String, key: JPtr, property: String) throws(StrataError) -> [RecordKey] {
    guard let layout = readLayout, let table = layout.table(model), let stored = table.property(property),
      case .toMany(let target, let name) = stored.storage, let targetTable = layout.table(target),
      let recordKey = RecordKey(json: key), let cells = RecordRows.cells(recordKey, parts: table.keyParts),
      let sql = statements.reading(table, in: layout, byKey: true).links.first(where: {
        $0.property == property
      })?
      .sql
    else { return [] }
    let width = Int32(table.keyColumns.count)
    let total = width + Int32(targetTable.keyColumns.count)
    var targets: [RecordKey] = []
    try connection.withStatement(sql) { (statement) throws(StrataError) in
      try statement.bind(1, cells: cells)
      while try statement.step() {
        let cells = (width..<total).map(statement.cell)
        guard let targetKey = RecordRows.key(cells[...], parts: targetTable.keyParts) else {
          throw RecordRows.damaged("a row of '\(name)' does not hold keys")
        }
        targets.append(targetKey)
      }
    }
    return targets
  }

  /// The number of records of `model`.
  package func count(model: String) throws(StrataError) -> Int {
    guard let layout = readLayout else { return try format1Count(model: model) }
    guard layout.table(model) != nil else { return 0 }
    return try connection.withStatement("SELECT count(*) FROM \(dialect.quoted(model))") {
      (statement) throws(StrataError) -> Int in
      try statement.step() ? Int(truncatingIfNeeded: statement.int64(0)) : 0
    }
  }

  /// Calls `body` with the key and body of every record of `model`, in key
  /// order (`RecordKey`'s). The values are borrowed for the call. Calling
  /// other reads of the store from `body` is allowed; writing is not.
  package func forEach(
    model: String, _ body: (_ key: JPtr, _ body: JPtr) throws(StrataError) -> Void
  ) throws(StrataError) {
    for record in try loadAll(model: model) { try body(record.key, record.body) }
  }

  /// Every record of `model`, in key order (`RecordKey`'s).
  package func loadAll(model: String) throws(StrataError) -> [StoredRecord] {
    guard let layout = readLayout else { return try format1LoadAll(model: model) }
    guard let table = layout.table(model) else { return [] }
    var records: [(RecordKey, StoredRecord)] = []
    try readRows(table, in: layout, where: nil) { (key, body, _) throws(StrataError) in
      guard let keyJSON = key.makeJSON() else { throw StrataError(code: .oom, message: "out of memory") }
      let text: String
      do throws(StrataError) { text = try CanonicalJSON.text(keyJSON, what: "a key") } catch {
        JValue.release(keyJSON)
        throw error
      }
      records.append((key, StoredRecord(keyText: text, key: keyJSON, body: JValue.retain(body))))
    }
    return records.sorted { $0.0 < $1.0 }.map(\.1)
  }

  /// Every record of every model, by model name (names in byte order,
  /// records in key order), read in one read transaction: one snapshot of
  /// the file, even while another connection commits.
  package func loadEverything() throws(StrataError) -> [(model: String, records: [StoredRecord])] {
    try connection.readTransaction { () throws(StrataError) -> [(model: String, records: [StoredRecord])] in
      var everything: [(model: String, records: [StoredRecord])] = []
      for name in try models() { everything.append((name, try loadAll(model: name))) }
      return everything
    }
  }

  /// The names of the models that have records, in byte order.
  package func models() throws(StrataError) -> [String] {
    guard let layout = readLayout else { return try format1Models() }
    var names: [String] = []
    for table in layout.tables {
      let any = try connection.withStatement("SELECT 1 FROM \(dialect.quoted(table.name)) LIMIT 1") {
        (statement) throws(StrataError) -> Bool in try statement.step()
      }
      if any { names.append(table.name) }
    }
    return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  /// Reads the rows of `table` (all, or the one whose key cells are `key`)
  /// with their links, and calls `body` with each record's key and body
  /// (borrowed for the call), and the lengths of the lists it left unread:
  /// with `listsUpTo` (one record only), a list longer than that is not
  /// read (its body holds an empty list).
  private func readRows(
    _ table: TableLayout.Table, in layout: TableLayout, where key: [SQLCell]?, listsUpTo limit: Int? = nil,
    _ body: (RecordKey, JPtr, [String: Int]) throws(StrataError) -> Void
  ) throws(StrataError) {
    try readCells(table, in: layout, where: key, listsUpTo: limit) {
      (recordKey, cells, links, unread) throws(StrataError) in
      let made = try RecordRows.body(table, in: layout, key: recordKey, cells: cells, links: links)
      defer { JValue.release(made) }
      try body(recordKey, made, unread)
    }
  }

  /// Calls `body` with the key, cells and to-many targets (by property
  /// name) of every row of `table` (or of the row of `key`), in key
  /// order, and the lengths of the lists left unread (see `readRows`).
  private func readCells(
    _ table: TableLayout.Table, in layout: TableLayout, where key: [SQLCell]?, listsUpTo limit: Int? = nil,
    _ body: (RecordKey, [SQLCell], LinkLists, [String: Int]) throws(StrataError) -> Void
  ) throws(StrataError) {
    let reading = statements.reading(table, in: layout, byKey: key != nil)
    let (links, unread) = try readLinks(table, in: layout, reading: reading, where: key, listsUpTo: limit)
    let keyNames = table.keyColumns
    let columns =
      table.keyColumns.count + TableLayout.systemColumns.count
      + table.properties.reduce(0) { $0 + $1.columns.count }
    let sql = reading.rows
    try connection.withStatement(sql) { (statement) throws(StrataError) in
      if let key { try statement.bind(1, cells: key) }
      let count = Int32(columns)
      while try statement.step() {
        let cells = (0..<count).map(statement.cell)
        guard let recordKey = RecordRows.key(cells[0..<keyNames.count], parts: table.keyParts) else {
          throw RecordRows.damaged("a row of '\(table.name)' does not hold a key")
        }
        var own: LinkLists = [:]
        for (name, byOwner) in links { own[name] = byOwner[recordKey] }
        try body(recordKey, cells, own, unread)
      }
    }
  }

  /// The targets of the to-many lists of the one record whose key cells
  /// are `key`, by property name (a property without link rows may be
  /// missing); `listsUpTo` as for `readLinks(_:in:reading:where:listsUpTo:)`.
  /// The common read of a cold `get`: no table of owners, each list made
  /// once.
  private func readLinks(
    of key: [SQLCell], _ table: TableLayout.Table, in layout: TableLayout, reading: StoreStatements.Reading,
    listsUpTo limit: Int?
  ) throws(StrataError) -> (links: LinkLists, unread: [String: Int]) {
    guard !reading.links.isEmpty else { return ([:], [:]) }
    var links = LinkLists()
    var unread: [String: Int] = [:]
    let width = Int32(table.keyColumns.count)
    for (number, (property, sql)) in reading.links.enumerated() {
      guard number < reading.targets.count, let (name, parts, columns) = reading.targets[number] else {
        continue
      }
      let total = width + Int32(columns)
      let plain = PlainKey(parts)
      var targets: [RecordKey] = []
      let long = try connection.withStatement(sql) { (statement) throws(StrataError) -> Bool in
        try statement.bind(1, cells: key)
        var rows = 0
        while try statement.step() {
          rows += 1
          if let limit, rows > limit { return true }
          if let target = plain.read(statement, width) {
            targets.append(target)
            continue
          }
          let cells = (width..<total).map(statement.cell)
          guard let targetKey = RecordRows.key(cells[...], parts: parts) else {
            throw RecordRows.damaged("a row of '\(name)' does not hold keys")
          }
          targets.append(targetKey)
        }
        return false
      }
      if long {
        if number < reading.counts.count {
          unread[property] = try connection.withStatement(reading.counts[number]) {
            (statement) throws(StrataError) -> Int in
            try statement.bind(1, cells: key)
            return try statement.step() ? Int(truncatingIfNeeded: statement.int64(0)) : 0
          }
        }
        continue
      }
      if !targets.isEmpty { links[property] = targets }
    }
    return (links, unread)
  }

  /// The targets of the to-many lists of `table`'s records, by property and
  /// owner (of the record of `key` alone, or of every record); with
  /// `limit`, a list of one record longer than that is left out and its
  /// length given in `unread` by property name.
  private func readLinks(
    _ table: TableLayout.Table, in layout: TableLayout, reading: StoreStatements.Reading,
    where key: [SQLCell]?,
    listsUpTo limit: Int?
  ) throws(StrataError) -> (links: [String: [RecordKey: [RecordKey]]], unread: [String: Int]) {
    var links: [String: [RecordKey: [RecordKey]]] = [:]
    var unread: [String: Int] = [:]
    for (number, (property, sql)) in reading.links.enumerated() {
      guard let stored = table.property(property), case .toMany(let target, let name) = stored.storage,
        let targetTable = layout.table(target)
      else { continue }
      let width = Int32(table.keyColumns.count)
      let total = width + Int32(targetTable.keyColumns.count)
      var byOwner: [RecordKey: [RecordKey]] = [:]
      var rows = 0
      // one record's links: its key decoded once, each row's target columns alone
      let only = key.flatMap { RecordRows.key($0[...], parts: table.keyParts) }
      let first = only == nil ? 0 : width
      let plain = PlainKey(targetTable.keyParts)
      let long = try connection.withStatement(sql) { (statement) throws(StrataError) -> Bool in
        if let key { try statement.bind(1, cells: key) }
        while try statement.step() {
          rows += 1
          if let limit, key != nil, rows > limit { return true }
          // one record's list: each target read as it is when it can be (no cells)
          if let only, let target = plain.read(statement, first) {
            byOwner[only, default: []].append(target)
            continue
          }
          let cells = (first..<total).map(statement.cell)
          guard let owner = only ?? RecordRows.key(cells[0..<Int(width)], parts: table.keyParts),
            let targetKey = RecordRows.key(cells[Int(width - first)...], parts: targetTable.keyParts)
          else { throw RecordRows.damaged("a row of '\(name)' does not hold keys") }
          byOwner[owner, default: []].append(targetKey)
        }
        return false
      }
      if long, let key, number < reading.counts.count {
        unread[property] = try connection.withStatement(reading.counts[number]) {
          (statement) throws(StrataError) -> Int in
          try statement.bind(1, cells: key)
          return try statement.step() ? Int(truncatingIfNeeded: statement.int64(0)) : 0
        }
        byOwner = [:]
      }
      links[property] = byOwner
    }
    return (links, unread)
  }

  /// The records whose whole rows `sql` selects (with `parameters`), in
  /// order, as their values by property index (owned: the caller releases
  /// them), each with its to-many lists read whole: a query reads its
  /// records' rows in its own statement instead of one by one. A row whose
  /// key `needs` refuses is given by its key alone (the caller holds the
  /// record): nothing more of it is read.
  func storedRows(
    selectedBy sql: String, parameters: [SQLCell], in table: TableLayout.Table, schema: Schema,
    needs: (RecordKey) -> Bool
  ) throws(StrataError) -> [(key: RecordKey, stored: RecordRows.Stored?)] {
    guard let layout = readLayout else { return [] }
    let columns = Int32(
      table.keyColumns.count + TableLayout.systemColumns.count
        + table.properties.reduce(0) { $0 + $1.columns.count })
    let rows = try connection.withStatement(sql) { (statement) throws(StrataError) -> [[SQLCell]] in
      try statement.bind(1, cells: parameters)
      var rows: [[SQLCell]] = []
      while try statement.step() { rows.append((0..<columns).map(statement.cell)) }
      return rows
    }
    let reading = statements.reading(table, in: layout, byKey: true)
    var made: [(key: RecordKey, stored: RecordRows.Stored?)] = []
    var done = false
    defer { if !done { for (_, stored) in made { stored?.release() } } }
    for cells in rows {
      guard let recordKey = RecordRows.key(cells[0..<table.keyColumns.count], parts: table.keyParts) else {
        throw RecordRows.damaged("a row of '\(table.name)' does not hold a key")
      }
      guard needs(recordKey) else {
        made.append((recordKey, nil))
        continue
      }
      var own: LinkLists = [:]
      if !reading.links.isEmpty {  // a table without to-many lists: no key cells copied, no lookups
        let keyCells = Array(cells[0..<table.keyColumns.count])
        own = try readLinks(of: keyCells, table, in: layout, reading: reading, listsUpTo: nil).links
      }
      let stored = try RecordRows.stored(
        table, in: layout, plan: { statements.readingPlan(table, modelNamed: $0, in: schema) },
        key: recordKey, cells: cells, links: own)
      made.append((recordKey, stored))
    }
    done = true
    return made
  }
}

/// A link row's target key when it is one integer or one text column: read
/// from its column as it is, with no row of cells (a cold `get` reads many
/// link rows). Any other key, or a cell of another type, is left to the
/// general path (`RecordRows.key`), which gives the same key for these.
private enum PlainKey {
  case integer, text, other

  init(_ parts: [TableLayout.KeyPart]) {
    switch parts {
    case [.value(.integer)]: self = .integer
    case [.value(.text)]: self = .text
    default: self = .other
    }
  }

  /// The key in column `column` of the row `statement` is on, or nil for the general path.
  @inline(__always)
  func read(_ statement: any StoreStatement, _ column: Int32) -> RecordKey? {
    switch self {
    case .integer: return statement.columnType(column) == SQLITE_INTEGER ? .int(statement.int64(column)) : nil
    case .text: return statement.text(column).map { .string($0) }
    case .other: return nil
    }
  }
}
