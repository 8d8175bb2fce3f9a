import CJansson
import Glibc

/// A JSON value: what Swift programs hand to Strata and get back from it.
public enum JSON: Sendable, Hashable, CustomStringConvertible {
  /// `null`
  case null
  /// `true` or `false`
  case bool(Bool)
  /// An integer (64 bits).
  case int(Int64)
  /// A real number.
  case double(Double)
  /// A string.
  case string(String)
  /// An array.
  case array([JSON])
  /// An object, keys in order.
  case object(JSONObject)

  /// Parses JSON text (any value at the top level); a `syntax` error names
  /// the line and column.
  ///
  /// ```swift
  /// try JSON(parsing: #"{"a": [1, 2.5]}"#)["a"]  // -> [1, 2.5]
  /// ```
  public init(parsing text: String) throws(StrataError) {
    let pointer = try JSONText.parse(text).get()
    defer { JValue.release(pointer) }
    self = JSON(borrowing: pointer)
  }

  /// Parses JSON given as UTF-8 bytes (`[UInt8]`, or Foundation's `Data`).
  public init<Bytes: Sequence<UInt8>>(parsing bytes: Bytes) throws(StrataError) {
    let pointer = try JSONText.parse(bytes: bytes).get()
    defer { JValue.release(pointer) }
    self = JSON(borrowing: pointer)
  }

  /// The member `key` of an object, or nil.
  public subscript(key: String) -> JSON? {
    if case .object(let object) = self { return object[key] }
    return nil
  }

  /// The element at `index` of an array, or nil.
  public subscript(index: Int) -> JSON? {
    if case .array(let elements) = self, index >= 0, index < elements.count { return elements[index] }
    return nil
  }

  /// Compact JSON text, keys in order.
  public var description: String { serialized() }

  /// JSON text; `indent` > 0 pretty-prints with that many spaces.
  public func serialized(indent: Int = 0) -> String {
    guard let pointer = makeJansson() else { return "null" }
    defer { JValue.release(pointer) }
    return JSONText.dump(pointer, indent: indent)
  }
}

/// A JSON object that keeps its keys in order. Equality ignores the order.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
  /// The members, in order.
  public private(set) var members: [(key: String, value: JSON)] = []

  /// An empty object.
  public init() {}

  /// An object of the given members, in order (a repeated key keeps its last value).
  public init(_ members: [(String, JSON)]) {
    for (key, value) in members { self[key] = value }
  }

  /// An object from a literal.
  public init(dictionaryLiteral elements: (String, JSON)...) {
    self.init(elements)
  }

  /// The keys, in order.
  public var keys: [String] { members.map(\.key) }

  /// The number of members.
  public var count: Int { members.count }

  /// The value of `key`; setting nil removes it.
  public subscript(key: String) -> JSON? {
    get { members.first(where: { $0.key == key })?.value }
    set {
      if let position = members.firstIndex(where: { $0.key == key }) {
        if let newValue { members[position].value = newValue } else { members.remove(at: position) }
      } else if let newValue {
        members.append((key, newValue))
      }
    }
  }

  /// Iterates the members in order.
  public func makeIterator() -> IndexingIterator<[(key: String, value: JSON)]> { members.makeIterator() }

  /// Equal when the same keys hold equal values, in any order.
  public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
    guard lhs.count == rhs.count else { return false }
    for (key, value) in lhs.members where rhs[key] != value { return false }
    return true
  }

  /// Hashes the members independent of order.
  public func hash(into hasher: inout Hasher) {
    var sum = 0
    for (key, value) in members {
      var inner = Hasher()
      inner.combine(key)
      inner.combine(value)
      sum = sum &+ inner.finalize()
    }
    hasher.combine(count)
    hasher.combine(sum)
  }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
  ExpressibleByDictionaryLiteral
{
  /// `nil` is JSON null.
  public init(nilLiteral: ()) { self = .null }
  /// A boolean literal.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  /// An integer literal.
  public init(integerLiteral value: Int64) { self = .int(value) }
  /// A real literal.
  public init(floatLiteral value: Double) { self = .double(value) }
  /// A string literal.
  public init(stringLiteral value: String) { self = .string(value) }
  /// An array literal.
  public init(arrayLiteral elements: JSON...) { self = .array(elements) }
  /// An object literal, keys in order.
  public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(JSONObject(elements)) }
}

// MARK: bridging to jansson

