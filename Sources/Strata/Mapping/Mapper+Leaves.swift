import CJansson
import Glibc

/// Values that hold no model: scalars, dates, URLs, json values, checked and transformed.
extension Mapper {
  /// A value whose type holds no model, as one JSON value: a new reference
  /// (the input itself where it passes unchanged), or nil after reporting errors.
  mutating func leaf(_ value: JPtr, _ type: TypeRef, _ owner: Owner?, _ rules: ValueRules?) -> JPtr? {
    switch type {
    case .optional(let inner):
      if JValue.isNull(value) { return json_null() }
      return leaf(value, inner, owner, rules)
    case .array(let element):
      return leafArray(value, type, element, owner, rules)
    case .dict(let element):
      return leafDict(value, type, element, owner, rules)
    default:
      return leafScalar(value, type, owner, rules)
    }
  }

  /// An array of leaves, each mapped as `element`: the input itself when
  /// every element passes unchanged, else a new array from the first changed
  /// one; nil after reporting errors (every element is checked).
  @inline(__always)
  private mutating func leafArray(
    _ value: JPtr, _ type: TypeRef, _ element: TypeRef, _ owner: Owner?, _ rules: ValueRules?
  ) -> JPtr? {
    guard checkContainer(value, type, owner, JValue.isArray(value)) else { return nil }
    depth += 1
    defer { depth -= 1 }
    let count = json_array_size(value)
    var rebuilt: JPtr? = nil
    var failed = false
    for position in 0..<count {
      guard let member = json_array_get(value, position) else { continue }
      steps.append(.index(position))
      let item = leaf(member, element, owner, rules)
      steps.removeLast()
      guard let item else {
        failed = true
        continue
      }
      if rebuilt == nil && item != member && !failed {
        rebuilt = json_array()
        for earlier in 0..<position {
          if let kept = json_array_get(value, earlier) { _ = json_array_append(rebuilt, kept) }
        }
      }
      if let rebuilt { _ = json_array_append_new(rebuilt, item) } else { JValue.release(item) }
    }
    if failed {
      if let rebuilt { JValue.release(rebuilt) }
      return nil
    }
    return rebuilt ?? JValue.retain(value)
  }

  /// A dictionary of leaves, each value mapped as `element`: the input
  /// itself when every value passes unchanged, else a new object from the
  /// first changed one; nil after reporting errors (every value is checked).
  @inline(__always)
  private mutating func leafDict(
    _ value: JPtr, _ type: TypeRef, _ element: TypeRef, _ owner: Owner?, _ rules: ValueRules?
  ) -> JPtr? {
    guard checkContainer(value, type, owner, JValue.isObject(value)) else { return nil }
    depth += 1
    defer { depth -= 1 }
    var rebuilt: JPtr? = nil
    var failed = false
    var position = 0
    JValue.forEachMember(value) { key, member in
      steps.append(.key(key))
      let item = leaf(member, element, owner, rules)
      steps.removeLast()
      defer { position += 1 }
      guard let item else {
        failed = true
        return
      }
      if rebuilt == nil && item != member && !failed {
        let fresh = json_object()
        rebuilt = fresh
        var copied = 0
        JValue.forEachMember(value) { earlierKey, earlier in
          if copied < position, let fresh { JValue.setMember(fresh, earlierKey, JValue.retain(earlier)) }
          copied += 1
        }
      }
      if let rebuilt {
        JValue.setMember(rebuilt, key, item)
      } else {
        JValue.release(item)
      }
    }
    if failed {
      if let rebuilt { JValue.release(rebuilt) }
      return nil
    }
    return rebuilt ?? JValue.retain(value)
  }

  /// A scalar leaf: null only where the type is json; a number outside
  /// jansson's range read as the nearest double where the type is double;
  /// then checked against its type and `rules`.
  @inline(__always)
  private mutating func leafScalar(_ value: JPtr, _ type: TypeRef, _ owner: Owner?, _ rules: ValueRules?)
    -> JPtr?
  {
    if JValue.isNull(value) {
      if case .json = type { return json_null() }
      report(.null, "expected \(typeName(type)), found null", owner)
      return nil
    }
    var value = value
    var nearest: JPtr? = nil
    defer { if let nearest { JValue.release(nearest) } }
    if let numbers, !type.isJSON, let entry = numbers.consume(value) {
      guard case .double = type, case .integer(let double) = entry.kind, let real = json_real(double) else {
        report(.type, outOfRangeMessage(entry, type), owner)
        return nil
      }
      nearest = real
      value = real
    }
    guard let rules else { return scalar(value, type, owner, nil) }
    return ruledScalar(value, type, owner, rules)
  }

