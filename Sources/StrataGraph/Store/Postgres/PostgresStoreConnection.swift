import Strata

/// The graph store's connection to a PostgreSQL database
/// (`StoreConnection`): a `PostgresConnection` with the graph's write lock,
/// its snapshots and its change counter.
///
/// - Writers of one graph (one database and schema) take turns: a write
///   transaction takes the graph's transaction-scoped advisory lock first
///   (`PostgresConnection.writeTransaction`), as SQLite's `BEGIN IMMEDIATE`
///   takes the file's write lock, and reads what others committed before it
///   (READ COMMITTED, after the lock). A transaction the server gives up
///   (serialization failure, deadlock) runs again, a bounded number of
///   times; `lastRetries` counts the reruns.
/// - A read transaction is REPEATABLE READ: one snapshot for all its reads.
/// - `strata_meta`'s `changes` counts commits: every write transaction adds
///   one before it commits. `dataVersion` is that count less this
///   connection's own commits, so that it moves only when another
///   connection committed, as SQLite's `data_version` does.
package final class PostgresStoreConnection: StoreConnection {
  /// The connection to the server.
  package let connection: PostgresConnection
  /// The advisory lock of the graph's writers: a hash of the schema's name.
  let lock: Int64
  /// How many write transactions of this connection committed (each added
  /// one to the change counter).
  private var ownCommits: Int64 = 0
  /// True while a write transaction of this connection is open.
  private var openWrites = false
  /// How many times the last write transaction ran again after the server
  /// gave it up.
  package private(set) var lastRetries = 0
  /// For tests: how many of the next write transactions fail as the server
  /// fails a transaction it gives up (SQLSTATE 40001, raised by the server
  /// at the end of the transaction's work), so that the retry is tested
  /// through the server.
  package var givenUpTransactions = 0

  /// Connects to `url` (`PostgresURL`).
  package init(url: String) throws(StrataError) {
    connection = try PostgresConnection(url: url)
    let name = "strata graph " + (self.connection.url.schema ?? "")
    lock = Int64(bitPattern: SQLDialect.fnv1a(name))
  }

  package var dialect: SQLDialect { .postgres }
  package var path: String { connection.url.shown }
  package var isReadOnly: Bool { false }
  package var inTransaction: Bool { connection.inTransaction }

  package func withStatement<R>(_ sql: String, _ body: (any StoreStatement) throws(StrataError) -> R)
    throws(StrataError) -> R
  {
    let converted: (sql: String, count: Int)
    if let known = convertedSQL[sql] {
      converted = known
    } else {
      converted = PostgresStatement.placeholders(sql)
      convertedSQL[sql] = converted
    }
    return try body(PostgresStatement(converted: converted, on: connection, sends: batching))
  }

  /// The store's SQL texts in PostgreSQL's form, converted once each (a
  /// write runs the same few texts for every record).
  private var convertedSQL: [String: (sql: String, count: Int)] = [:]

  /// True inside `batchingWrites`: statements run there are sent, not waited for.
  private var batching = false

  package func batchingWrites<R>(_ body: () throws(StrataError) -> R) throws(StrataError) -> R {
    if batching { return try body() }
    batching = true
    defer { batching = false }
    do {
      let result = try body()
      try connection.flush()
      return result
    } catch {
      // the answers of what was sent are read, the first failure kept
      do { try connection.flush() } catch {}
      throw error
    }
  }

  package func execute(_ sql: String) throws(StrataError) { try connection.execute(sql) }

  package func writeTransaction<R>(_ body: () throws(StrataError) -> R) throws(StrataError) -> R {
    if connection.inTransaction {
      guard openWrites else {
        throw StrataError(
          code: .argument, message: "\(path): a write transaction cannot start inside a read transaction")
      }
      return try body()
    }
    openWrites = true
    defer { openWrites = false }
    let (result, retries) = try connection.writeTransaction(lock: lock) { () throws(StrataError) -> R in
      counted = false
      let result = try body()
      // committed by `body` already (`commitNow`), or by the caller now
      if connection.inTransaction { try countCommit() }
      return result
    }
    lastRetries = retries
    if counted { ownCommits += 1 }
    return result
  }

  /// True once the open write transaction added its one to the change counter.
  private var counted = false

  /// Adds the write transaction's one to the change counter, just before it commits.
  private func countCommit() throws(StrataError) {
    if givenUpTransactions > 0 {
      givenUpTransactions -= 1
      try connection.execute(
        "DO $$ BEGIN RAISE EXCEPTION 'given up for a test' USING ERRCODE = '40001'; END $$")
    }
    try connection.execute(
      "UPDATE strata_meta SET value = CAST(CAST(value AS BIGINT) + 1 AS TEXT) WHERE key = 'changes'")
    counted = true
  }

  package func readTransaction<R>(_ body: () throws(StrataError) -> R) throws(StrataError) -> R {
    if connection.inTransaction { return try body() }
    return try connection.transaction(begin: Self.readBegin, body)
  }

  /// How a read transaction begins: one snapshot for all its statements.
  static let readBegin = "BEGIN ISOLATION LEVEL REPEATABLE READ"

  package func beginReading() throws(StrataError) { try connection.execute(Self.readBegin) }

  package func commitNow() throws(StrataError) {
    guard connection.inTransaction else { return }
    if openWrites && !counted { try countCommit() }
    try connection.execute("COMMIT")
  }

  package func dataVersion() throws(StrataError) -> Int64 {
    let rows = try connection.execute("SELECT value FROM strata_meta WHERE key = 'changes'")
    guard let first = rows.rows.first?.first, case .text(let text) = first, let count = Int64(text) else {
      return -ownCommits
    }
    return count - ownCommits
  }

  package func walHeader() -> WALHeader? { nil }

  package func hasTable(_ name: String) throws(StrataError) -> Bool {
    let rows = try connection.execute(
      "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = $1",
      [.text(SQLDialect.postgres.identifier(name))])
    return !rows.rows.isEmpty
  }

  package func objectCount() throws(StrataError) -> Int64 {
    let rows = try connection.execute(
      "SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE n.nspname = current_schema()")
    guard case .integer(let count)? = rows.rows.first?.first else { return 0 }
    return count
  }

  package func close() { connection.close() }
}
