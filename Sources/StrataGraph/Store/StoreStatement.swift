import CSQLite
import Strata

/// A statement of the graph's store, whichever database runs it: what the
/// store's code does with one (bind parameters counted from 1, step through
/// rows, read columns counted from 0, as SQLite does). `SQLiteStatement`
/// is one; `PostgresStatement` is the same for PostgreSQL, so that the
/// store's reads and writes can be written once for both.
package protocol StoreStatement: AnyObject {
  /// Binds UTF-8 text to parameter `index`.
  func bind(_ index: Int32, text: String) throws(StrataError)
  /// Binds UTF-8 bytes as text to parameter `index`.
  func bind(_ index: Int32, textBytes bytes: UnsafeBufferPointer<UInt8>) throws(StrataError)
  /// Binds UTF-8 bytes as text to parameter `index`, perhaps without
  /// copying them: they must stay as they are until the statement is reset
  /// (the end of the `withStatement` call that binds them).
  func bind(_ index: Int32, borrowedText bytes: UnsafeBufferPointer<UInt8>) throws(StrataError)
  /// Binds an integer to parameter `index`.
  func bind(_ index: Int32, int value: Int64) throws(StrataError)
  /// Binds a real number to parameter `index`.
  func bind(_ index: Int32, double value: Double) throws(StrataError)
  /// Binds bytes as a blob to parameter `index`.
  func bind(_ index: Int32, blob bytes: [UInt8]) throws(StrataError)
  /// Binds NULL to parameter `index`.
  func bindNull(_ index: Int32) throws(StrataError)
  /// Runs the statement one step: true when a row is ready to be read.
  func step() throws(StrataError) -> Bool
  /// Runs the statement to its end, ignoring any rows.
  func run() throws(StrataError)
  /// Makes the statement ready to run again, its parameters unbound.
  func reset()
  /// The number of columns of the result.
  var columnCount: Int32 { get }
  /// The type of column `index` of the current row, as SQLite names types
  /// (SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL).
  func columnType(_ index: Int32) -> Int32
  /// Column `index` as an integer (0 for NULL or a missing column).
  func int64(_ index: Int32) -> Int64
  /// Column `index` as a real number (0 for NULL or a missing column).
  func double(_ index: Int32) -> Double
  /// The bytes of column `index` when it holds a blob, else nil.
  func blob(_ index: Int32) -> [UInt8]?
  /// Column `index` as a string when it holds text, else nil.
  func text(_ index: Int32) -> String?
  /// Calls `body` with the UTF-8 bytes of column `index` when it holds text
  /// (nil otherwise), valid only during the call.
  func withText<R>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>?) throws(StrataError) -> R)
    throws(StrataError) -> R
}

extension SQLiteStatement: StoreStatement {}

extension StoreStatement {
  /// Binds the bytes as `textBytes` does (a copy).
  package func bind(_ index: Int32, borrowedText bytes: UnsafeBufferPointer<UInt8>) throws(StrataError) {
    try bind(index, textBytes: bytes)
  }

  /// Binds `cell` to parameter `index`.
  package func bind(_ index: Int32, cell: SQLCell) throws(StrataError) {
    switch cell {
    case .null: try bindNull(index)
    case .integer(let value): try bind(index, int: value)
    case .real(let value): try bind(index, double: value)
    case .text(let value): try bind(index, text: value)
    case .blob(let bytes): try bind(index, blob: bytes)
    }
  }

  /// Binds `cells` to the parameters from `first` on; returns the next parameter.
  @discardableResult
  package func bind(_ first: Int32, cells: [SQLCell]) throws(StrataError) -> Int32 {
    var index = first
    for cell in cells {
      try bind(index, cell: cell)
      index += 1
    }
    return index
  }

  /// Column `index` of the current row.
  package func cell(_ index: Int32) -> SQLCell {
    switch columnType(index) {
    case SQLITE_INTEGER: return .integer(int64(index))
    case SQLITE_FLOAT: return .real(double(index))
    case SQLITE_TEXT: return .text(text(index) ?? "")
    case SQLITE_BLOB: return .blob(blob(index) ?? [])
    default: return .null
    }
  }
}
