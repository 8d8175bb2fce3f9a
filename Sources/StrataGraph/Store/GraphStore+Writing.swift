import CSQLite
import Strata

// Long because one write path is here whole: the change and its rows, the
// write in place and on two cores (`writeOverlapped`, with objects made as
// their rows are), and the statements per table; split, each piece would
// reach into the others' private steps.

/// Writing records: batches of upserts and deletes made into rows before
/// the transaction, then applied in one, table by table in key order
/// (format 2).
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
    /// For a change whose object is made later (`write(_:completing:)`):
    /// the model of that object, which chooses how its table stores it.
    var objectType: ModelType? = nil

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
    /// The table, shared by the changes of a write that go to it.
    var shared: SharedTable
    /// The table.
    var table: TableLayout.Table { shared.table }
    /// The record's key.
    var recordKey: RecordKey
    /// The key's cells.
    var key: [SQLCell]
    /// The rows, or nil to delete.
    var row: RecordRows.Row?
    /// True when the file holds no row of the record yet.
    var isNew = false
  }

  /// A table of the layout held by reference: the changes of one write
  /// share it, so that copying a change (a write copies each a few times)
  /// retains one object, not each string and array of the table.
  final class SharedTable {
    let table: TableLayout.Table
    init(_ table: TableLayout.Table) { self.table = table }
  }

  /// The `writeOverlapFrom` of a new store: below it, starting a thread
  /// costs more than it saves.
  package static let writeOverlapDefault = 1024

  /// The rows a helper thread hands over at a time (`writeOverlapped`).
  static let writeBatch = 128

  /// Applies `changes` in order, in ONE transaction: every upsert and delete
  /// lands, or none does and the file is exactly as before (`BEGIN
  /// IMMEDIATE` ... `COMMIT`, `ROLLBACK` on any failure: a full disk, a
  /// read-only file, a key that cannot be written, a process killed half-way).
  ///
  /// Records are turned into rows before the transaction starts, so a bad
  /// value (nested too deep, a model the file has no table for) fails
  /// before anything is written; its error's path is `/N`, the change's
  /// index. (Many changes, `writeOverlapFrom`, are made into rows while
  /// earlier rows are written: a bad value then fails the transaction,
  /// which leaves the file as it was, with the same error.) A file that
  /// must first be rewritten (`needsRewrite`) is refused.
  /// `progress`, when given, is called inside the transaction after each
  /// change is applied with the number applied so far (for progress reports;
  /// the crash test uses it to know it is half-way).
  package func write(_ changes: [Change], progress: ((Int) -> Void)? = nil) throws(StrataError) {
    if changes.count >= writeOverlapFrom {
      try writeOverlapped(changes, completing: { changes[$0] }, progress: progress)
      return
    }
    let rows = try prepare(changes, layout: layout)
    try requireOwnTables()
    try connection.writeTransaction { () throws(StrataError) in
      try apply(rows, layout: layout, progress: progress)
    }
  }

  /// `write` of changes whose objects are made while earlier rows are
  /// written: each of `changes` holds its model, key and `isNew`, and an
  /// upsert its `objectType` (a change with neither is a delete);
  /// `complete(index)` gives change `index` whole (its object, `stub` and
  /// lists). It is called once per upsert, in key order, on a helper
  /// thread when there are many changes (`writeOverlapFrom`), so it must
  /// touch nothing the calling thread does meanwhile (the calling thread
  /// only writes rows). On an error nothing is written, as in `write`.
  package func write(_ changes: [Change], completing complete: (Int) -> Change) throws(StrataError) {
    if changes.count >= writeOverlapFrom {
      try writeOverlapped(changes, completing: complete, progress: nil)
      return
    }
    var whole = changes
    for index in whole.indices where whole[index].objectType != nil { whole[index] = complete(index) }
    try write(whole)
  }

  /// Turns changes into rows (outside any transaction).
  func prepare(_ changes: [Change], layout: TableLayout) throws(StrataError) -> [PreparedChange] {
    var prepared: [PreparedChange] = []
    prepared.reserveCapacity(changes.count)
    var tables: [String: SharedTable] = [:]
    for (index, change) in changes.enumerated() {
      try Self.located(index) { () throws(StrataError) in
        var made = try placed(change, layout: layout, tables: &tables)
        let plan = try change.object.map { object throws(StrataError) in
          try self.plan(made.table, for: object.type)
        }
        made.row = try Self.row(of: change, made, plan: plan, layout: layout)
        prepared.append(made)
      }
    }
    return prepared
  }

  /// A change's table and key cells, its row not made yet.
  private func placed(_ change: Change, layout: TableLayout, tables: inout [String: SharedTable])
    throws(StrataError)
    -> PreparedChange
  {
    let shared: SharedTable
    if let known = tables[change.model] {
      shared = known
    } else if let table = layout.table(change.model) {
      shared = SharedTable(table)
      tables[change.model] = shared
    } else {
      throw StrataError(
        code: .argument, message: "the graph file has no table for records of '\(change.model)'")
    }
    let table = shared.table
    guard let key = RecordKey(json: change.key), let cells = RecordRows.cells(key, parts: table.keyParts)
    else {
      throw StrataError(
        code: .argument, message: "the key \(Mapper.show(change.key)) does not fit the table '\(table.name)'")
    }
    return PreparedChange(shared: shared, recordKey: key, key: cells, row: nil, isNew: change.isNew)
  }

  /// Refuses to write a file still in an older format or another schema's
  /// tables (`needsRewrite`).
  private func requireOwnTables() throws(StrataError) {
    if fileFormat < Self.format || !hasOwnLayout {
      throw SQLiteError.store(
        .argument, "the graph file must be converted to this schema's tables before it is written", path: path
      )
    }
  }

  /// How `table` stores the records of `type` (from the calling
  /// thread's statements).
  private func plan(_ table: TableLayout.Table, for type: ModelType) throws(StrataError)
    -> RecordRows.Plan
  {
    guard let plan = statements.plan(table, type: type) else {
      throw StrataError(
        code: .argument,
        message: "the table '\(table.name)' does not hold records of '\(type.name)'")
    }
    return plan
  }

  /// The row of an upsert (nil for a delete), from the committed object
  /// through `plan` or from the body. Touches nothing of the store: it may
  /// run on a helper thread.
  private static func row(
    of change: Change, _ placed: PreparedChange, plan: RecordRows.Plan?, layout: TableLayout
  )
    throws(StrataError) -> RecordRows.Row?
  {
    let key = placed.recordKey
    if let object = change.object, let plan {
      return try RecordRows.row(
        placed.table, in: layout, plan: plan, key: key, object: object, stub: change.stub,
        lists: change.lists,
        keptLinks: change.keptLinks)
    }
    if let body = change.body {
      return try RecordRows.row(placed.table, in: layout, key: key, body: body, keptLinks: change.keptLinks)
    }
    return nil
  }

  /// `body()`, its errors located at the change's index (`/N`).
  private static func located<R>(_ index: Int, _ body: () throws(StrataError) -> R) throws(StrataError) -> R {
    do throws(StrataError) {
      return try body()
    } catch {
      throw StrataError(
        error.errors.map { detail in
          var located = detail
          located.path = "/\(index)"
          return located
        })
    }
  }

  /// `write` of many changes on two cores: their tables and keys first (in
  /// place), then, inside the transaction, their rows made in key order on
  /// a helper thread while the calling thread writes the rows made before
  /// (`Overlap`). Only the calling thread touches the connection and the
  /// statements; the helper reads the committed objects and the layout. A
  /// row that cannot be made fails the transaction (nothing is written),
  /// its error at `/N` as in `prepare`.
  private func writeOverlapped(
    _ changes: [Change], completing complete: (Int) -> Change,
    progress: ((Int) -> Void)?
  ) throws(StrataError) {
    let layout = self.layout
    var placed: [PreparedChange] = []
    placed.reserveCapacity(changes.count)
    // each model's plan in its table, made here (the statements are the calling thread's)
    // (by model and shared table: one table of a write is one object)
    var plans: [ObjectIdentifier: [ObjectIdentifier: RecordRows.Plan]] = [:]
    var tables: [String: SharedTable] = [:]
    for (index, change) in changes.enumerated() {
      try Self.located(index) { () throws(StrataError) in
        let made = try self.placed(change, layout: layout, tables: &tables)
        if let type = change.objectType ?? change.object?.type,
          plans[ObjectIdentifier(type)]?[ObjectIdentifier(made.shared)] == nil
        {
          plans[ObjectIdentifier(type), default: [:]][ObjectIdentifier(made.shared)] = try plan(
            made.table, for: type)
        }
        placed.append(made)
      }
    }
    try requireOwnTables()
    let order = Self.keyOrder(placed)
    try connection.writeTransaction { () throws(StrataError) in
      try connection.batchingWrites { () throws(StrataError) in
        var failure: StrataError? = nil
        var done = 0
        let made = Overlap.run(
          depth: 4,
          produce: { (channel: Overlap.Channel<PreparedChange>) -> StrataError? in
            var batch: [PreparedChange] = []
            batch.reserveCapacity(Self.writeBatch)
            for index in order {
              var change = placed[index]
              do throws(StrataError) {
                let whole =
                  changes[index].objectType != nil ? complete(index) : changes[index]
                let plan = whole.object.flatMap {
                  plans[ObjectIdentifier($0.type)]?[ObjectIdentifier(change.shared)]
                }
                change.row = try Self.located(index) { () throws(StrataError) in
                  try Self.row(of: whole, change, plan: plan, layout: layout)
                }
              } catch {
                if !batch.isEmpty { _ = channel.send(batch) }
                return error
              }
              batch.append(change)
              if batch.count == Self.writeBatch {
                guard channel.send(batch) else { return nil }
                batch = []
                batch.reserveCapacity(Self.writeBatch)
              }
            }
            if !batch.isEmpty { _ = channel.send(batch) }
            return nil
          },
          consume: { batch in
            do throws(StrataError) {
              try applyRuns(
                batch, order: Array(batch.indices), layout: layout, done: &done, progress: progress)
              return true
            } catch {
              failure = error
              return false
            }
          },
          drop: { _ in })
        if let failure { throw failure }
        if let error = made ?? nil { throw error }
      }
    }
  }

  /// Writes prepared changes (inside the caller's transaction), table by
  /// table and in key order within a table (changes of one key keep their
  /// order): rows inserted in key order land at the end of the table's
  /// B-tree instead of splitting its pages all over, and each table's
  /// statements are looked up once. `progress` counts the changes applied.
  func apply(_ changes: [PreparedChange], layout: TableLayout, progress: ((Int) -> Void)?) throws(StrataError)
  {
    try connection.batchingWrites { () throws(StrataError) in
      try applyInOrder(changes, layout: layout, progress: progress)
    }
  }

  /// `apply`, the writes themselves: per table, each run of upserts of
  /// distinct keys goes in statements of several rows (`rowsPerStatement`),
  /// then their links.
  private func applyInOrder(_ changes: [PreparedChange], layout: TableLayout, progress: ((Int) -> Void)?)
    throws(StrataError)
  {
    var done = 0
    try applyRuns(changes, order: Self.keyOrder(changes), layout: layout, done: &done, progress: progress)
  }

  /// The writes of `changes` taken in `order` (grouped by table, by key
  /// within a table): each run of upserts of distinct keys in statements of
  /// several rows, then their links; `done` counts the changes applied.
  private func applyRuns(
    _ changes: [PreparedChange], order: [Int], layout: TableLayout, done: inout Int,
    progress: ((Int) -> Void)?
  ) throws(StrataError) {
    var next = 0
    while next < order.count {
      let table = changes[order[next]].table
      var end = next + 1
      while end < order.count && changes[order[end]].table.name == table.name { end += 1 }
      let sql = statements.sql(for: table, in: layout)
      var position = next
      while position < end {
        // a run of rows of new keys where the table has inserts of
        // several rows (SQLite), else of any rows
        let inserting = !sql.inserts.isEmpty && changes[order[position]].isNew
        let most = sql.mostRows(inserting: inserting)
        // the positions in `changes` of a run of upserts of distinct keys
        // (picked, not copied: a change holds many arrays to retain)
        var upserts: [Int] = []
        while position < end, changes[order[position]].row != nil, upserts.count < most,
          sql.inserts.isEmpty || changes[order[position]].isNew == inserting,
          upserts.last.map({ changes[$0].row?.key != changes[order[position]].row?.key }) ?? true
        {
          upserts.append(order[position])
          position += 1
        }
        if upserts.isEmpty {
          try delete(changes[order[position]], sql: sql)
          position += 1
          done += 1
        } else {
          try upsert(changes, upserts, sql: sql, inserting: inserting)
          done += upserts.count
        }
        progress?(done)
      }
      next = end
    }
  }

  /// The most rows one statement writes on `dialect` when a row has
  /// `parameters` parameters: up to `most`, fewer for wide rows, so a
  /// statement stays under 8,192 parameters on PostgreSQL (a statement
  /// costs the server much more than a row) and under 999 on SQLite (the
  /// limit of SQLite before 3.32; each execution of a statement frees and
  /// again allocates its registers' memory, as the SQLite of Debian and
  /// others is built without its lookaside allocator).
  static func rowsPerStatement(_ dialect: SQLDialect, parameters: Int, most: Int = 32) -> Int {
    let limit = dialect == .postgres ? 8192 : 999
    return max(1, min(most, limit / max(parameters, 1)))
  }

  /// The most rows one upsert writes on `dialect`: `rowsPerStatement` on
  /// PostgreSQL, 1 on SQLite, where an upsert of several rows keeps a
  /// statement journal (`StoreStatements.Table.inserts`).
  static func upsertsPerStatement(_ dialect: SQLDialect, parameters: Int) -> Int {
    dialect == .postgres ? rowsPerStatement(dialect, parameters: parameters) : 1
  }

  /// Deletes the record of one change and its links.
  private func delete(_ change: PreparedChange, sql: StoreStatements.Table) throws(StrataError) {
    try connection.withStatement(sql.delete) { (statement) throws(StrataError) in
      try statement.bind(1, cells: change.key)
      try statement.run()
    }
    for link in sql.links { try deleteLinks(link, owner: change.key, from: 0) }
  }

  /// Writes the rows of the `changes` at `picked` (upserts of distinct
  /// keys, in order; when `inserting`, rows of keys the file does not hold,
  /// written by `sql.inserts`) and their links: the rows in statements of as many rows as the powers of
  /// two that add up to their number, then per link table the old links of
  /// records that were in the file before, then the new links, as the rows.
  private func upsert(
    _ changes: [PreparedChange], _ picked: [Int], sql: StoreStatements.Table, inserting: Bool
  ) throws(StrataError) {
    let texts = sql.writes(inserting: inserting)
    try Self.inPieces(picked.count, most: sql.mostRows(inserting: inserting)) {
      (first, count) throws(StrataError) in
      try connection.withStatement(texts[count.trailingZeroBitCount]) { (upsert) throws(StrataError) in
        var next: Int32 = 1
        for index in picked[first..<first + count] {
          guard let row = changes[index].row else { continue }
          next = try upsert.bind(next, cells: row.key)
          try upsert.bind(next, text: row.model)
          try upsert.bind(next + 1, int: row.stub ? 1 : 0)
          if let extra = row.extra {
            try upsert.bind(next + 2, text: extra)
          } else {
            try upsert.bindNull(next + 2)
          }
          next += 3
          for cell in row.columns {
            try cell.bind(to: upsert, next)
            next += 1
          }
        }
        try upsert.run()
      }
    }
    for (index, link) in sql.links.enumerated() {
      var rows: [(owner: [SQLCell], position: Int, target: [SQLCell])] = []
      for position in picked {
        guard let links = changes[position].row?.links, index < links.count,
          let key = changes[position].row?.key
        else { continue }
        let written = links[index]
        let start = written?.start ?? 0
        if !changes[position].isNew { try deleteLinks(link, owner: key, from: start) }
        guard let targets = written?.targets else { continue }
        for (offset, target) in targets.enumerated() { rows.append((key, start + offset, target)) }
      }
      try Self.inPieces(rows.count, most: 1 << (link.inserts.count - 1)) {
        (first, count) throws(StrataError) in
        try connection.withStatement(link.insert(rows: count)) { (statement) throws(StrataError) in
          var next: Int32 = 1
          for row in rows[first..<(first + count)] {
            next = try statement.bind(next, cells: row.owner)
            try statement.bind(next, int: Int64(row.position))
            next = try statement.bind(next + 1, cells: row.target)
          }
          try statement.run()
        }
      }
    }
  }

  /// Calls `body(first, count)` for pieces of `total` items in order, each
  /// piece's count a power of two (the largest that fits what is left, up
  /// to `most`), so that few statement texts of several rows serve every count.
  private static func inPieces(_ total: Int, most: Int, _ body: (Int, Int) throws(StrataError) -> Void)
    throws(StrataError)
  {
    var first = 0
    while first < total {
      var count = 1
      while count * 2 <= min(total - first, most) { count *= 2 }
      try body(first, count)
      first += count
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
        // one integer column (on PostgreSQL after strata_synthetic's 0)
        let cells = changes[index].key
        guard cells.count == 1 || (cells.count == 2 && cells[0] == .integer(0)),
          case .integer(let key) = cells[cells.count - 1]
        else { break }
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
