import CSQLite
import Strata

/// One connection to an SQLite database: a file, or `":memory:"`.
///
/// A connection belongs to one thread at a time (it is opened with
/// SQLITE_OPEN_NOMUTEX and is not `Sendable`); two connections to the same
/// file may live on two threads or in two processes. Files are put in WAL
/// mode with `synchronous=FULL` (see `open`), so a reader never waits for a
/// writer and a committed transaction survives a crash of the process and of
/// the machine.
///
/// Every failure is a `StrataError` (see `SQLiteError`): `io` for the file
/// and the system, `argument` for a wrong request. Nothing traps.
///
/// Statements are prepared once per SQL text and kept until `close()`
/// (`withStatement`); the SQL texts are the engine's own, a small fixed set.
/// `close()` (or deinit) finalizes every statement and closes the handle.
package final class SQLiteConnection {
  /// How a connection opens its file.
  package enum Mode: Sendable {
    /// Read only: every write is an `io` error (SQLITE_READONLY).
    case readOnly
    /// Read only, the file taken as immutable (`?immutable=1`): SQLite
    /// makes no `-wal` or `-shm` file and takes no lock, so a file in a
    /// read-only folder or filesystem opens; changes others make after the
    /// open are not seen. Only for a file without a write-ahead log.
    case readOnlyImmutable
    /// Read and write an existing file; a missing file is an `io` error.
    case readWrite
    /// Read and write, creating the file when it does not exist.
    case readWriteCreate
  }

  /// The file as given (`":memory:"` for an in-memory database).
  package let path: String
  /// How the file was opened.
  package let mode: Mode
  /// The sqlite3 handle, or nil once closed.
  private var handle: OpaquePointer?
  /// Prepared statements by SQL text (`SQLTextKey`: hashed by its ends).
  private var statements: [SQLTextKey: SQLiteStatement] = [:]
  /// The statements of the last texts looked up, by the address of the
  /// text's bytes: the same `String` again (a store's statements keep their
  /// texts) is found without hashing it or comparing its bytes. Only texts
  /// longer than 15 bytes, whose bytes live apart from the value (a shorter
  /// one is held in the value itself, and its bytes' address is a
  /// temporary's); each entry keeps its text, so no other text can come to
  /// have that address while it is here.
  private var recent: [(address: UnsafeRawPointer, text: String, statement: SQLiteStatement)] = []
  /// Where the next text goes in `recent` once it is full.
  private var recentNext = 0
  /// How many texts `recent` keeps.
  private static let recentCount = 8
  /// True while a write transaction this connection began is open.
  private var openWrites = false
  /// True once `configure` put the file in WAL mode (read and write).
  private var inWAL = false
  /// The write-ahead log's index as SQLite maps it, once found (`walHeader`).
  private var walIndex: UnsafeRawPointer?
  /// True once `dataVersion` read the file.
  private var dataVersionAsked = false
  /// A file in WAL mode: its checkpoints, on a helper thread.
  private var checkpointer: WALCheckpointer?

  /// True for an in-memory database.
  package var isMemory: Bool { path == ":memory:" }

  /// True when SQLite opened the database read only (asked for, or forced by
  /// the file's permissions).
  package var isReadOnly: Bool {
    guard let handle else { return true }
    return sqlite3_db_readonly(handle, "main") == 1
  }

  /// True until `close()`.
  package var isOpen: Bool { handle != nil }

  /// Opens `path` (a file name, taken literally: no URI forms; or `":memory:"`).
  ///
  /// A file opened for writing is switched to WAL (`journal_mode=WAL`) with
  /// `synchronous=FULL`: WAL lets other connections read while one writes,
  /// and keeps the database file untouched until a commit is complete in the
  /// log, so a process killed mid-transaction leaves the last committed
  /// state; FULL syncs the log at every commit, so a committed transaction
  /// also survives a power loss (NORMAL would be as safe against process
  /// crashes, but could lose the last commits when the machine stops).
  /// `busyTimeout` is how long (milliseconds) a call waits for another
  /// connection's write lock before failing with an `io` error.
  package init(path: String, mode: Mode = .readWriteCreate, busyTimeout: Int32 = 5000) throws(StrataError) {
    self.path = path
    self.mode = mode
    guard !path.isEmpty, !path.utf8.contains(0) else {
      throw SQLiteError.store(.argument, "an SQLite file name must be non-empty, without NUL", path: path)
    }
    var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
    var name = path
    switch mode {
    case .readOnly: flags |= SQLITE_OPEN_READONLY
    case .readOnlyImmutable:
      flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
      name = "file:" + Self.uriEscaped(path) + "?immutable=1"
    case .readWrite: flags |= SQLITE_OPEN_READWRITE
    case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
    }
    var opened: OpaquePointer? = nil
    let result = sqlite3_open_v2(name, &opened, flags, nil)
    guard result == SQLITE_OK, let opened else {
      let error = SQLiteError.make(result, handle: opened, doing: "open", path: path)
      // SQLite usually makes a handle even when opening fails; it must be closed.
      if let opened { sqlite3_close_v2(opened) }
      throw error
    }
    handle = opened
    sqlite3_extended_result_codes(opened, 1)
    sqlite3_busy_timeout(opened, max(busyTimeout, 0))
    do {
      try configure(busyTimeout: max(busyTimeout, 0))
    } catch {
      close()
      throw error
    }
  }

  deinit { close() }

  /// A file name as the path of a `file:` URI: bytes other than unreserved
  /// ones and `/` percent-encoded.
  static func uriEscaped(_ path: String) -> String {
    var out = ""
    for byte in path.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
        UInt8(ascii: "~"), UInt8(ascii: "/"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        out.unicodeScalars.append("%")
        out.unicodeScalars.append(digits[Int(byte >> 4)])
        out.unicodeScalars.append(digits[Int(byte & 15)])
      }
    }
    return out
  }

  /// The journal and sync settings of a file (see `init`); reading the first
  /// page here also finds a file that is not a database (SQLITE_NOTADB).
  private func configure(busyTimeout: Int32) throws(StrataError) {
    // Touch the schema: a file that is not SQLite fails here, at open, not later.
    try execute("SELECT count(*) FROM sqlite_master")
    try execute("PRAGMA cache_size=-16384")
    guard !isMemory, mode == .readWrite || mode == .readWriteCreate, !isReadOnly else { return }
    let journal = try switchToWAL(busyTimeout: busyTimeout)
    guard journal.lowercased() == "wal" else {
      throw SQLiteError.store(
        .io, "cannot switch the SQLite file to WAL mode (it stays '\(journal)')", path: path)
    }
    try execute("PRAGMA synchronous=FULL")
    inWAL = true
    if let handle {
      let checkpointer = WALCheckpointer(path: path)
      checkpointer.install(on: handle)
      self.checkpointer = checkpointer
    }
  }

  /// `PRAGMA journal_mode=WAL`: the journal mode the file is left in. The
  /// switch needs the file to itself, and SQLite answers SQLITE_BUSY at
  /// once, without waiting as the busy timeout says, while another
  /// connection is opening the same new file (processes importing into one
  /// file from the start): it is tried again every millisecond or so until
  /// `busyTimeout` milliseconds have passed, then the error is thrown.
  private func switchToWAL(busyTimeout: Int32) throws(StrataError) -> String {
    var waited: Int32 = 0
    while true {
      do {
        return try withStatement("PRAGMA journal_mode=WAL") { (statement) throws(StrataError) -> String in
          try statement.step() ? (statement.text(0) ?? "") : ""
        }
      } catch {
        guard let handle, sqlite3_errcode(handle) & 0xFF == SQLITE_BUSY, waited < busyTimeout else {
          throw error
        }
        _ = sqlite3_sleep(1)
        waited += 1
      }
    }
  }

  /// Finalizes every statement and closes the database (idempotent). A
  /// transaction still open is rolled back by SQLite.
  package func close() {
    walIndex = nil
    // the last connection's close copies what is left of the log
    checkpointer?.wait()
    for statement in statements.values { statement.finalize() }
    statements.removeAll()
    recent.removeAll()
    if let handle {
      sqlite3_close_v2(handle)
      self.handle = nil
    }
    checkpointer = nil
  }

  /// The live handle, or the `argument` error of a closed connection.
  private func live() throws(StrataError) -> OpaquePointer {
    guard let handle else {
      throw SQLiteError.store(.argument, "the SQLite connection is closed", path: path)
    }
    return handle
  }

  /// Prepares `sql` (one statement) on `database`.
  private func prepare(_ sql: String, on database: OpaquePointer) throws(StrataError) -> SQLiteStatement {
    var prepared: OpaquePointer? = nil
    let result = sqlite3_prepare_v2(database, sql, -1, &prepared, nil)
    guard result == SQLITE_OK, let prepared else {
      if let prepared { sqlite3_finalize(prepared) }
      if result == SQLITE_OK {
        throw SQLiteError.store(.argument, "empty SQL statement", path: path)
      }
      throw SQLiteError.make(result, handle: database, doing: "prepare SQL for", path: path)
    }
    return SQLiteStatement(handle: prepared, database: database, path: path, sql: sql)
  }

  /// Runs `body` with the prepared statement of `sql` (prepared on first use
  /// and cached), then resets it and clears its bindings. When the cached
  /// statement is already in use further up the stack (a nested call with
  /// the same SQL), a fresh one is prepared for this call and finalized after.
  /// The statement must not be kept past the call.
  package func withStatement<R>(_ sql: String, _ body: (SQLiteStatement) throws(StrataError) -> R)
    throws(StrataError) -> R
  {
    let database = try live()
    let statement: SQLiteStatement
    var temporary = false
    let cached = recentStatement(sql) ?? lookUp(sql)
    if let cached, !cached.inUse {
      statement = cached
    } else if cached == nil {
      statement = try prepare(sql, on: database)
      statements[SQLTextKey(text: sql)] = statement
      remember(sql, statement)
    } else {
      statement = try prepare(sql, on: database)
      temporary = true
    }
    statement.inUse = true
    defer {
      statement.reset()
      statement.inUse = false
      if temporary { statement.finalize() }
    }
    return try body(statement)
  }

  /// The address of the bytes of `sql` when they live apart from the
  /// value (longer than 15 bytes, contiguous), else nil.
  @inline(__always)
  private static func address(_ sql: String) -> UnsafeRawPointer? {
    guard sql.utf8.count > 15 else { return nil }
    return sql.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
  }

  /// The statement of `sql` when it is one of the texts looked up last.
  @inline(__always)
  private func recentStatement(_ sql: String) -> SQLiteStatement? {
    guard let address = Self.address(sql) else { return nil }
    for entry in recent where entry.address == address { return entry.statement }
    return nil
  }

  /// The statement of `sql` from the dictionary, kept among the recent ones.
  private func lookUp(_ sql: String) -> SQLiteStatement? {
    guard let found = statements[SQLTextKey(text: sql)] else { return nil }
    remember(sql, found)
    return found
  }

  /// Keeps `statement` as the one of `sql` among the recent texts.
  private func remember(_ sql: String, _ statement: SQLiteStatement) {
    guard let address = Self.address(sql) else { return }
    if recent.count < Self.recentCount {
      recent.append((address, sql, statement))
    } else {
      recent[recentNext] = (address, sql, statement)
      recentNext = (recentNext + 1) % Self.recentCount
    }
  }

  /// Runs one SQL statement without parameters to its end (rows ignored).
  package func execute(_ sql: String) throws(StrataError) {
    try withStatement(sql) { (statement) throws(StrataError) in try statement.run() }
    // a commit, or a statement that committed by itself, may have made the log long
    if !inTransaction { checkpointer?.afterCommit() }
  }

  /// True while a transaction is open on this connection.
  package var inTransaction: Bool {
    guard let handle else { return false }
    return sqlite3_get_autocommit(handle) == 0
  }

  /// Runs `body` in one write transaction: `BEGIN IMMEDIATE` (takes the write
  /// lock at once, waiting up to the busy timeout), then `COMMIT`. If `body`
  /// or the commit fails, the transaction is rolled back, so the file is
  /// exactly as before, and the first error is thrown. Inside a write
  /// transaction of this connection, `body` runs as part of it (the outer
  /// one commits or rolls back); inside a read transaction, it is refused.
  package func writeTransaction<R>(_ body: () throws(StrataError) -> R) throws(StrataError) -> R {
    try transaction(writes: true, body)
  }

  /// Runs `body` in one read transaction (`BEGIN` ... `COMMIT`): every read
  /// in it sees one snapshot of the file, whatever other connections commit
  /// meanwhile (WAL). Inside a transaction of this connection, `body` runs
  /// as part of it.
  package func readTransaction<R>(_ body: () throws(StrataError) -> R) throws(StrataError) -> R {
    try transaction(writes: false, body)
  }

  /// Commits the open transaction now, if there is one (`body` of a
  /// transaction may end it early: what follows in `body` must not write).
  /// A failing commit is thrown, and the transaction rolled back by the
  /// enclosing `writeTransaction`.
  package func commitNow() throws(StrataError) {
    if inTransaction { try execute("COMMIT") }
  }

  /// How many bytes at the start of the file SQLite reads through a memory
  /// map (`PRAGMA mmap_size`); 0, the default, reads pages with `pread`.
  /// A file in memory is never mapped (0).
  package func memoryMap() throws(StrataError) -> Int64 {
    if isMemory { return 0 }
    return try withStatement("PRAGMA mmap_size") { (statement) throws(StrataError) -> Int64 in
      try statement.step() ? statement.int64(0) : 0
    }
  }

  /// Asks SQLite to read up to `bytes` of the file through a memory map (0
  /// turns the map off). SQLite caps the size at the limit it was built
  /// with (`memoryMap()` gives what holds). Called outside a transaction:
  /// inside one, SQLite keeps the map it has while pages of it are in use.
  package func setMemoryMap(_ bytes: Int64) throws(StrataError) {
    if isMemory { return }
    try withStatement("PRAGMA mmap_size=\(max(0, bytes))") { (statement) throws(StrataError) in
      _ = try statement.step()
    }
  }

  /// The counter SQLite changes when another connection (of this process
  /// or another) commits to the file (`PRAGMA data_version`): equal values
  /// mean nobody else wrote in between. Commits of this connection leave it.
  package func dataVersion() throws(StrataError) -> Int64 {
    try withStatement("PRAGMA data_version") { (statement) throws(StrataError) -> Int64 in
      let version = try statement.step() ? statement.int64(0) : 0
      dataVersionAsked = true
      return version
    }
  }

  /// The header of the file's write-ahead-log index: the commit counter,
  /// the log's length and salts, which every commit of any connection
  /// changes (`strata_wal_index_header`). Equal headers read at two moments
  /// mean that nobody committed in between, known without asking SQLite
  /// (a read of shared memory, not a statement). Nil when it cannot be read
  /// now: a file not in WAL mode or not read yet, a commit writing it;
  /// then ask `dataVersion`.
  package func walHeader() -> WALHeader? {
    guard inWAL, let handle else { return nil }
    if walIndex == nil {
      // only once the connection read the file in WAL mode (its data
      // version asked): SQLite has opened and mapped the index by then
      guard dataVersionAsked else { return nil }
      walIndex = UnsafeRawPointer(strata_wal_index(handle))
    }
    guard let walIndex else { return nil }
    var header = WALHeader()
    let agrees = withUnsafeMutablePointer(to: &header.words) { words in
      words.withMemoryRebound(to: UInt64.self, capacity: 6) { strata_wal_index_header(walIndex, $0) }
    }
    return agrees == 1 ? header : nil
  }

  /// `BEGIN` (`BEGIN IMMEDIATE` when `writes`), `body`, `COMMIT`; rolled
  /// back when `body` or the commit fails. Nested: `body` alone.
  private func transaction<R>(writes: Bool, _ body: () throws(StrataError) -> R) throws(StrataError) -> R {
    _ = try live()
    if inTransaction {
      if writes && !openWrites {
        throw SQLiteError.store(
          .argument, "a write transaction cannot start inside a read transaction", path: path)
      }
      return try body()
    }
    // the last commit's checkpoint ends first, so this transaction's log
    // starts again at its beginning (a log copied back whole is reused)
    if writes { checkpointer?.wait() }
    try execute(writes ? "BEGIN IMMEDIATE" : "BEGIN")
    openWrites = writes
    defer { openWrites = false }
    do {
      let value = try body()
      if inTransaction { try execute("COMMIT") }
      return value
    } catch {
      rollback()
      throw error
    }
  }

  /// Rolls back the open transaction, if any (SQLite may have rolled it back
  /// itself after an I/O error). A failing rollback leaves the transaction to
  /// SQLite, which rolls it back when the connection closes or the journal is
  /// next read; its error is not the one the caller needs to see.
  private func rollback() {
    guard inTransaction else { return }
    do { try execute("ROLLBACK") } catch {}
  }
}

/// The header of a write-ahead-log index as six words (`SQLiteConnection.walHeader`).
package struct WALHeader: Equatable {
  /// The header's 48 bytes.
  var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)

  /// True when the two headers are the same, byte for byte.
  package static func == (lhs: WALHeader, rhs: WALHeader) -> Bool {
    lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
      && lhs.words.3 == rhs.words.3 && lhs.words.4 == rhs.words.4 && lhs.words.5 == rhs.words.5
  }
}
