import CSQLite

/// Reading and writing records: by key, by model in key order, and batches
/// of upserts and deletes applied in one transaction (format 2; a file of
/// format 1 is read by GraphStore+Format1).
extension GraphStore {
  /// One change of a `write`: the record of the key space `model` under
  /// `key` gets `body` (`{"model", "stub"?, "values"}`), or is deleted when
  /// `body` is nil. The values are borrowed for the call.
  package struct Change {
    /// The model's name.
    package var model: String
    /// The record's primary key (any JSON value; stored canonically).
    package var key: JPtr
    /// The record's new body, or nil to delete the record.
    package var body: JPtr?
    /// For to-many properties (by name) whose first N targets the file
    /// holds already, in order: N; the body's list of such a property holds
    /// the targets from position N on, and only those are written.
    package var keptLinks: [String: Int]
    /// True when the file holds no row of the record yet (made by this
    /// write): no old link rows to delete.
    package var isNew: Bool
    /// Instead of `body`: the record's committed object, whose canonical
    /// values are the body's values, a stub when `stub`; the keys of its
    /// to-many lists (by name, borrowed) from the first one to write on are
    /// in `lists`, not in the object.
    var object: ModelObject? = nil
    var stub = false
    var lists: [String: [JPtr]] = [:]

    /// A change from its parts.
    package init(model: String, key: JPtr, body: JPtr?, keptLinks: [String: Int] = [:], isNew: Bool = false) {
      self.model = model
      self.key = key
      self.body = body
      self.keptLinks = keptLinks
      self.isNew = isNew
    }

    /// An upsert of a record from its committed object (no body is made).
    init(
      model: String, key: JPtr, object: ModelObject, stub: Bool, lists: [String: [JPtr]],
      keptLinks: [String: Int], isNew: Bool
    ) {
      self.init(model: model, key: key, body: nil, keptLinks: keptLinks, isNew: isNew)
      self.object = object
      self.stub = stub
      self.lists = lists
    }
  }

  /// A record read from the store; it owns its key and body (new references,
  /// released when the record goes).
  package final class StoredRecord {
    /// The canonical JSON text of the key, as stored (what records are ordered by).
    package let keyText: String
    /// The key.
    package let key: JPtr
    /// The body.
    package let body: JPtr

    /// Takes ownership of one reference to `key` and to `body`.
    init(keyText: String, key: JPtr, body: JPtr) {
      self.keyText = keyText
      self.key = key
      self.body = body
    }

    deinit {
      JValue.release(key)
      JValue.release(body)
    }
  }

  /// A change made ready to write: its table and rows, or its table and key to delete.
  struct PreparedChange {
    /// The table.
    var table: TableLayout.Table
    /// The key's cells.
    var key: [SQLCell]
    /// The rows, or nil to delete.
    var row: RecordRows.Row?
    /// True when the file holds no row of the record yet.
    var isNew = false
  }

  // MARK: reading

