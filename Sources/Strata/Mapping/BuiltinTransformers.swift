import CJansson

/// The transformers every schema can name in `transform`.
enum BuiltinTransformers {
  /// Name -> transformer.
  static let all: [String: Transformer] = {
    var table: [String: Transformer] = [:]
    for transformer in [
      Transformer(name: "url", forward: each(url), reverse: nil, jsonSide: .string),
      Transformer(name: "uuid", forward: each(uuid), reverse: nil, jsonSide: .string),
      Transformer(
        name: "string-number", forward: each(stringToNumber), reverse: each(numberToString), jsonSide: .string
      ),
      Transformer(
        name: "number-string", forward: each(numberToString), reverse: each(stringToNumber), jsonSide: .number
      ),
      Transformer(name: "bool", forward: each(bool), reverse: each(boolToNumber), jsonSide: .scalar),
      Transformer(name: "trim", forward: each(trim), reverse: nil, jsonSide: .string),
      Transformer(name: "lowercase", forward: each(lowercase), reverse: nil, jsonSide: .string),
      Transformer(name: "uppercase", forward: each(uppercase), reverse: nil, jsonSide: .string),
      Transformer(name: "base64", forward: each(base64), reverse: nil, jsonSide: .string),
    ] {
      table[transformer.name] = transformer
    }
    return table
  }()

  /// A scalar transformer lifted over arrays and objects: each element or
  /// member is transformed (null ones kept); a failure names its element.
  static func each(_ scalar: @escaping (JPtr) -> TransformOutcome) -> (JPtr) -> TransformOutcome {
    // One path of keys, pushed and popped on the way down; a failure copies
    // it once. (Prefixing every failure's path at every level on the way up
    // made a few kilobytes of deeply nested bad values take seconds.)
    func walk(_ value: JPtr, _ path: inout [String], _ failures: inout [TransformFailure]) -> JPtr? {
      if JValue.isNull(value) { return json_null() }
      if JValue.isArray(value) {
        guard let out = json_array() else { return failed("out of memory", path, &failures) }
        var complete = true
        for position in 0..<json_array_size(value) {
          guard let element = json_array_get(value, position) else { continue }
          path.append(String(position))
          if let item = walk(element, &path, &failures) {
            if complete { _ = json_array_append_new(out, item) } else { JValue.release(item) }
          } else {
            complete = false
          }
          path.removeLast()
        }
        if complete { return out }
        JValue.release(out)
        return nil
      }
      if JValue.isObject(value) {
        guard let out = json_object() else { return failed("out of memory", path, &failures) }
        var complete = true
        JValue.forEachMember(value) { key, member in
          path.append(JValue.keyString(key))
          if let item = walk(member, &path, &failures) {
            if complete { JValue.setMember(out, key, item) } else { JValue.release(item) }
          } else {
            complete = false
          }
          path.removeLast()
        }
        if complete { return out }
        JValue.release(out)
        return nil
      }
      switch scalar(value) {
      case .value(let item): return item
      case .failed(let found):
        for failure in found {
          failures.append(TransformFailure(message: failure.message, at: path + failure.at))
        }
        return nil
      }
    }
    return { value in
      var path: [String] = []
      var failures: [TransformFailure] = []
      if let out = walk(value, &path, &failures) { return .value(out) }
      return .failed(failures)
    }
  }

  /// Notes a failure at `path`; nil, for `walk` to return.
  private static func failed(_ message: String, _ path: [String], _ failures: inout [TransformFailure])
    -> JPtr?
  {
    failures.append(TransformFailure(message: message, at: path))
    return nil
  }

  private static func expectedString(_ value: JPtr) -> TransformOutcome {
    .failure("expected a string, found \(JValue.typeName(value))")
  }

  private static func string(_ text: String) -> TransformOutcome {
    guard let made = JValue.makeString(text) else { return .failure("out of memory") }
    return .value(made)
  }

  static func url(_ value: JPtr) -> TransformOutcome {
    guard JValue.isString(value) else { return expectedString(value) }
    guard URLCheck.isAbsolute(JValue.stringBytes(value)) else {
      return .failure("\(Mapper.show(value)) is not an absolute URL with a scheme")
    }
    return .value(JValue.retain(value))
  }

