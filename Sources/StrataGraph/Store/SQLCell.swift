import CSQLite
import Strata

/// The value of one SQLite cell, as the graph file's rows hold them.
package enum SQLCell: Equatable, Sendable {
  /// SQL NULL.
  case null
  /// An INTEGER.
  case integer(Int64)
  /// A REAL.
  case real(Double)
  /// TEXT.
  case text(String)
  /// A BLOB: in key columns, the mark of a key Strata made (docs/graph.md).
  case blob([UInt8])

  /// True for SQL NULL.
  var isNull: Bool { if case .null = self { return true } else { return false } }

  /// Whether the cells `a` come before `b` in SQLite's order (NULL, then
  /// numbers, then text by bytes, then blobs by bytes; cell by cell), or
  /// nil when they are equal.
  static func compare(_ a: [SQLCell], _ b: [SQLCell]) -> Bool? {
    for (left, right) in zip(a, b) {
      if let before = left.compare(right) { return before }
    }
    return a.count == b.count ? nil : a.count < b.count
  }

  /// Whether this cell comes before `other` in SQLite's order, or nil when they are equal.
  private func compare(_ other: SQLCell) -> Bool? {
    switch (self, other) {
    case (.null, .null): return nil
    case (.integer(let a), .integer(let b)): return a == b ? nil : a < b
    case (.real(let a), .real(let b)): return a == b ? nil : a < b
    case (.integer(let a), .real(let b)): return Double(a) == b ? nil : Double(a) < b
    case (.real(let a), .integer(let b)): return a == Double(b) ? nil : a < Double(b)
    case (.text(let a), .text(let b)):
      return a.utf8.elementsEqual(b.utf8) ? nil : a.utf8.lexicographicallyPrecedes(b.utf8)
    case (.blob(let a), .blob(let b)): return a == b ? nil : a.lexicographicallyPrecedes(b)
    default: return rank < other.rank
    }
  }

  /// The storage class's place in SQLite's order.
  private var rank: Int {
    switch self {
    case .null: return 0
    case .integer, .real: return 1
    case .text: return 2
    case .blob: return 3
    }
  }
}

/// SQL text helpers of the graph file.
enum SQLText {
  /// `name` as a quoted SQL identifier.
  static func quoted(_ name: String) -> String {
    var out = "\""
    for character in name {
      if character == "\"" { out += "\"\"" } else { out.append(character) }
    }
    return out + "\""
  }

  /// The bytes as lowercase hex digits, two per byte (a PostgreSQL `bytea`
  /// literal's digits, a long name's hash).
  static func hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 15)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The quoted names, comma-separated.
  static func list(_ names: [String]) -> String { names.map(quoted).joined(separator: ", ") }

  /// `?, ?, ...` for `count` parameters.
  static func parameters(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ", ")
  }

  /// `"a" = ? AND "b" = ?` for the names.
  static func equalAll(_ names: [String]) -> String {
    names.map { "\(quoted($0)) = ?" }.joined(separator: " AND ")
  }
}
