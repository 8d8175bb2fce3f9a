import CJansson
import Strata

/// One value a query compares: a record's value or one the query gives, in
/// the form comparisons need. Strings compare by their UTF-8 bytes (as
/// SQLite's BINARY collation does), numbers by value (an int equals the real
/// of the same value), dates by instant, keys as `RecordKey`s order them.
enum QueryValue {
  case null
  case bool(Bool)
  case int(Int64)
  case real(Double)
  case string(String)
  case date(DateValue)
  case key(RecordKey)
  /// A value no comparison applies to (a nested model, a dictionary).
  case other

  /// The value of a canonical JSON scalar (borrowed) of a property whose
  /// scalar is `kind`: a date is read from its canonical RFC 3339 text.
  init(_ value: JPtr, _ kind: QueryKind) {
    switch value.pointee.type {
    case JSON_NULL: self = .null
    case JSON_TRUE: self = .bool(true)
    case JSON_FALSE: self = .bool(false)
    case JSON_INTEGER: self = .int(Int64(json_integer_value(value)))
    case JSON_REAL: self = .real(json_real_value(value))
    case JSON_STRING:
      if case .date = kind {
        let date = ISO8601DateParser.parse(JValue.stringBytes(value))
        self = date.map { .date($0) } ?? .string(JValue.string(value))
      } else {
        self = .string(JValue.string(value))
      }
    default: self = .other
    }
  }

  /// The value of a scalar leaf slot however it is kept (`Slot+Leaves.swift`),
  /// read in place (no json_t made for a kept value); `.other` for anything
  /// but a scalar leaf.
  init(leaf slot: Slot, _ kind: QueryKind) {
    switch slot {
    case .absent, .null: self = .null
    case .leaf(let value): self.init(value, kind)
    case .integer(let value): self = .int(value)
    case .real(let value): self = .real(value)
    case .text(let text):
      if case .date = kind, let date = ISO8601DateParser.parse(text.bytes) {
        self = .date(date)
      } else {
        self = .string(text.string)
      }
    case .list, .model, .array, .dict: self = .other
    }
  }

  /// True for `null`.
  var isNull: Bool {
    if case .null = self { return true }
    return false
  }

  /// The value's rank among kinds, for ordering values of different kinds
  /// (nulls first, as SQLite orders them).
  private var rank: Int {
    switch self {
    case .null: return 0
    case .bool, .int, .real: return 1
    case .date: return 2
    case .string: return 3
    case .key: return 4
    case .other: return 5
    }
  }

  /// `lhs` compared with `rhs`: negative, zero or positive; nil when they
  /// cannot be compared (different kinds, `other`).
  static func compare(_ lhs: QueryValue, _ rhs: QueryValue) -> Int? {
    switch (lhs, rhs) {
    case (.null, .null): return 0
    case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
    case (.int(let a), .int(let b)): return a == b ? 0 : (a < b ? -1 : 1)
    case (.int(let a), .real(let b)): return compareReals(Double(a), b)
    case (.real(let a), .int(let b)): return compareReals(a, Double(b))
    case (.real(let a), .real(let b)): return compareReals(a, b)
    case (.bool(let a), .int(let b)): return compareReals(a ? 1 : 0, Double(b))
    case (.int(let a), .bool(let b)): return compareReals(Double(a), b ? 1 : 0)
    case (.string(let a), .string(let b)):
      if a.utf8.elementsEqual(b.utf8) { return 0 }
      return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
    case (.date(let a), .date(let b)): return a == b ? 0 : (a < b ? -1 : 1)
    case (.key(let a), .key(let b)): return a == b ? 0 : (a < b ? -1 : 1)
    default: return nil
    }
  }

  private static func compareReals(_ a: Double, _ b: Double) -> Int? {
    if a < b { return -1 }
    if a > b { return 1 }
    return a == b ? 0 : nil
  }

  /// The order of `order_by`: by kind first (nulls first), then by value.
  static func orders(_ lhs: QueryValue, before rhs: QueryValue) -> Int {
    if let compared = compare(lhs, rhs) { return compared }
    return lhs.rank < rhs.rank ? -1 : (lhs.rank > rhs.rank ? 1 : 0)
  }
}

/// What kind of values a queried property holds, which decides the tests
/// it takes.
enum QueryKind {
  /// Scalars (a list of scalars: any element), compared as themselves.
  case scalar(text: Bool)
  /// Dates (canonical RFC 3339 text in UTC, whatever format their JSON
  /// has), compared by instant.
  case date
  /// A relationship: compared by the related records' keys.
  case relationship(target: Int)
  /// Nested models, dictionaries, `json`: only `null` applies.
  case opaque

  /// The kind of `spec`'s values.
  init(_ spec: PropertySpec) {
    if let relation = spec.relation {
      self = .relationship(target: relation.target)
      return
    }
    var type = spec.type.unwrapped
    if case .array(let element) = type { type = element.unwrapped }
    switch type {
    case .date: self = .date
    case .string, .url: self = .scalar(text: true)
    case .int, .double, .bool: self = .scalar(text: false)
    case .json, .model, .dict, .array, .optional: self = .opaque
    }
  }

  /// True when ordering and comparisons apply.
  var isComparable: Bool {
    if case .opaque = self { return false }
    return true
  }
}
