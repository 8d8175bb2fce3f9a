import CSQLite
import Strata

/// A prepared SQLite statement, handed out by `SQLiteConnection.withStatement`
/// for the length of one call.
///
/// Nothing here traps: binding to a parameter that does not exist is an
/// `argument` error, reading a column that does not exist gives nil or 0, and
/// a statement whose connection was closed (it escaped its call) refuses
/// every operation with an `argument` error instead of touching freed memory.
package final class SQLiteStatement {
  /// The sqlite3_stmt, or nil once finalized.
  private(set) var handle: OpaquePointer?
  /// The connection's sqlite3 handle, for error messages.
  private let database: OpaquePointer
  /// The file of the connection, for error messages.
  private let path: String
  /// The SQL text, as prepared.
  package let sql: String
  /// True while a `withStatement` call is using this statement.
  var inUse = false

  /// Wraps a prepared statement; the new object owns `handle` and finalizes it.
  init(handle: OpaquePointer, database: OpaquePointer, path: String, sql: String) {
    self.handle = handle
    self.database = database
    self.path = path
    self.sql = sql
  }

  deinit { finalize() }

  /// Releases the statement (idempotent).
  func finalize() {
    if let handle {
      sqlite3_finalize(handle)
      self.handle = nil
    }
  }

  /// Resets the statement for another run and clears its bindings (so no
  /// parameter keeps borrowed bytes past the run).
  package func reset() {
    guard let handle else { return }
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  /// The live handle, or the error of a statement used after its connection closed.
  private func live() throws(StrataError) -> OpaquePointer {
    guard let handle else {
      throw SQLiteError.store(
        .argument, "an SQLite statement was used after its connection closed", path: path)
    }
    return handle
  }

  /// Turns a bind result into an error.
  private func check(_ result: Int32, _ doing: String) throws(StrataError) {
    if result != SQLITE_OK { throw SQLiteError.make(result, handle: database, doing: doing, path: path) }
  }

  // MARK: binding (parameters count from 1, as in SQLite)

  /// Binds UTF-8 text (which may contain NUL) to parameter `index`; SQLite copies it.
  package func bind(_ index: Int32, text: String) throws(StrataError) {
    let statement = try live()
    var copy = text
    let result = copy.withUTF8 { bytes in bindText(statement, index, bytes) }
    try check(result, "bind a value for")
  }

  /// Binds UTF-8 bytes as text to parameter `index`; SQLite copies them.
  package func bind(_ index: Int32, textBytes bytes: UnsafeBufferPointer<UInt8>) throws(StrataError) {
    let statement = try live()
    try check(bindText(statement, index, bytes), "bind a value for")
  }

  /// Binds UTF-8 bytes as text to parameter `index` without a copy
  /// (SQLITE_STATIC): SQLite reads them where they are when the statement
  /// runs, so they must outlive its run; `reset` clears the binding. A
  /// copy (SQLITE_TRANSIENT) costs a free, a malloc and a memcpy each
  /// bind, as SQLite frees a parameter's buffer when it is bound again.
  package func bind(_ index: Int32, borrowedText bytes: UnsafeBufferPointer<UInt8>) throws(StrataError) {
    let statement = try live()
    try check(bindText(statement, index, bytes, copying: false), "bind a value for")
  }

  /// sqlite3_bind_text64 over a buffer that may be empty (then bound as
  /// ""), copied by SQLite unless `copying` is false.
  private func bindText(
    _ statement: OpaquePointer, _ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>, copying: Bool = true
  ) -> Int32 {
    let raw = UnsafeRawBufferPointer(bytes)
    if let base = raw.baseAddress {
      return sqlite3_bind_text64(
        statement, index, base.assumingMemoryBound(to: CChar.self), UInt64(raw.count),
        copying ? strata_sqlite_transient() : nil, UInt8(SQLITE_UTF8))
    }
    return sqlite3_bind_text64(statement, index, "", 0, nil, UInt8(SQLITE_UTF8))
  }

  /// Binds a 64-bit integer to parameter `index`.
  package func bind(_ index: Int32, int value: Int64) throws(StrataError) {
    let statement = try live()
    try check(sqlite3_bind_int64(statement, index, value), "bind a value for")
  }

  /// Binds a real number to parameter `index`.
  package func bind(_ index: Int32, double value: Double) throws(StrataError) {
    let statement = try live()
    try check(sqlite3_bind_double(statement, index, value), "bind a value for")
  }

  /// Binds a blob of `bytes` (empty allowed: a blob of length 0, not
  /// NULL) to parameter `index`; SQLite copies it.
  package func bind(_ index: Int32, blob bytes: [UInt8]) throws(StrataError) {
    let statement = try live()
    let result =
      bytes.isEmpty
      ? sqlite3_bind_zeroblob(statement, index, 0)
      : bytes.withUnsafeBytes { raw in
        sqlite3_bind_blob64(statement, index, raw.baseAddress, UInt64(raw.count), strata_sqlite_transient())
      }
    try check(result, "bind a value for")
  }

  /// Binds SQL NULL to parameter `index`.
  package func bindNull(_ index: Int32) throws(StrataError) {
    let statement = try live()
    try check(sqlite3_bind_null(statement, index), "bind a value for")
  }

  // MARK: stepping

  /// Runs the statement one step: true when a row is ready to be read, false
  /// when the statement is done. Any other result is an error (the statement
  /// is then reset, so SQLite keeps no half-run state).
  package func step() throws(StrataError) -> Bool {
    let statement = try live()
    let result = sqlite3_step(statement)
    switch result {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      let error = SQLiteError.make(result, handle: database, doing: "run SQL on", path: path)
      sqlite3_reset(statement)
      throw error
    }
  }

  /// Steps until the statement is done, ignoring any rows.
  package func run() throws(StrataError) {
    while try step() {}
  }

  // MARK: columns (count from 0, as in SQLite); valid after `step()` returned true

  /// The number of columns of the result.
  package var columnCount: Int32 {
    guard let handle else { return 0 }
    return sqlite3_column_count(handle)
  }

  /// True when `index` names a column of the current row.
  private func hasColumn(_ index: Int32) -> Bool { index >= 0 && index < columnCount }

  /// The SQLite type of column `index` (SQLITE_INTEGER, SQLITE_TEXT, ...;
  /// SQLITE_NULL for a column that does not exist).
  package func columnType(_ index: Int32) -> Int32 {
    guard let handle, hasColumn(index) else { return SQLITE_NULL }
    return sqlite3_column_type(handle, index)
  }

  /// Column `index` as an integer (0 for NULL or a missing column).
  package func int64(_ index: Int32) -> Int64 {
    guard let handle, hasColumn(index) else { return 0 }
    return sqlite3_column_int64(handle, index)
  }

  /// Column `index` as a real number (0 for NULL or a missing column).
  package func double(_ index: Int32) -> Double {
    guard let handle, hasColumn(index) else { return 0 }
    return sqlite3_column_double(handle, index)
  }

  /// The bytes of column `index` when it holds a blob, else nil.
  package func blob(_ index: Int32) -> [UInt8]? {
    guard let handle, hasColumn(index), sqlite3_column_type(handle, index) == SQLITE_BLOB else { return nil }
    // sqlite3_column_blob before sqlite3_column_bytes, as SQLite asks.
    guard let base = sqlite3_column_blob(handle, index) else { return [] }
    let count = Int(sqlite3_column_bytes(handle, index))
    return Array(UnsafeRawBufferPointer(start: base, count: max(count, 0)))
  }

  /// Calls `body` with the UTF-8 bytes of column `index` when it holds text
  /// (nil for NULL, a blob, a number or a missing column); the bytes are valid
  /// only during the call.
  package func withText<R>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>?) throws(StrataError) -> R)
    throws(StrataError) -> R
  {
    guard let handle, hasColumn(index), sqlite3_column_type(handle, index) == SQLITE_TEXT else {
      return try body(nil)
    }
    let base = sqlite3_column_text(handle, index)
    let count = Int(sqlite3_column_bytes(handle, index))
    guard let base, count > 0 else {
      var empty: UInt8 = 0
      return try withUnsafePointer(to: &empty) { (pointer) throws(StrataError) -> R in
        try body(UnsafeBufferPointer(start: pointer, count: 0))
      }
    }
    return try body(UnsafeBufferPointer(start: base, count: count))
  }

  /// Column `index` as a Swift string when it holds text, else nil.
  package func text(_ index: Int32) -> String? {
    guard let handle, hasColumn(index), sqlite3_column_type(handle, index) == SQLITE_TEXT else { return nil }
    // sqlite3_column_text before sqlite3_column_bytes, as SQLite asks.
    guard let base = sqlite3_column_text(handle, index) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, index))
    return String(decoding: UnsafeBufferPointer(start: base, count: max(count, 0)), as: UTF8.self)
  }
}