  /// The layout the file is read with, or nil for format 1.
  private var readLayout: TableLayout? { fileFormat < Self.format ? nil : fileLayout }

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
    var found: (RecordRows.Stored, [String: Int])? = nil
    try readCells(table, in: layout, where: cells, listsUpTo: limit) {
      (recordKey, cells, links, unread) throws(StrataError) in
      let stored = try RecordRows.stored(
        table, in: layout, schema: schema, plan: { statements.plan(table, type: $0, reading: true) },
        key: recordKey, cells: cells, links: links)
      found?.0.release()
      found = (stored, unread)
    }
    return found
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
    return try connection.withStatement("SELECT count(*) FROM \(SQLText.quoted(model))") {
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
      let any = try connection.withStatement("SELECT 1 FROM \(SQLText.quoted(table.name)) LIMIT 1") {
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
    _ body: (RecordKey, [SQLCell], [String: [RecordKey]], [String: Int]) throws(StrataError) -> Void
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
        var own: [String: [RecordKey]] = [:]
        for (name, byOwner) in links { own[name] = byOwner[recordKey] }
        try body(recordKey, cells, own, unread)
      }
    }
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
      let long = try connection.withStatement(sql) { (statement) throws(StrataError) -> Bool in
        if let key { try statement.bind(1, cells: key) }
        while try statement.step() {
          rows += 1
          if let limit, key != nil, rows > limit { return true }
          let cells = (0..<total).map(statement.cell)
          guard let owner = RecordRows.key(cells[0..<Int(width)], parts: table.keyParts),
            let targetKey = RecordRows.key(cells[Int(width)...], parts: targetTable.keyParts)
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
      let keyCells = Array(cells[0..<table.keyColumns.count])
      let (links, _) = try readLinks(table, in: layout, reading: reading, where: keyCells, listsUpTo: nil)
      var own: [String: [RecordKey]] = [:]
      for (name, byOwner) in links { own[name] = byOwner[recordKey] }
      let stored = try RecordRows.stored(
        table, in: layout, schema: schema, plan: { statements.plan(table, type: $0, reading: true) },
        key: recordKey, cells: cells, links: own)
      made.append((recordKey, stored))
    }
    done = true
    return made
  }

  // MARK: writing

  /// Applies `changes` in order, in ONE transaction: every upsert and delete
  /// lands, or none does and the file is exactly as before (`BEGIN
  /// IMMEDIATE` ... `COMMIT`, `ROLLBACK` on any failure: a full disk, a
  /// read-only file, a key that cannot be written, a process killed half-way).
  ///
  /// Records are turned into rows before the transaction starts, so a bad
  /// value (nested too deep, a model the file has no table for) fails
  /// before anything is written; its error's path is `/N`, the change's
  /// index. A file that must first be rewritten (`needsRewrite`) is refused.
  /// `progress`, when given, is called inside the transaction after each
  /// change is applied with the number applied so far (for progress reports;
  /// the crash test uses it to know it is half-way).
  package func write(_ changes: [Change], progress: ((Int) -> Void)? = nil) throws(StrataError) {
    let rows = try prepare(changes, layout: layout)
    if fileFormat < Self.format || !hasOwnLayout {
      throw SQLiteError.store(
        .argument, "the graph file must be converted to this schema's tables before it is written", path: path
      )
    }
    try connection.writeTransaction { () throws(StrataError) in
      try apply(rows, layout: layout, progress: progress)
    }
  }

  /// Turns changes into rows (outside any transaction).
  func prepare(_ changes: [Change], layout: TableLayout) throws(StrataError) -> [PreparedChange] {
    var prepared: [PreparedChange] = []
    prepared.reserveCapacity(changes.count)
    for (index, change) in changes.enumerated() {
      do throws(StrataError) {
        guard let table = layout.table(change.model) else {
          throw StrataError(
            code: .argument, message: "the graph file has no table for records of '\(change.model)'")
        }
        guard let key = RecordKey(json: change.key), let cells = RecordRows.cells(key, parts: table.keyParts)
        else {
          throw StrataError(
            code: .argument,
            message: "the key \(Mapper.show(change.key)) does not fit the table '\(table.name)'")
        }
        var row: RecordRows.Row? = nil
        if let object = change.object {
          guard let plan = statements.plan(table, type: object.type) else {
            throw StrataError(
              code: .argument,
              message: "the table '\(table.name)' does not hold records of '\(object.type.name)'")
          }
          row = try RecordRows.row(
            table, in: layout, plan: plan, key: key, object: object, stub: change.stub, lists: change.lists,
            keptLinks: change.keptLinks)
        } else if let body = change.body {
          row = try RecordRows.row(table, in: layout, key: key, body: body, keptLinks: change.keptLinks)
        }
        prepared.append(PreparedChange(table: table, key: cells, row: row, isNew: change.isNew))
      } catch {
        throw StrataError(
          error.errors.map { detail in
            var located = detail
            located.path = "/\(index)"
            return located
          })
      }
    }
    return prepared
  }

