import CJansson

/// Equality and hashing over canonical values: absent differs from null,
/// kept unknown keys count, object key order does not.
package enum Equality {
  /// True if two models have the same type and equal values.
  static func equal(_ a: ModelObject, _ b: ModelObject) -> Bool {
    if a === b { return true }
    guard a.type === b.type, a.slots.count == b.slots.count else { return false }
    for index in 0..<a.slots.count where !equal(a.slots[index], b.slots[index]) { return false }
    return equalUnknown(a, b)
  }

  /// True if two models keep the same unknown keys (none and an empty set alike).
  package static func equalUnknown(_ a: ModelObject, _ b: ModelObject) -> Bool {
    switch (a.unknown, b.unknown) {
    case (nil, nil): return true
    case (let x?, let y?): return json_equal(x, y) != 0
    case (let x?, nil): return json_object_size(x) == 0
    case (nil, let y?): return json_object_size(y) == 0
    }
  }

  package static func equal(_ a: Slot, _ b: Slot) -> Bool {
    switch (a, b) {
    case (.absent, .absent), (.null, .null): return true
    case (.leaf(let x), .leaf(let y)): return x == y || json_equal(x, y) != 0
    case (.integer(let x), .integer(let y)): return x == y
    case (.real(let x), .real(let y)): return x == y
    case (.real(let x), .leaf(let y)), (.leaf(let y), .real(let x)):
      return JValue.kind(y) == JSON_REAL && json_real_value(y) == x
    case (.integer(let x), .leaf(let y)), (.leaf(let y), .integer(let x)):
      return JValue.isInteger(y) && Int64(json_integer_value(y)) == x
    case (.text(let x), .text(let y)): return x.entry == y.entry || x.bytes.elementsEqual(y.bytes)
    case (.text(let x), .leaf(let y)), (.leaf(let y), .text(let x)):
      return JValue.isString(y) && x.bytes.elementsEqual(JValue.stringBytes(y))
    case (.list(let x), .leaf(let y)), (.leaf(let y), .list(let x)):
      guard JValue.isArray(y), json_array_size(y) == x.count else { return false }
      for index in 0..<x.count {
        guard let element = json_array_get(y, index), equal(x[index], .leaf(element)) else { return false }
      }
      return true
    case (.model(let x), .model(let y)): return equal(x, y)
    case (.array(let x), .array(let y)), (.list(let x), .list(let y)):
      guard x.count == y.count else { return false }
      for index in 0..<x.count where !equal(x[index], y[index]) { return false }
      return true
    case (.dict(let x), .dict(let y)):
      guard x.count == y.count else { return false }
      var positions: [String: Int] = [:]
      for (position, entry) in y.enumerated() { positions[entry.key] = position }
      for entry in x {
        guard let position = positions[entry.key], equal(entry.value, y[position].value) else { return false }
      }
      return true
    default: return false
    }
  }

  // MARK: hashing (FNV-1a, 64 bits, stable across runs)

  static func hash(_ object: ModelObject) -> UInt64 {
    var state: UInt64 = 0xcbf2_9ce4_8422_2325
    mix(&state, object.type.name)
    for slot in object.slots { mix(&state, hash(slot)) }
    return state
  }

  static func hash(_ slot: Slot) -> UInt64 {
    switch slot {
    case .absent: return 0x9e37_79b9_7f4a_7c15
    case .null: return 1
    case .leaf(let value): return hash(json: value)
    case .integer(let value): return hash(integer: value)
    case .real(let value): return hash(real: value)
    case .text(let text): return hash(string: text.bytes)
    case .list(let elements): return hash(arrayOf: elements.lazy.map { hash($0) })
    case .model(let object): return hash(object)
    case .array(let elements):
      var state: UInt64 = 0xa5a5
      for element in elements { mix(&state, hash(element)) }
      return state
    case .dict(let entries):
      var sum: UInt64 = 0x5a5a
      for entry in entries {
        var pair: UInt64 = 0xcbf2_9ce4_8422_2325
        mix(&pair, entry.key)
        mix(&pair, hash(entry.value))
        sum = sum &+ pair
      }
      return sum
    }
  }

  /// Hashes a JSON value, looking at most 32 levels deep (deeper levels count
  /// by type only, so equal values still hash equally, and the recursion stays
  /// small whatever the value's depth).
  static func hash(json value: JPtr, depth: Int = 0) -> UInt64 {
    if depth > 32 { return UInt64(value.pointee.type.rawValue) &+ 11 }
    switch value.pointee.type {
    case JSON_STRING: return hash(string: JValue.stringBytes(value))
    case JSON_INTEGER: return hash(integer: Int64(json_integer_value(value)))
    case JSON_REAL: return hash(real: json_real_value(value))
    case JSON_TRUE: return 4
    case JSON_FALSE: return 5
    case JSON_NULL: return 1
    case JSON_ARRAY:
      return hash(
        arrayOf: (0..<json_array_size(value)).lazy.compactMap { json_array_get(value, $0) }.map {
          hash(json: $0, depth: depth + 1)
        })
    default:
      var sum: UInt64 = 7
      JValue.forEachMember(value) { key, member in
        var pair: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key { step(&pair, byte) }
        mix(&pair, hash(json: member, depth: depth + 1))
        sum = sum &+ pair
      }
      return sum
    }
  }

  /// Hashes an array leaf from its elements' hashes, kept as a jansson
  /// array or as a `.list` alike.
  @inline(__always)
  private static func hash<Hashes: Sequence<UInt64>>(arrayOf hashes: Hashes) -> UInt64 {
    var state: UInt64 = 0xcbf2_9ce4_8422_2325
    for element in hashes { mix(&state, element) }
    return state &+ 6
  }

  /// Hashes a string leaf's bytes, kept as text or as a json_t alike.
  static func hash(string bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var state: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { step(&state, byte) }
    return state
  }

  /// Hashes a real leaf, kept in its slot or as a json_t alike (0 and -0 alike).
  static func hash(real value: Double) -> UInt64 {
    var state: UInt64 = 0xcbf2_9ce4_8422_2325
    mix(&state, value == 0 ? 0 : value.bitPattern)
    return state &+ 3
  }

  /// Hashes an integer leaf, kept in its slot or as a json_t alike.
  static func hash(integer value: Int64) -> UInt64 {
    var state: UInt64 = 0xcbf2_9ce4_8422_2325
    mix(&state, UInt64(bitPattern: value))
    return state &+ 2
  }

  @inline(__always) private static func step(_ state: inout UInt64, _ byte: UInt8) {
    state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
  }

  @inline(__always) private static func mix(_ state: inout UInt64, _ value: UInt64) {
    var word = value
    for _ in 0..<8 {
      step(&state, UInt8(truncatingIfNeeded: word))
      word >>= 8
    }
  }

  @inline(__always) private static func mix(_ state: inout UInt64, _ text: String) {
    for byte in text.utf8 { step(&state, byte) }
  }
}
