import CJansson

/// A record's primary key as a typed value: what a graph context finds
/// records by. A string never equals a number (`"5"` is not `5`); a
/// composite key is the list of its parts in `primaryKey` order; a record
/// given no key at all gets a `synthetic` one, written `{"$id": N}`.
package enum RecordKey: Hashable, Comparable, Sendable, CustomStringConvertible {
  case bool(Bool)
  case int(Int64)
  case double(Double)
  case string(String)
  case composite([RecordKey])
  case synthetic(Int64)

  /// The key a JSON value (borrowed) stands for, or nil when it cannot be a
  /// key (null, an object other than `{"$id": N}`, a non-finite number).
  package init?(json value: JPtr) {
    switch value.pointee.type {
    case JSON_TRUE: self = .bool(true)
    case JSON_FALSE: self = .bool(false)
    case JSON_INTEGER: self = .int(Int64(json_integer_value(value)))
    case JSON_REAL:
      let number = json_real_value(value)
      guard number.isFinite else { return nil }
      self = .double(number)
    case JSON_STRING: self = .string(JValue.string(value))
    case JSON_ARRAY:
      var parts: [RecordKey] = []
      for index in 0..<json_array_size(value) {
        guard let element = json_array_get(value, index), let part = RecordKey(json: element) else {
          return nil
        }
        parts.append(part)
      }
      guard !parts.isEmpty else { return nil }
      self = .composite(parts)
    case JSON_OBJECT:
      guard json_object_size(value) == 1, let id = json_object_get(value, "$id"), JValue.isInteger(id) else {
        return nil
      }
      self = .synthetic(Int64(json_integer_value(id)))
    default: return nil
    }
  }

  /// The key as JSON (a new reference).
  package func makeJSON() -> JPtr? {
    switch self {
    case .bool(let value): return value ? json_true() : json_false()
    case .int(let value): return json_integer(json_int_t(value))
    case .double(let value): return json_real(value)
    case .string(let value): return JValue.makeString(value)
    case .composite(let parts):
      guard let array = json_array() else { return nil }
      for part in parts { _ = json_array_append_new(array, part.makeJSON() ?? json_null()) }
      return array
    case .synthetic(let id):
      guard let object = json_object() else { return nil }
      _ = json_object_set_new(object, "$id", json_integer(json_int_t(id)))
      return object
    }
  }

  /// Keys of one kind in their natural order; kinds in the order of the cases.
  private var rank: Int {
    switch self {
    case .bool: return 0
    case .int, .double: return 1
    case .string: return 2
    case .composite: return 3
    case .synthetic: return 4
    }
  }

  /// The hash the standard library's tables use. An integer key (most
  /// keys) is hashed by `Int64`'s own one-shot SipHash of its 64 bits
  /// instead of a `Hasher` fed the case and then the value: a record found
  /// by key hashes its key once or more per call (Benchmarks/README.md,
  /// "Cached gets, records without side tables, the pages' peer"). Still SipHash under the table's seed, so keys chosen
  /// by an input cannot flood a table. Other keys hash as before, with the
  /// seed mixed in.
  package func _rawHashValue(seed: Int) -> Int {
    if case .int(let value) = self { return value._rawHashValue(seed: seed) }
    var hasher = Hasher()
    hasher.combine(seed)
    hash(into: &hasher)
    return hasher.finalize()
  }

  package static func < (lhs: RecordKey, rhs: RecordKey) -> Bool {
    switch (lhs, rhs) {
    case (.bool(let a), .bool(let b)): return !a && b
    case (.int(let a), .int(let b)): return a < b
    case (.double(let a), .double(let b)): return a < b
    case (.int(let a), .double(let b)): return Double(a) < b
    case (.double(let a), .int(let b)): return a < Double(b)
    case (.string(let a), .string(let b)): return a.utf8.lexicographicallyPrecedes(b.utf8)
    case (.composite(let a), .composite(let b)): return a.lexicographicallyPrecedes(b)
    case (.synthetic(let a), .synthetic(let b)): return a < b
    default: return lhs.rank < rhs.rank
    }
  }

  /// The key as compact JSON text, for messages.
  package var description: String {
    guard let value = makeJSON() else { return "?" }
    defer { JValue.release(value) }
    return Mapper.show(value)
  }
}
