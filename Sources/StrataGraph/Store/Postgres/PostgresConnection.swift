import Glibc
import Strata

/// One connection to a PostgreSQL database through libpq (`LibPQ`), for
/// the graph's PostgreSQL store: statements with bound parameters only (no
/// value is ever spliced into SQL), rows read as `SQLCell`s by their
/// columns' types, transactions.
///
/// Every failure is a `StrataError` with one detail naming the server
/// (its URL with the password hidden) and the server's own message and
/// SQLSTATE: `io` when the server or the network failed, refused the login,
/// or gave up a transaction (a serialization failure or a deadlock: its
/// SQLSTATE is `lastSQLState`, for the caller to retry), `argument` for a
/// wrong request. A connection the server dropped is opened again by the
/// next call, so it is usable once the server is back. Not `Sendable`: one
/// thread at a time, as `SQLiteConnection`.
package final class PostgresConnection {
  /// Where the connection goes.
  package let url: PostgresURL
  private let pq: LibPQ
  private var handle: OpaquePointer?
  /// The SQLSTATE of the last failed statement (`40001`: serialization
  /// failure, `40P01`: deadlock), or nil after a statement that succeeded.
  package private(set) var lastSQLState: String?
  /// The statements prepared on the connection: SQL -> name (forgotten
  /// when the connection is opened again).
  private var prepared: [String: String] = [:]
  /// True while statements `send` sent wait for their answers.
  private var pipelining = false
  /// How many answers the statements sent wait for.
  private var unanswered = 0

  /// Connects to `url` (see `PostgresURL`) with `library` (libpq as found
  /// by default when nil); with a `schema=`, creates that schema when it
  /// does not exist and makes it the connection's `search_path`.
  package init(url text: String, library: LibPQ? = nil) throws(StrataError) {
    url = try PostgresURL(text)
    if let library {
      pq = library
    } else {
      pq = try LibPQ.shared.get()
    }
    try connect()
  }

  deinit { close() }

  /// Closes the connection (idempotent); the next call opens it again.
  package func close() {
    if let handle { pq.finish(handle) }
    handle = nil
    prepared = [:]
    pipelining = false
    unanswered = 0
  }

  /// True while the connection is open and the server has not dropped it.
  package var isConnected: Bool {
    guard let handle else { return false }
    return pq.status(handle) == Self.connectionOK
  }

  /// True inside a transaction (`BEGIN` ... `COMMIT`/`ROLLBACK`).
  package var inTransaction: Bool {
    guard let handle else { return false }
    let state = pq.transactionStatus(handle)
    return state == Self.inTransactionState || state == Self.inFailedTransaction
  }

  /// Runs `sql` with `parameters` bound to `$1`, `$2`, ... (as text; the
  /// server reads them by the types the statement gives them); the rows it
  /// returns (none for a statement that returns none).
  /// A statement with parameters is prepared on the server at its first
  /// run on this connection (`PQprepare`) and run by name after, so that
  /// the server parses and plans it once. Statements sent with `send` and
  /// not yet answered are answered first (`flush`).
  @discardableResult
  package func execute(_ sql: String, _ parameters: [SQLCell] = []) throws(StrataError) -> PostgresRows {
    try flush()
    let connection = try live()
    let result: OpaquePointer?
    if parameters.isEmpty {
      result = pq.execParams(connection, sql, 0, nil, nil, nil, nil, 0)
    } else {
      let name = try preparedName(sql, on: connection)
      result = try withParameterTexts(parameters) { values in
        pq.execPrepared(connection, name, Int32(parameters.count), values, nil, nil, 0)
      }
    }
    defer { if let result { pq.clear(result) } }
    guard let result else {
      throw failure(.io, "the server gave no result: \(message(of: connection))")
    }
    switch pq.resultStatus(result) {
    case Self.commandOK:
      lastSQLState = nil
      return PostgresRows(columns: [], rows: [])
    case Self.tuplesOK:
      lastSQLState = nil
      return rows(of: result)
    default:
      throw statementFailure(result, connection)
    }
  }

  /// Sends `sql` with `parameters` without waiting for its answer: the
  /// statements sent go to the server together (libpq's pipeline mode) and
  /// are answered at the next `flush` (or the next `execute`, which flushes
  /// first), where the first that failed is thrown. For statements whose
  /// rows nobody reads (the store's writes), in a transaction: one that
  /// fails makes the server skip the rest, and the transaction is then
  /// rolled back as after any failed statement.
  package func send(_ sql: String, _ parameters: [SQLCell]) throws(StrataError) {
    let connection = try live()
    if !pipelining {
      guard pq.enterPipelineMode(connection) == 1 else {
        throw failure(.io, "cannot enter pipeline mode: \(message(of: connection))")
      }
      pipelining = true
    }
    let name: String
    if let known = prepared[sql] {
      name = known
    } else {
      name = "strata_\(prepared.count + 1)"
      guard pq.sendPrepare(connection, name, sql, Int32(parameters.count), nil) == 1 else {
        throw failure(.io, "cannot send a statement: \(message(of: connection))")
      }
      prepared[sql] = name
      unanswered += 1
    }
    let sent = try withParameterTexts(parameters) { values in
      pq.sendQueryPrepared(connection, name, Int32(parameters.count), values, nil, nil, 0)
    }
    guard sent == 1 else { throw failure(.io, "cannot send a statement: \(message(of: connection))") }
    unanswered += 1
    if unanswered >= Self.pipelineDepth { try flush() }
  }

  /// How many statements `send` lets wait for their answers at most: their
  /// answers must fit in the socket's buffers, or the server, unread, would
  /// stop reading what is sent.
  package static let pipelineDepth = 512

  /// Reads the answers of the statements `send` sent, and leaves pipeline
  /// mode; the first failure is thrown (after every answer was read).
  package func flush() throws(StrataError) {
    guard pipelining, let connection = handle else { return }
    pipelining = false
    defer {
      unanswered = 0
      _ = pq.exitPipelineMode(connection)
    }
    guard pq.pipelineSync(connection) == 1 else {
      throw failure(.io, "cannot send to the server: \(message(of: connection))")
    }
    var first: StrataError? = nil
    var idle = 0
    while true {
      guard let result = pq.getResult(connection) else {
        // one NULL ends each statement's answers; two in a row: nothing more will come
        idle += 1
        if idle > 1 || pq.status(connection) != Self.connectionOK {
          throw first ?? failure(.io, "the connection was lost: \(message(of: connection))")
        }
        continue
      }
      idle = 0
      defer { pq.clear(result) }
      let status = pq.resultStatus(result)
      if status == Self.pipelineSync { break }
      if status != Self.commandOK && status != Self.tuplesOK && status != Self.pipelineAborted && first == nil
      {
        first = statementFailure(result, connection)
      }
    }
    if let first { throw first }
    lastSQLState = nil
  }

  /// The name of `sql` prepared on the connection (prepared now when it is not yet).
  private func preparedName(_ sql: String, on connection: OpaquePointer) throws(StrataError) -> String {
    if let name = prepared[sql] { return name }
    let name = "strata_\(prepared.count + 1)"
    guard let result = pq.prepare(connection, name, sql, 0, nil) else {
      throw failure(.io, "the server gave no result: \(message(of: connection))")
    }
    defer { pq.clear(result) }
    guard pq.resultStatus(result) == Self.commandOK else { throw statementFailure(result, connection) }
    prepared[sql] = name
    return name
  }

  /// Calls `body` with the parameters as C strings (NULL for SQL NULL).
  private func withParameterTexts<R>(
    _ parameters: [SQLCell], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R
  ) throws(StrataError) -> R {
    // every parameter's text, NUL-terminated, in one buffer; nil for NULL
    var bytes: [CChar] = []
    var starts: [Int] = []
    starts.reserveCapacity(parameters.count)
    for (index, parameter) in parameters.enumerated() {
      if case .null = parameter {
        starts.append(-1)
        continue
      }
      starts.append(bytes.count)
      if let reason = Self.appendText(parameter, to: &bytes) {
        throw failure(.argument, "cannot send parameter $\(index + 1) (\(reason))")
      }
      bytes.append(0)
    }
    return bytes.withUnsafeBufferPointer { buffer in
      var pointers: [UnsafePointer<CChar>?] = []
      pointers.reserveCapacity(starts.count)
      for start in starts { pointers.append(start < 0 ? nil : buffer.baseAddress.map { $0 + start }) }
      return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
  }

  /// Appends the text PostgreSQL reads `cell` from (not NULL) to `bytes`;
  /// the reason it cannot be sent, or nil.
  static func appendText(_ cell: SQLCell, to bytes: inout [CChar]) -> String? {
    switch cell {
    case .null: return nil
    case .integer(let value):
      if value < 0 { bytes.append(45) }  // "-"
      // the magnitude's digits, last first, then turned around
      let first = bytes.count
      var magnitude = value.magnitude
      repeat {
        bytes.append(CChar(48 + Int(magnitude % 10)))
        magnitude /= 10
      } while magnitude > 0
      bytes[first...].reverse()
      return nil
    case .real, .blob:
      guard case .success(let text?) = parameterText(cell) else { return "a number that is not finite" }
      bytes += text.utf8.map { CChar(bitPattern: $0) }
      return nil
    case .text(var text):
      return text.withUTF8 { utf8 -> String? in
        guard let base = utf8.baseAddress else { return nil }
        if memchr(base, 0, utf8.count) != nil { return "PostgreSQL text cannot hold a NUL character" }
        base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
          bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: utf8.count))
        }
        return nil
      }
    }
  }

  /// `BEGIN`, `body`, `COMMIT`; rolled back when `body` or the commit fails
  /// (the first error is thrown). `begin` may name the transaction's mode
  /// (`BEGIN ISOLATION LEVEL SERIALIZABLE`).
  @discardableResult
  package func transaction<R>(begin: String = "BEGIN", _ body: () throws(StrataError) -> R)
    throws(StrataError)
    -> R
  {
    try execute(begin)
    do {
      let result = try body()
      // `body` may have committed already (the graph's commit does, before memory takes the change)
      if inTransaction { try execute("COMMIT") }
      return result
    } catch {
      // the SQLSTATE stays the failure's, not the rollback's
      let state = lastSQLState
      if isConnected, inTransaction { _ = try? execute("ROLLBACK") }
      lastSQLState = state
      throw error
    }
  }

  /// How many times `writeTransaction` runs a transaction the server gave
  /// up (a serialization failure or a deadlock) before its error is thrown.
  package static let writeAttempts = 5

  /// A write transaction of the graph: `BEGIN`, then PostgreSQL's
  /// transaction-scoped advisory lock `lock` (`pg_advisory_xact_lock`:
  /// writers of one graph take turns, as SQLite's `BEGIN IMMEDIATE` makes
  /// them; readers never wait), `body`, `COMMIT`. A transaction the server
  /// gave up (SQLSTATE 40001, a serialization failure; 40P01, a deadlock)
  /// is rolled back and run again, `body` included, up to `writeAttempts`
  /// times in all; then its error is thrown. Any other error is thrown at
  /// once, the transaction rolled back. The result, and how many times the
  /// transaction was run again (for the import's warnings).
  package func writeTransaction<R>(lock: Int64, _ body: () throws(StrataError) -> R) throws(StrataError)
    -> (result: R, retries: Int)
  {
    var retries = 0
    while true {
      do {
        let result = try transaction { () throws(StrataError) -> R in
          try execute("SELECT pg_advisory_xact_lock($1)", [.integer(lock)])
          return try body()
        }
        return (result, retries)
      } catch {
        guard Self.isRetryable(lastSQLState), retries + 1 < Self.writeAttempts else { throw error }
        retries += 1
      }
    }
  }

  /// True for the SQLSTATEs of a transaction the server gave up, which
  /// succeeds when run again: serialization failure, deadlock.
  static func isRetryable(_ state: String?) -> Bool { state == "40001" || state == "40P01" }

  // MARK: the connection

  /// The open connection: opened again when the server dropped it.
  private func live() throws(StrataError) -> OpaquePointer {
    if let handle, pq.status(handle) == Self.connectionOK { return handle }
    close()
    try connect()
    guard let handle else { throw failure(.io, "cannot connect") }
    return handle
  }

  private func connect() throws(StrataError) {
    guard let made = pq.connectdb(url.connectionString) else {
      throw StrataError(code: .oom, message: "out of memory connecting to PostgreSQL")
    }
    guard pq.status(made) == Self.connectionOK else {
      let reason = message(of: made)
      pq.finish(made)
      throw failure(.io, "cannot connect: \(reason)")
    }
    // the server's notices (a table that exists already, ...) are not the host's to print
    _ = pq.setNoticeProcessor(made, ignoreNotice, nil)
    handle = made
    guard let schema = url.quotedSchema else { return }
    do throws(StrataError) {
      do throws(StrataError) {
        try execute("CREATE SCHEMA IF NOT EXISTS \(schema)")
      } catch  where lastSQLState == "23505" || lastSQLState == "42P06" {
        // another connection created it at the same moment
      }
      try execute("SET search_path TO \(schema)")
    } catch {
      close()
      throw error
    }
  }

  private func message(of connection: OpaquePointer) -> String {
    guard let text = pq.errorMessage(connection) else { return "no message" }
    return Self.trimmed(String(cString: text))
  }

  private func failure(_ code: ErrorCode, _ what: String) -> StrataError {
    StrataError(code: code, message: "PostgreSQL at \(url.shown): \(what)")
  }

  /// The error of a statement that failed: `io` for the server, the
  /// network and transactions it gave up; `argument` for the request.
  private func statementFailure(_ result: OpaquePointer, _ connection: OpaquePointer) -> StrataError {
    let state = pq.resultErrorField(result, Self.sqlStateField).map { String(cString: $0) }
    lastSQLState = state
    var text = pq.resultErrorField(result, Self.primaryMessageField).map { String(cString: $0) }
    if text == nil { text = message(of: connection) }
    let suffix = state.map { " (SQLSTATE \($0))" } ?? ""
    if pq.status(connection) != Self.connectionOK {
      return failure(.io, "the connection was lost: \(text ?? "")\(suffix)")
    }
    let request = state.map { $0.hasPrefix("22") || $0.hasPrefix("23") || $0.hasPrefix("42") } ?? false
    return failure(request ? .argument : .io, "\(text ?? "the statement failed")\(suffix)")
  }

  // MARK: values

  /// A parameter as the text the server reads (nil for NULL), or why it
  /// cannot be sent.
  static func parameterText(_ cell: SQLCell) -> Result<String?, ParameterError> {
    switch cell {
    case .null: return .success(nil)
    case .integer(let value): return .success(String(value))
    case .real(let value):
      guard value.isFinite else { return .failure(ParameterError(reason: "a number that is not finite")) }
      return .success("\(value)")
    case .text(let text):
      guard !text.utf8.contains(0) else {
        return .failure(ParameterError(reason: "PostgreSQL text cannot hold a NUL character"))
      }
      return .success(text)
    case .blob(let bytes):
      return .success("\\x" + SQLText.hex(bytes))
    }
  }

  /// Why a parameter cannot be sent.
  struct ParameterError: Error {
    let reason: String
  }

  /// The rows of a result, each cell read by its column's type: integers
  /// and booleans (0 or 1) as `.integer`, floating and numeric as `.real`,
  /// `bytea` as `.blob`, anything else as its text.
  private func rows(of result: OpaquePointer) -> PostgresRows {
    let count = Int(pq.ntuples(result))
    let width = Int(pq.nfields(result))
    var columns: [String] = []
    var types: [UInt32] = []
    for column in 0..<width {
      columns.append(pq.fname(result, Int32(column)).map { String(cString: $0) } ?? "")
      types.append(pq.ftype(result, Int32(column)))
    }
    var rows: [[SQLCell]] = []
    rows.reserveCapacity(count)
    for row in 0..<count {
      var cells: [SQLCell] = []
      cells.reserveCapacity(width)
      for column in 0..<width {
        let (r, c) = (Int32(row), Int32(column))
        if pq.getisnull(result, r, c) != 0 {
          cells.append(.null)
          continue
        }
        let length = Int(pq.getlength(result, r, c))
        let bytes = pq.getvalue(result, r, c).map {
          UnsafeRawBufferPointer(start: $0, count: length)
        }
        let text = bytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
        cells.append(Self.cell(text, type: types[column]))
      }
      rows.append(cells)
    }
    return PostgresRows(columns: columns, rows: rows)
  }

  /// A cell's text as a value of its column's type (by type OID).
  package static func cell(_ text: String, type: UInt32) -> SQLCell {
    switch type {
    case 16: return .integer(text == "t" ? 1 : 0)  // bool
    case 20, 21, 23, 26: return Int64(text).map(SQLCell.integer) ?? .text(text)  // int8, int2, int4, oid
    case 700, 701, 1700:  // float4, float8, numeric
      switch text {
      case "Infinity": return .real(.infinity)
      case "-Infinity": return .real(-.infinity)
      case "NaN": return .real(.nan)
      default: return Double(text).map(SQLCell.real) ?? .text(text)
      }
    case 17:  // bytea, in the hex format (\x...)
      return blob(hexText: text).map(SQLCell.blob) ?? .text(text)
    default: return .text(text)
    }
  }

  /// The bytes of `\x` followed by hex digits, or nil.
  package static func blob(hexText text: String) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0
    else { return nil }
    let digit = PostgresURL.hexDigit
    var out: [UInt8] = []
    out.reserveCapacity(utf8.count / 2 - 1)
    var index = 2
    while index < utf8.count {
      guard let high = digit(utf8[index]), let low = digit(utf8[index + 1]) else { return nil }
      out.append(high << 4 | low)
      index += 2
    }
    return out
  }

  /// A message without its trailing newline.
  static func trimmed(_ text: String) -> String {
    var out = Substring(text)
    while let last = out.last, last == "\n" || last == " " { out = out.dropLast() }
    return String(out)
  }

  // libpq's constants (libpq-fe.h)
  static let connectionOK: Int32 = 0
  static let commandOK: Int32 = 1
  static let tuplesOK: Int32 = 2
  static let pipelineSync: Int32 = 10
  static let pipelineAborted: Int32 = 11
  static let inTransactionState: Int32 = 2
  static let inFailedTransaction: Int32 = 3
  static let sqlStateField = Int32(UInt8(ascii: "C"))
  static let primaryMessageField = Int32(UInt8(ascii: "M"))
}

/// The rows a statement returned: the columns' names, and each row's cells.
package struct PostgresRows {
  /// The columns' names, in order.
  package var columns: [String]
  /// The rows, each a cell per column.
  package var rows: [[SQLCell]]
}

/// libpq's notice processor for the graph's connections: notices are dropped.
private func ignoreNotice(_: UnsafeMutableRawPointer?, _: UnsafePointer<CChar>?) {}
