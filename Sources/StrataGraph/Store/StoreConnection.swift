import Strata

/// A connection of the graph's store, whichever database it reaches: what
/// `GraphStore` and the graph above it do with one. `SQLiteConnection` is
/// one (a file, or memory); `PostgresStoreConnection` is the same over a
/// PostgreSQL database. The store's SQL is written once, with SQLite's `?`
/// parameters, and the names it quotes through `dialect`.
package protocol StoreConnection: AnyObject {
  /// The database's SQL dialect.
  var dialect: SQLDialect { get }
  /// Where the database is, as messages name it (a file; a URL with its
  /// password hidden).
  var path: String { get }
  /// True when the connection cannot write.
  var isReadOnly: Bool { get }
  /// True while a transaction is open on this connection.
  var inTransaction: Bool { get }
  /// Runs `body` with a statement of `sql` (reset after the call; it must
  /// not be kept past it).
  func withStatement<R>(_ sql: String, _ body: (any StoreStatement) throws(StrataError) -> R)
    throws(StrataError) -> R
  /// Runs one statement without parameters to its end (rows ignored).
  func execute(_ sql: String) throws(StrataError)
  /// Runs `body`, whose statements only write (nobody reads their rows):
  /// PostgreSQL sends them together and reads their answers at the end,
  /// where the first failure is thrown; SQLite runs them as they come.
  func batchingWrites<R>(_ body: () throws(StrataError) -> R) throws(StrataError) -> R
  /// Runs `body` in one write transaction that holds the graph's write
  /// lock from its start (writers take turns), committed at the end and
  /// rolled back, leaving nothing, when `body` or the commit fails. Inside
  /// a write transaction of this connection, `body` runs as part of it.
  func writeTransaction<R>(_ body: () throws(StrataError) -> R) throws(StrataError) -> R
  /// Runs `body` in one read transaction: every read in it sees one
  /// snapshot. Inside a transaction of this connection, `body` alone.
  func readTransaction<R>(_ body: () throws(StrataError) -> R) throws(StrataError) -> R
  /// Opens a read transaction that lasts until `commitNow` (a read block's
  /// snapshot).
  func beginReading() throws(StrataError)
  /// Commits the open transaction now, if there is one.
  func commitNow() throws(StrataError)
  /// A number that changes when another connection (of this process or
  /// another) commits to the database, and is left by this connection's
  /// own commits: equal values mean nobody else wrote in between.
  func dataVersion() throws(StrataError) -> Int64
  /// A cheaper sign that nobody committed since it was last read, when the
  /// database gives one (SQLite's write-ahead-log header); nil when it
  /// cannot tell (then ask `dataVersion`).
  func walHeader() -> WALHeader?
  /// True when the database holds a table `name` (in the store's schema).
  func hasTable(_ name: String) throws(StrataError) -> Bool
  /// The number of tables, indexes, views and other objects of the
  /// database (of the store's schema on PostgreSQL).
  func objectCount() throws(StrataError) -> Int64
  /// Closes the connection (idempotent).
  func close()
}

extension SQLiteConnection: StoreConnection {
  package var dialect: SQLDialect { .sqlite }

  package func withStatement<R>(_ sql: String, _ body: (any StoreStatement) throws(StrataError) -> R)
    throws(StrataError) -> R
  {
    try withStatement(sql) { (statement: SQLiteStatement) throws(StrataError) -> R in try body(statement) }
  }

  package func beginReading() throws(StrataError) { try execute("BEGIN") }

  package func batchingWrites<R>(_ body: () throws(StrataError) -> R) throws(StrataError) -> R { try body() }

  package func hasTable(_ name: String) throws(StrataError) -> Bool {
    try withStatement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?") {
      (statement: SQLiteStatement) throws(StrataError) -> Bool in
      try statement.bind(1, text: name)
      return try statement.step()
    }
  }

  package func objectCount() throws(StrataError) -> Int64 {
    try withStatement("SELECT count(*) FROM sqlite_master") {
      (statement: SQLiteStatement) throws(StrataError) -> Int64 in
      try statement.step() ? statement.int64(0) : 0
    }
  }
}
