import CJansson

/// A pointer to a jansson value. Ownership is tracked by convention: a
/// function that returns `JPtr` documents whether the reference is new.
package typealias JPtr = UnsafeMutablePointer<json_t>

/// Thin, inlinable reads and builders over jansson values. This is the only
/// place in the engine that knows jansson's layout; a schema-directed parser
/// reading bytes straight into models would replace these calls.
package enum JValue {
  /// Flags for parsing: any value at the top level, NUL allowed inside strings.
  static let decodeFlags = Int(JSON_DECODE_ANY | JSON_ALLOW_NUL)

  @inline(__always) static func kind(_ value: JPtr) -> json_type { value.pointee.type }
  @inline(__always) package static func isObject(_ value: JPtr) -> Bool { value.pointee.type == JSON_OBJECT }
  @inline(__always) package static func isArray(_ value: JPtr) -> Bool { value.pointee.type == JSON_ARRAY }
  @inline(__always) package static func isString(_ value: JPtr) -> Bool { value.pointee.type == JSON_STRING }
  @inline(__always) package static func isInteger(_ value: JPtr) -> Bool {
    value.pointee.type == JSON_INTEGER
  }
  @inline(__always) static func isReal(_ value: JPtr) -> Bool { value.pointee.type == JSON_REAL }
  @inline(__always) package static func isNull(_ value: JPtr) -> Bool { value.pointee.type == JSON_NULL }
  @inline(__always) package static func isBool(_ value: JPtr) -> Bool {
    value.pointee.type == JSON_TRUE || value.pointee.type == JSON_FALSE
  }

  /// Adds a reference and returns the same value.
  @inline(__always) @discardableResult package static func retain(_ value: JPtr) -> JPtr {
    _ = json_incref(value)
    return value
  }

  /// Releases a reference.
  @inline(__always) package static func release(_ value: JPtr) { json_decref(value) }

  /// A short English name for the JSON type of `value`, for messages.
  package static func typeName(_ value: JPtr) -> String {
    switch value.pointee.type {
    case JSON_OBJECT: return "an object"
    case JSON_ARRAY: return "an array"
    case JSON_STRING: return "a string"
    case JSON_INTEGER: return "an integer"
    case JSON_REAL: return "a real number"
    case JSON_TRUE, JSON_FALSE: return "a boolean"
    default: return "null"
    }
  }

  /// The UTF-8 bytes of a string value (without a terminating NUL).
  @inline(__always) package static func stringBytes(_ value: JPtr) -> UnsafeBufferPointer<UInt8> {
    let length = json_string_length(value)
    guard let base = json_string_value(value) else { return UnsafeBufferPointer(start: nil, count: 0) }
    return UnsafeBufferPointer(
      start: UnsafeRawPointer(base).assumingMemoryBound(to: UInt8.self), count: length)
  }

  /// The Swift string of a string value.
  package static func string(_ value: JPtr) -> String {
    String(decoding: stringBytes(value), as: UTF8.self)
  }

  /// A new reference to a string value holding `text` (which may contain
  /// NUL). A Swift string is valid UTF-8 already: jansson does not check it again.
  package static func makeString(_ text: String) -> JPtr? {
    var copy = text
    return copy.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { chars in
        withChars(chars) { json_stringn_nocheck($0, $1) }
      }
    }
  }

  /// The member `key` of an object, borrowed, or nil.
  @inline(__always) package static func member(_ object: JPtr, _ key: Key) -> JPtr? {
    key.bytes.withUnsafeBufferPointer { buffer in
      json_object_getn(object, buffer.baseAddress, key.length)
    }
  }

  /// Sets `object[key]`, stealing the reference to `value`.
  @inline(__always) static func setNew(_ object: JPtr, _ key: Key, _ value: JPtr) {
    key.bytes.withUnsafeBufferPointer { buffer in
      _ = json_object_setn_new_nocheck(object, buffer.baseAddress, key.length, value)
    }
  }

  /// Sets `object[key]` for a Swift string key, stealing the reference to `value`.
  package static func setNew(_ object: JPtr, _ key: String, _ value: JPtr) {
    var copy = key
    copy.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { chars in
        withChars(chars) { _ = json_object_setn_new_nocheck(object, $0, $1, value) }
      }
    }
  }

  /// Calls `body` with a non-nil pointer to the characters (an empty buffer may have none).
  @inline(__always) static func withChars<R>(
    _ chars: UnsafeBufferPointer<CChar>, _ body: (UnsafePointer<CChar>, Int) -> R
  ) -> R {
    if let base = chars.baseAddress { return body(base, chars.count) }
    var zero: CChar = 0
    return withUnsafePointer(to: &zero) { body($0, 0) }
  }

  /// Sets `object[key]` for a key given as bytes, stealing the reference to `value`.
  @inline(__always) static func setMember(_ object: JPtr, _ key: UnsafeBufferPointer<UInt8>, _ value: JPtr) {
    key.withMemoryRebound(to: CChar.self) { chars in
      withChars(chars) { _ = json_object_setn_new_nocheck(object, $0, $1, value) }
    }
  }

  /// Calls `body` with each key (as bytes) and value of an object, in order.
  @inline(__always) package static func forEachMember(
    _ object: JPtr, _ body: (UnsafeBufferPointer<UInt8>, JPtr) -> Void
  ) {
    var iterator = json_object_iter(object)
    while let current = iterator {
      if let keyPointer = json_object_iter_key(current), let value = json_object_iter_value(current) {
        let length = json_object_iter_key_len(current)
        body(
          UnsafeBufferPointer(
            start: UnsafeRawPointer(keyPointer).assumingMemoryBound(to: UInt8.self), count: length),
          value)
      }
      iterator = json_object_iter_next(object, current)
    }
  }

  /// The Swift string of an object key's bytes.
  package static func keyString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
  }
}

/// An object key prepared once (at schema load) for fast lookups.
package struct Key: Sendable {
  /// The key as text, for messages and paths.
  package let name: String
  /// The UTF-8 bytes of the key.
  let bytes: [CChar]
  /// The number of bytes.
  var length: Int { bytes.count }

  init(_ name: String) {
    self.name = name
    self.bytes = name.utf8.map { CChar(bitPattern: $0) }
  }
}
