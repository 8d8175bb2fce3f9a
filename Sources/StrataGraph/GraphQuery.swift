import CJansson
import Strata

/// A query of a graph context (docs/graph.md#queries): the records of a
/// model (and its subtypes) that meet `condition`, ordered by `order` and
/// then by key, `offset` of them skipped and at most `limit` kept.
struct GraphQuery {
  /// The model asked for.
  let type: ModelType
  /// The condition (`where`), nil for every record.
  var condition: QueryCondition? = nil
  /// The order (`order_by`); ties, and everything without one, by key.
  var order: [QueryOrder] = []
  /// At most this many records, nil for all.
  var limit: Int? = nil
  /// Records skipped first.
  var offset = 0
  /// False: records known by their key only are left out.
  var stubs = true
}

/// A property reached from the queried model: relationships followed by
/// name, then the property.
struct QueryPath {
  /// The relationships followed, by name (resolved per record: a subtype
  /// may add properties).
  let hops: [String]
  /// The path as written (`user.screenName`), for messages.
  let name: String
  /// The property at the end (`screenName`).
  let property: String
  /// What its values are.
  let kind: QueryKind
  /// True when a hop is a to-many relationship, or the property is a list:
  /// the path reaches several values, and a test holds when one meets it.
  let reachesMany: Bool
  /// The model the path ends in (as declared) and the property's index there.
  let owner: Int
  let index: Int
}

/// A `where` condition.
indirect enum QueryCondition {
  /// Every condition holds (the members of one object, `and`).
  case all([QueryCondition])
  /// One of them holds (`or`).
  case any([QueryCondition])
  /// The condition does not hold (`not`).
  case not(QueryCondition)
  /// A test of the values a path reaches.
  case test(QueryPath, QueryTest)
}

/// One test of a path's values.
enum QueryTest {
  case equal(QueryValue)
  case notEqual(QueryValue)
  case less(QueryValue)
  case lessOrEqual(QueryValue)
  case greater(QueryValue)
  case greaterOrEqual(QueryValue)
  case oneOf([QueryValue])
  case prefix(String)
  case contains(String)
  /// `null: true` (the value is null or absent) or `null: false`.
  case null(Bool)
}

/// One key of `order_by`.
struct QueryOrder {
  /// The property, through to-one relationships only.
  let path: QueryPath
  /// `-name`: largest first.
  let descending: Bool
}

extension QueryTest {
  /// The operators of an operator object, as written.
  static let operators = ["==", "!=", "<", "<=", ">", ">=", "in", "prefix", "contains", "null"]

  /// True when `value` (a record's) meets the test.
  func holds(_ value: QueryValue) -> Bool {
    switch self {
    case .null(let wanted): return value.isNull == wanted
    case .equal(let other): return QueryValue.compare(value, other) == 0
    case .notEqual(let other):
      guard !value.isNull, let compared = QueryValue.compare(value, other) else { return false }
      return compared != 0
    case .less(let other): return !value.isNull && (QueryValue.compare(value, other) ?? 0) < 0
    case .lessOrEqual(let other):
      return !value.isNull && (QueryValue.compare(value, other).map { $0 <= 0 } ?? false)
    case .greater(let other): return !value.isNull && (QueryValue.compare(value, other) ?? 0) > 0
    case .greaterOrEqual(let other):
      return !value.isNull && (QueryValue.compare(value, other).map { $0 >= 0 } ?? false)
    case .oneOf(let values): return values.contains { QueryValue.compare(value, $0) == 0 }
    case .prefix(let text):
      guard case .string(let string) = value else { return false }
      return string.utf8.starts(with: text.utf8)
    case .contains(let text):
      guard case .string(let string) = value else { return false }
      return string.holds(text)
    }
  }
}