  /// A scalar under `rules`: its enum mapping (from an input value to its
  /// model value; canonical values must be model values), its type check,
  /// then its validation.
  @inline(__always)
  private mutating func ruledScalar(_ value: JPtr, _ type: TypeRef, _ owner: Owner?, _ rules: ValueRules)
    -> JPtr?
  {
    var mapped: JPtr? = nil
    if mode == .json, let enumMap = rules.enumMap {
      guard let modelValue = enumMap.forward(value) else {
        report(.enumValue, "\(Self.show(value)) is not one of the enum's values", owner)
        return nil
      }
      mapped = JValue.retain(modelValue)
    } else if mode == .canonical, let enumMap = rules.enumMap, !enumMap.holds(modelValue: value) {
      report(.enumValue, "\(Self.show(value)) is not one of the enum's model values", owner)
      return nil
    }
    guard let result = mapped ?? scalar(value, type, owner, rules) else { return nil }
    if let validation = rules.validation, validation.checksScalars,
      let failure = validation.scalarFailure(result)
    {
      report(.validation, failure, owner)
      JValue.release(result)
      return nil
    }
    return result
  }

  /// The message of a number outside jansson's range read as `type`.
  func outOfRangeMessage(_ entry: NumberMarkers.Entry, _ type: TypeRef) -> String {
    let text = entry.text.count > 40 ? String(entry.text.prefix(37)) + "..." : entry.text
    switch (type, entry.kind) {
    case (.int, .integer), (.int, .hugeInteger): return "integer outside 64 bits: \(text)"
    case (.double, _): return "number outside the range of a double: \(text)"
    case (_, .real):
      return "expected \(typeName(type)), found a number outside the range of a double: \(text)"
    default: return "expected \(typeName(type)), found an integer outside 64 bits: \(text)"
    }
  }

  /// A scalar checked against its type: a new reference, or nil after reporting.
  mutating func scalar(_ value: JPtr, _ type: TypeRef, _ owner: Owner?, _ rules: ValueRules?) -> JPtr? {
    switch type {
    case .date:
      return date(value, owner, rules)
    case .string:
      if JValue.isString(value) { return JValue.retain(value) }
    case .int:
      if JValue.isInteger(value) { return JValue.retain(value) }
    case .double:
      if JValue.isReal(value) { return JValue.retain(value) }
      if JValue.isInteger(value) { return json_real(Double(json_integer_value(value))) }
    case .bool:
      if JValue.isBool(value) { return JValue.retain(value) }
    case .json:
      if Nesting.exceeds(value, maxDepth - depth) {
        report(.depth, "input nested deeper than \(maxDepth) levels (in a json value)", owner)
        return nil
      }
      return JValue.retain(value)
    case .url:
      if JValue.isString(value) {
        if URLCheck.isAbsolute(JValue.stringBytes(value)) { return JValue.retain(value) }
        report(.format, "\(Self.show(value)) is not an absolute URL with a scheme", owner)
        return nil
      }
    default:
      break
    }
    report(.type, "expected \(typeName(type)), found \(JValue.typeName(value))", owner)
    return nil
  }

  /// A date: read in the property's format (canonical values: RFC 3339), kept
  /// as its canonical RFC 3339 UTC string. Input already in that form is shared.
  mutating func date(_ value: JPtr, _ owner: Owner?, _ rules: ValueRules?) -> JPtr? {
    let format = mode == .json ? rules?.dateFormat ?? .iso8601 : .iso8601
    let offset = mode == .json ? rules?.timezone ?? 0 : 0
    var parsed: DateValue? = nil
    if JValue.isString(value) && format.isText {
      parsed = format.date(text: JValue.stringBytes(value), defaultOffset: offset)
    } else if JValue.isInteger(value) && !format.isText {
      parsed = format.date(integer: json_integer_value(value))
    } else if JValue.isReal(value) && !format.isText {
      parsed = format.date(real: json_real_value(value))
    } else {
      let expected = format.isText ? "a date string (\(format.name))" : "a number of \(format.name) time"
      report(.type, "expected \(expected), found \(JValue.typeName(value))", owner)
      return nil
    }
    guard let parsed else {
      report(.format, "\(Self.show(value)) is not a date in the format \(format.name)", owner)
      return nil
    }
    if format == .iso8601 && JValue.isString(value) && Self.isCanonicalDate(JValue.stringBytes(value)) {
      return JValue.retain(value)
    }
    return RFC3339Formatter.jansson(parsed)
  }

  /// True for `YYYY-MM-DDTHH:MM:SSZ` that parsed: already the canonical form.
  @inline(__always) static func isCanonicalDate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    bytes.count == 20 && bytes[10] == UInt8(ascii: "T") && bytes[19] == UInt8(ascii: "Z")
  }

  /// A short rendering of a value for messages.
  /// Scalars are shown as JSON; arrays and objects by their type and size
  /// (never dumped: a C caller's json_t may nest deeper than any stack).
  package static func show(_ value: JPtr) -> String {
    if JValue.isArray(value) { return "an array of \(json_array_size(value)) elements" }
    if JValue.isObject(value) { return "an object of \(json_object_size(value)) members" }
    guard let text = json_dumps(value, Int(JSON_ENCODE_ANY | JSON_COMPACT)) else {
      return JValue.typeName(value)
    }
    defer { free(text) }
    let rendered = String(cString: text)
    if rendered.count > 60 { return String(rendered.prefix(57)) + "..." }
    return rendered
  }
}
