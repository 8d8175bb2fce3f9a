import CJansson

/// A reversible value mapping, JSON value -> model value.
final class EnumMap: @unchecked Sendable {
  /// The pairs (owned references, released with the schema).
  let pairs: [(json: JPtr, model: JPtr)]
  /// For pairs whose JSON side is a string: that string -> pair index.
  let stringIndex: [String: Int]
  /// The model value for input outside the mapping (owned), or nil.
  let fallback: JPtr?

  init(pairs: [(json: JPtr, model: JPtr)], fallback: JPtr?) {
    self.pairs = pairs
    var index: [String: Int] = [:]
    for (position, pair) in pairs.enumerated() where JValue.isString(pair.json) {
      index[JValue.string(pair.json)] = index[JValue.string(pair.json)] ?? position
    }
    self.stringIndex = index
    self.fallback = fallback
  }

  deinit {
    for pair in pairs {
      JValue.release(pair.json)
      JValue.release(pair.model)
    }
    if let fallback { JValue.release(fallback) }
  }

  /// The model value for a JSON value (borrowed), or nil if outside the mapping.
  func forward(_ value: JPtr) -> JPtr? {
    if JValue.isString(value) {
      if let position = stringIndex[JValue.string(value)] { return pairs[position].model }
      return fallback
    }
    for pair in pairs where json_equal(pair.json, value) != 0 { return pair.model }
    return fallback
  }

  /// The model value (borrowed) for a JSON string given as its UTF-8
  /// bytes, as `forward` gives it for that string, or nil if outside the
  /// mapping.
  @inline(__always)
  func forward(bytes: UnsafeBufferPointer<UInt8>) -> JPtr? {
    if let position = stringIndex[String(decoding: bytes, as: UTF8.self)] { return pairs[position].model }
    return fallback
  }

  /// True when `value` (borrowed) is a model value of the mapping or its default.
  func holds(modelValue value: JPtr) -> Bool {
    if let fallback, json_equal(fallback, value) != 0 { return true }
    return pairs.contains { json_equal($0.model, value) != 0 }
  }

  /// The JSON value for a model value (borrowed), or nil if the mapping lacks it.
  func reverse(_ value: JPtr) -> JPtr? {
    for pair in pairs where json_equal(pair.model, value) != 0 { return pair.json }
    return nil
  }
}