  /// Writes prepared changes (inside the caller's transaction), table by
  /// table and in key order within a table (changes of one key keep their
  /// order): rows inserted in key order land at the end of the table's
  /// B-tree instead of splitting its pages all over, and each table's
  /// statements are looked up once. `progress` counts the changes applied.
  func apply(_ changes: [PreparedChange], layout: TableLayout, progress: ((Int) -> Void)?) throws(StrataError)
  {
    let order = Self.keyOrder(changes)
    var done = 0
    var next = 0
    while next < order.count {
      let table = changes[order[next]].table
      var end = next + 1
      while end < order.count && changes[order[end]].table.name == table.name { end += 1 }
      let sql = statements.sql(for: table, in: layout)
      try connection.withStatement(sql.upsert) { (upsert) throws(StrataError) in
        for position in next..<end {
          try apply(changes[order[position]], sql: sql, upsert: upsert)
          done += 1
          progress?(done)
        }
      }
      next = end
    }
  }

  /// The indices of `changes` grouped by table (in order of first
  /// appearance) and sorted by key within a table; changes of one key keep
  /// their order. A table of one integer key column sorts by the integers.
  private static func keyOrder(_ changes: [PreparedChange]) -> [Int] {
    var groups: [[Int]] = []
    var groupOf: [String: Int] = [:]
    for index in changes.indices {
      let name = changes[index].table.name
      if let group = groupOf[name] {
        groups[group].append(index)
      } else {
        groupOf[name] = groups.count
        groups.append([index])
      }
    }
    var order: [Int] = []
    order.reserveCapacity(changes.count)
    for group in groups {
      var integers: [(key: Int64, index: Int)] = []
      integers.reserveCapacity(group.count)
      for index in group {
        guard changes[index].key.count == 1, case .integer(let key) = changes[index].key[0] else { break }
        integers.append((key, index))
      }
      if integers.count == group.count {
        integers.sort { $0.key != $1.key ? $0.key < $1.key : $0.index < $1.index }
        order += integers.map(\.index)
      } else {
        order += group.sorted { left, right in
          SQLCell.compare(changes[left].key, changes[right].key) ?? (left < right)
        }
      }
    }
    return order
  }

  /// Writes one prepared change with its table's statements.
  private func apply(_ change: PreparedChange, sql: StoreStatements.Table, upsert: SQLiteStatement)
    throws(StrataError)
  {
    guard let row = change.row else {
      try connection.withStatement(sql.delete) { (statement) throws(StrataError) in
        try statement.bind(1, cells: change.key)
        try statement.run()
      }
      for link in sql.links { try deleteLinks(link, owner: change.key, from: 0) }
      return
    }
    defer { upsert.reset() }
    var next = try upsert.bind(1, cells: row.key)
    try upsert.bind(next, text: row.model)
    try upsert.bind(next + 1, int: row.stub ? 1 : 0)
    if let extra = row.extra {
      try upsert.bind(next + 2, text: extra)
    } else {
      try upsert.bindNull(next + 2)
    }
    next += 3
    try upsert.bind(next, cells: row.columns)
    try upsert.run()
    for (link, written) in zip(sql.links, row.links) {
      let start = written?.start ?? 0
      if !change.isNew { try deleteLinks(link, owner: row.key, from: start) }
      guard let targets = written?.targets, !targets.isEmpty else { continue }
      try connection.withStatement(link.insert) { (statement) throws(StrataError) in
        for (offset, target) in targets.enumerated() {
          defer { statement.reset() }
          let next = try statement.bind(1, cells: row.key)
          try statement.bind(next, int: Int64(start + offset))
          try statement.bind(next + 1, cells: target)
          try statement.run()
        }
      }
    }
  }

  /// Deletes the links of `owner` from position `start` on.
  private func deleteLinks(_ link: StoreStatements.Link, owner: [SQLCell], from start: Int)
    throws(StrataError)
  {
    try connection.withStatement(link.delete) { (statement) throws(StrataError) in
      let next = try statement.bind(1, cells: owner)
      try statement.bind(next, int: Int64(start))
      try statement.run()
    }
  }
}