extension JSON {
  /// Reads a jansson value (borrowed).
  package init(borrowing pointer: JPtr) {
    switch pointer.pointee.type {
    case JSON_OBJECT:
      var object = JSONObject()
      JValue.forEachMember(pointer) { key, value in
        object[JValue.keyString(key)] = JSON(borrowing: value)
      }
      self = .object(object)
    case JSON_ARRAY:
      var elements: [JSON] = []
      elements.reserveCapacity(json_array_size(pointer))
      for position in 0..<json_array_size(pointer) {
        if let element = json_array_get(pointer, position) { elements.append(JSON(borrowing: element)) }
      }
      self = .array(elements)
    case JSON_STRING: self = .string(JValue.string(pointer))
    case JSON_INTEGER: self = .int(json_integer_value(pointer))
    case JSON_REAL: self = .double(json_real_value(pointer))
    case JSON_TRUE: self = .bool(true)
    case JSON_FALSE: self = .bool(false)
    default: self = .null
    }
  }

  /// A new jansson value holding this one (nil only if memory runs out,
  /// or for a real that JSON cannot hold: NaN or an infinity).
  package func makeJansson() -> JPtr? {
    switch self {
    case .null: return json_null()
    case .bool(let value): return value ? json_true() : json_false()
    case .int(let value): return json_integer(value)
    case .double(let value): return json_real(value)
    case .string(let value): return JValue.makeString(value)
    case .array(let elements):
      guard let out = json_array() else { return nil }
      for element in elements {
        guard let item = element.makeJansson() else {
          JValue.release(out)
          return nil
        }
        _ = json_array_append_new(out, item)
      }
      return out
    case .object(let object):
      guard let out = json_object() else { return nil }
      for (key, value) in object {
        guard let item = value.makeJansson() else {
          JValue.release(out)
          return nil
        }
        JValue.setNew(out, key, item)
      }
      return out
    }
  }
}

/// Parsing and printing JSON text through jansson.
package enum JSONText {
  /// Parses UTF-8 text of any JSON value; a new reference, or a `syntax` error.
  package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<JPtr, StrataError> {
    var error = json_error_t()
    let flags = JValue.decodeFlags
    let parsed = bytes.withMemoryRebound(to: CChar.self) { chars in
      json_loadb(chars.baseAddress, chars.count, flags, &error)
    }
    if let parsed { return .success(parsed) }
    return .failure(syntaxError(&error, in: bytes))
  }

  /// The `syntax` error of `bytes`, which jansson refused with `error`: its
  /// path is the JSON Pointer of the value being read when the text broke
  /// (`SyntaxLocator`), its message names the line, column and byte offset of
  /// the last character jansson read, then jansson's text. `place` goes after
  /// "invalid JSON" (" in 'file.json'").
  package static func syntaxError(
    _ error: inout json_error_t, in bytes: UnsafeBufferPointer<UInt8>, place: String = ""
  ) -> StrataError {
    let text = withUnsafeBytes(of: &error.text) { raw in
      String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
    let code = json_error_code(&error)
    let position = Int(error.position)
    let offset = SyntaxLocator.breakOffset(
      position: position, count: bytes.count, endOfInput: code == json_error_premature_end_of_input,
      badByte: code == json_error_invalid_utf8)
    // Fewer bytes than jansson read (a file changed since): the last byte it read.
    let byte =
      position <= bytes.count ? SyntaxLocator.characterStart(bytes, endingAt: position) : max(position - 1, 0)
    return StrataError(
      path: SyntaxLocator.pointer(bytes, breakingAt: offset), code: .syntax,
      message: "invalid JSON\(place) at line \(error.line), column \(error.column) (byte \(byte)): \(text)")
  }

  /// Parses JSON text; a new reference, or a `syntax` error.
  package static func parse(_ text: String) -> Result<JPtr, StrataError> {
    var copy = text
    return copy.withUTF8 { parse($0) }
  }

  /// Parses UTF-8 bytes of any sequence; a new reference, or a `syntax` error.
  package static func parse<Bytes: Sequence<UInt8>>(bytes: Bytes) -> Result<JPtr, StrataError> {
    if let parsed = bytes.withContiguousStorageIfAvailable({ parse($0) }) { return parsed }
    return Array(bytes).withUnsafeBufferPointer { parse($0) }
  }

  /// Serializes a value (borrowed) as JSON text.
  package static func dump(_ pointer: JPtr, indent: Int = 0) -> String {
    var flags = Int(JSON_ENCODE_ANY) | JSON_REAL_PRECISION_17
    if indent > 0 { flags |= Int(min(indent, 31)) } else { flags |= Int(JSON_COMPACT) }
    guard let text = json_dumps(pointer, flags) else { return "null" }
    defer { free(text) }
    return String(cString: text)
  }

  /// jansson's JSON_REAL_PRECISION(17), a function-like macro Swift cannot call.
  package static let JSON_REAL_PRECISION_17 = (17 & 0x1F) << 11
}