  /// `8-4-4-4-12` hexadecimal digits; the model value is lowercase.
  static func uuid(_ value: JPtr) -> TransformOutcome {
    guard JValue.isString(value) else { return expectedString(value) }
    let bytes = JValue.stringBytes(value)
    var upper = false
    var valid = bytes.count == 36
    if valid {
      for (position, byte) in bytes.enumerated() {
        if position == 8 || position == 13 || position == 18 || position == 23 {
          if byte != UInt8(ascii: "-") { valid = false }
        } else if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F") {
          upper = true
        } else if !((byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
          || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")))
        {
          valid = false
        }
      }
    }
    guard valid else {
      return .failure("\(Mapper.show(value)) is not a UUID (8-4-4-4-12 hexadecimal digits)")
    }
    return upper ? string(JValue.string(value).lowercased()) : .value(JValue.retain(value))
  }

  /// "12" -> 12, "2.5" -> 2.5 (JSON number syntax only).
  static func stringToNumber(_ value: JPtr) -> TransformOutcome {
    guard JValue.isString(value) else { return expectedString(value) }
    let bytes = JValue.stringBytes(value)
    guard isJSONNumber(bytes) else { return .failure("\(Mapper.show(value)) is not a number") }
    var error = json_error_t()
    let parsed = bytes.withMemoryRebound(to: CChar.self) {
      json_loadb($0.baseAddress, $0.count, JValue.decodeFlags, &error)
    }
    guard let parsed else { return .failure("\(Mapper.show(value)) is not a number JSON can hold") }
    return .value(parsed)
  }

  /// 12 -> "12", 2.5 -> "2.5".
  static func numberToString(_ value: JPtr) -> TransformOutcome {
    if JValue.isInteger(value) { return string(String(json_integer_value(value))) }
    if JValue.isReal(value) { return string(String(json_real_value(value))) }
    return .failure("expected a number, found \(JValue.typeName(value))")
  }

  /// true/false and 0/1 -> a boolean.
  static func bool(_ value: JPtr) -> TransformOutcome {
    if JValue.isBool(value) { return .value(JValue.retain(value)) }
    if JValue.isInteger(value) {
      switch json_integer_value(value) {
      case 0: return .value(json_false())
      case 1: return .value(json_true())
      default: break
      }
    }
    return .failure("expected true, false, 0 or 1, found \(Mapper.show(value))")
  }

  /// A boolean -> 1/0, the form APIs that need this transformer speak.
  static func boolToNumber(_ value: JPtr) -> TransformOutcome {
    guard JValue.isBool(value) else { return .value(JValue.retain(value)) }
    return .value(json_integer(value.pointee.type == JSON_TRUE ? 1 : 0))
  }

  static func trim(_ value: JPtr) -> TransformOutcome {
    guard JValue.isString(value) else { return expectedString(value) }
    let text = JValue.string(value)
    guard let first = text.firstIndex(where: { !$0.isWhitespace }) else { return string("") }
    let last = text.lastIndex(where: { !$0.isWhitespace }) ?? first
    if first == text.startIndex && text.index(after: last) == text.endIndex {
      return .value(JValue.retain(value))
    }
    return string(String(text[first...last]))
  }

  static func lowercase(_ value: JPtr) -> TransformOutcome {
    guard JValue.isString(value) else { return expectedString(value) }
    let text = JValue.string(value)
    let lowered = text.lowercased()
    return lowered == text ? .value(JValue.retain(value)) : string(lowered)
  }

  static func uppercase(_ value: JPtr) -> TransformOutcome {
    guard JValue.isString(value) else { return expectedString(value) }
    let text = JValue.string(value)
    let raised = text.uppercased()
    return raised == text ? .value(JValue.retain(value)) : string(raised)
  }

  /// Base64 (standard or URL-safe alphabet, padded or not) -> standard padded base64.
  static func base64(_ value: JPtr) -> TransformOutcome {
    guard JValue.isString(value) else { return expectedString(value) }
    guard let bytes = Base64.decode(JValue.stringBytes(value)) else {
      return .failure("\(Mapper.show(value)) is not base64")
    }
    let canonical = Base64.encode(bytes)
    if canonical.utf8.elementsEqual(JValue.stringBytes(value)) { return .value(JValue.retain(value)) }
    return string(canonical)
  }

  /// RFC 8259's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  static func isJSONNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var position = 0
    func digit() -> Bool {
      position < bytes.count && bytes[position] >= UInt8(ascii: "0") && bytes[position] <= UInt8(ascii: "9")
    }
    if position < bytes.count && bytes[position] == UInt8(ascii: "-") { position += 1 }
    guard digit() else { return false }
    if bytes[position] == UInt8(ascii: "0") {
      position += 1
    } else {
      while digit() { position += 1 }
    }
    if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
      position += 1
      guard digit() else { return false }
      while digit() { position += 1 }
    }
    if position < bytes.count
      && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E"))
    {
      position += 1
      if position < bytes.count
        && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-"))
      {
        position += 1
      }
      guard digit() else { return false }
      while digit() { position += 1 }
    }
    return position == bytes.count
  }
}
