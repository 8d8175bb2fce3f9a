import CSQLite
import Strata

/// A statement of a `PostgresConnection` with the store's statement API
/// (`StoreStatement`), so that the store's code, written with SQLite's `?`
/// parameters, runs on PostgreSQL as it is: its `?` become `$1`, `$2`, ...
/// (`placeholders`); the parameters bound are sent with the statement at
/// its first `step()`, which fetches the rows; later steps go through them.
package final class PostgresStatement: StoreStatement {
  /// The connection that runs the statement.
  private let connection: PostgresConnection
  /// The SQL text as PostgreSQL reads it (`$n` parameters).
  package let sql: String
  /// The parameters bound so far, by index from 0 (NULL where none was).
  private var parameters: [SQLCell]
  /// The rows of the run, once `step()` ran it.
  private var result: PostgresRows?
  /// The index of the current row in `result`, or -1 before the first.
  private var row = -1

  /// True when `run()` sends the statement without waiting for its answer
  /// (`PostgresConnection.send`; the store's writes).
  private let sends: Bool

  /// A statement of `sql` (with `?` parameters) on `connection`; with
  /// `sends`, `run()` sends it without waiting for its answer.
  package convenience init(_ sql: String, on connection: PostgresConnection, sends: Bool = false) {
    self.init(converted: Self.placeholders(sql), on: connection, sends: sends)
  }

  /// A statement of SQL already in PostgreSQL's form (`placeholders`: the
  /// text with `$n` parameters, and their number).
  package init(converted: (sql: String, count: Int), on connection: PostgresConnection, sends: Bool = false) {
    self.connection = connection
    self.sends = sends
    self.sql = converted.sql
    self.parameters = Array(repeating: .null, count: converted.count)
  }

  // MARK: binding

  private func set(_ index: Int32, _ cell: SQLCell) throws(StrataError) {
    guard index >= 1, Int(index) <= parameters.count else {
      throw StrataError(
        code: .argument,
        message: "no parameter \(index) in the statement (it has \(parameters.count)): \(sql)")
    }
    parameters[Int(index) - 1] = cell
  }

  package func bind(_ index: Int32, text: String) throws(StrataError) { try set(index, .text(text)) }

  package func bind(_ index: Int32, textBytes bytes: UnsafeBufferPointer<UInt8>) throws(StrataError) {
    try set(index, .text(String(decoding: bytes, as: UTF8.self)))
  }

  package func bind(_ index: Int32, int value: Int64) throws(StrataError) { try set(index, .integer(value)) }

  package func bind(_ index: Int32, double value: Double) throws(StrataError) { try set(index, .real(value)) }

  package func bind(_ index: Int32, blob bytes: [UInt8]) throws(StrataError) { try set(index, .blob(bytes)) }

  package func bindNull(_ index: Int32) throws(StrataError) { try set(index, .null) }

  // MARK: running

  package func step() throws(StrataError) -> Bool {
    if result == nil {
      result = try connection.execute(sql, parameters)
      row = -1
    }
    guard let result, row + 1 < result.rows.count else {
      row = result?.rows.count ?? 0
      return false
    }
    row += 1
    return true
  }

  package func run() throws(StrataError) {
    if sends && result == nil {
      try connection.send(sql, parameters)
      result = PostgresRows(columns: [], rows: [])
      return
    }
    while try step() {}
  }

  package func reset() {
    result = nil
    row = -1
    for index in parameters.indices { parameters[index] = .null }
  }

  // MARK: columns

  /// The cell of column `index` of the current row, or NULL.
  private func current(_ index: Int32) -> SQLCell {
    guard let result, row >= 0, row < result.rows.count, index >= 0, Int(index) < result.rows[row].count
    else {
      return .null
    }
    return result.rows[row][Int(index)]
  }

  package var columnCount: Int32 { Int32(result?.columns.count ?? 0) }

  package func columnType(_ index: Int32) -> Int32 {
    switch current(index) {
    case .null: return SQLITE_NULL
    case .integer: return SQLITE_INTEGER
    case .real: return SQLITE_FLOAT
    case .text: return SQLITE_TEXT
    case .blob: return SQLITE_BLOB
    }
  }

  package func int64(_ index: Int32) -> Int64 {
    switch current(index) {
    case .integer(let value): return value
    case .real(let value): return value.isFinite ? Int64(exactly: value.rounded(.towardZero)) ?? 0 : 0
    case .text(let text): return Int64(text) ?? 0
    default: return 0
    }
  }

  package func double(_ index: Int32) -> Double {
    switch current(index) {
    case .real(let value): return value
    case .integer(let value): return Double(value)
    case .text(let text): return Double(text) ?? 0
    default: return 0
    }
  }

  package func blob(_ index: Int32) -> [UInt8]? {
    if case .blob(let bytes) = current(index) { return bytes }
    return nil
  }

  package func text(_ index: Int32) -> String? {
    if case .text(let text) = current(index) { return text }
    return nil
  }

  package func withText<R>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>?) throws(StrataError) -> R)
    throws(StrataError) -> R
  {
    guard case .text(var text) = current(index) else { return try body(nil) }
    let result = text.withUTF8 { bytes in
      Result { () throws(StrataError) -> R in try body(bytes) }
    }
    return try result.get()
  }

  // MARK: SQL text

  /// `sql` with each `?` parameter outside quoted text, quoted names and
  /// comments written as `$1`, `$2`, ... in order, and their count.
  package static func placeholders(_ sql: String) -> (sql: String, count: Int) {
    var out: [UInt8] = []
    out.reserveCapacity(sql.utf8.count + 16)
    var count = 0
    var quote: UInt8? = nil  // ' or " while inside one
    var lineComment = false
    var blockComment = false
    let bytes = Array(sql.utf8)
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      let next: UInt8? = index + 1 < bytes.count ? bytes[index + 1] : nil
      if let open = quote {
        out.append(byte)
        if byte == open {
          if next == open {  // a doubled quote stays inside
            out.append(open)
            index += 1
          } else {
            quote = nil
          }
        }
      } else if lineComment {
        out.append(byte)
        if byte == UInt8(ascii: "\n") { lineComment = false }
      } else if blockComment {
        out.append(byte)
        if byte == UInt8(ascii: "*") && next == UInt8(ascii: "/") {
          out.append(UInt8(ascii: "/"))
          index += 1
          blockComment = false
        }
      } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
        quote = byte
        out.append(byte)
      } else if byte == UInt8(ascii: "-") && next == UInt8(ascii: "-") {
        lineComment = true
        out.append(byte)
      } else if byte == UInt8(ascii: "/") && next == UInt8(ascii: "*") {
        blockComment = true
        out.append(contentsOf: [byte, UInt8(ascii: "*")])
        index += 1
      } else if byte == UInt8(ascii: "?") {
        count += 1
        out.append(contentsOf: Array("$\(count)".utf8))
      } else {
        out.append(byte)
      }
      index += 1
    }
    return (String(decoding: out, as: UTF8.self), count)
  }
}

extension PostgresConnection {
  /// Calls `body` with a statement of `sql` (SQLite's `?` parameters; see
  /// `PostgresStatement`), as `SQLiteConnection.withStatement` does.
  package func withStatement<R>(_ sql: String, _ body: (PostgresStatement) throws(StrataError) -> R)
    throws(StrataError) -> R
  {
    try body(PostgresStatement(sql, on: self))
  }
}
