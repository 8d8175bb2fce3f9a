import CJansson
import Glibc

/// A compiled POSIX extended regular expression (glibc), matched anywhere in
/// the string (anchor with `^` and `$`). Immutable; glibc's regexec is safe to
/// call from several threads on one compiled expression.
final class Pattern: @unchecked Sendable {
  let source: String
  private let compiled: UnsafeMutablePointer<regex_t>

  /// Compiles `source`, or returns the compiler's message.
  static func compile(_ source: String) -> Result<Pattern, TypeParseError> {
    let compiled = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
    let status = regcomp(compiled, source, REG_EXTENDED | REG_NOSUB)
    if status != 0 {
      var buffer = [CChar](repeating: 0, count: 256)
      _ = regerror(status, compiled, &buffer, buffer.count)
      compiled.deallocate()
      let message = String(
        decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      return .failure(
        TypeParseError(message: "'pattern' \(source) is not a POSIX extended regular expression: \(message)"))
    }
    return .success(Pattern(source: source, compiled: compiled))
  }

  private init(source: String, compiled: UnsafeMutablePointer<regex_t>) {
    self.source = source
    self.compiled = compiled
  }

  deinit {
    regfree(compiled)
    compiled.deallocate()
  }

  /// True when the expression matches somewhere in the string value (borrowed).
  func matches(_ value: JPtr) -> Bool {
    guard let text = json_string_value(value) else { return false }
    return regexec(compiled, text, 0, nil, 0) == 0
  }
}

/// A bound of `min` / `max`: a number, or an instant for dates (kept as its canonical string).
enum Bound: Sendable {
  case integer(Int64)
  case real(Double)

  /// -1, 0, 1 comparing a JSON number (borrowed) with the bound; nil for a non-number.
  func compare(_ value: JPtr) -> Int? {
    if JValue.isInteger(value) {
      let number = json_integer_value(value)
      switch self {
      case .integer(let bound): return number < bound ? -1 : (number > bound ? 1 : 0)
      case .real(let bound):
        let real = Double(number)
        return real < bound ? -1 : (real > bound ? 1 : 0)
      }
    }
    if JValue.isReal(value) {
      let real = json_real_value(value)
      let bound: Double
      switch self {
      case .integer(let integer): bound = Double(integer)
      case .real(let number): bound = number
      }
      return real < bound ? -1 : (real > bound ? 1 : 0)
    }
    return nil
  }

  /// The bound as a real number.
  var asDouble: Double {
    switch self {
    case .integer(let value): return Double(value)
    case .real(let value): return value
    }
  }

  var text: String {
    switch self {
    case .integer(let value): return String(value)
    case .real(let value): return String(value)
    }
  }
}

/// The `validate` rules of a property.
final class Validation: @unchecked Sendable {
  var minimum: Bound? = nil
  var maximum: Bound? = nil
  /// For dates: bounds as canonical RFC 3339 UTC strings, compared as instants.
  var minimumDate: JPtr? = nil
  var maximumDate: JPtr? = nil
  var minLength: Int? = nil
  var maxLength: Int? = nil
  var pattern: Pattern? = nil
  /// Allowed canonical values (owned references), or nil.
  var allowed: [JPtr]? = nil

  deinit {
    for value in allowed ?? [] { JValue.release(value) }
    if let minimumDate { JValue.release(minimumDate) }
    if let maximumDate { JValue.release(maximumDate) }
  }

  /// True when only length rules are set (nothing to check per scalar).
  var checksScalars: Bool {
    minimum != nil || maximum != nil || minimumDate != nil || maximumDate != nil || pattern != nil
      || allowed != nil
  }

  /// The first scalar rule the canonical value (borrowed) breaks, as a message; nil if none.
  func scalarFailure(_ value: JPtr) -> String? {
    if let minimum, let order = minimum.compare(value), order < 0 {
      return "\(Mapper.show(value)) is less than the minimum \(minimum.text)"
    }
    if let maximum, let order = maximum.compare(value), order > 0 {
      return "\(Mapper.show(value)) is greater than the maximum \(maximum.text)"
    }
    if let minimumDate, JValue.isString(value), DateOrder.compare(value, minimumDate) < 0 {
      return "\(Mapper.show(value)) is earlier than the minimum \(Mapper.show(minimumDate))"
    }
    if let maximumDate, JValue.isString(value), DateOrder.compare(value, maximumDate) > 0 {
      return "\(Mapper.show(value)) is later than the maximum \(Mapper.show(maximumDate))"
    }
    if let pattern, JValue.isString(value), !pattern.matches(value) {
      return "\(Mapper.show(value)) does not match the pattern \(pattern.source)"
    }
    if let allowed, !allowed.contains(where: { json_equal($0, value) != 0 }) {
      return "\(Mapper.show(value)) is not one of the allowed values"
    }
    return nil
  }

  /// The length rule a string, array or object (borrowed) breaks, as a message; nil if none.
  func lengthFailure(_ length: Int, of what: String) -> String? {
    if let minLength, length < minLength {
      return "\(what) has length \(length), less than the minimum length \(minLength)"
    }
    if let maxLength, length > maxLength {
      return "\(what) has length \(length), more than the maximum length \(maxLength)"
    }
    return nil
  }

  /// The number of Unicode scalars of a string value: its length in characters.
  static func characterCount(_ value: JPtr) -> Int {
    var count = 0
    for byte in JValue.stringBytes(value) where byte & 0xC0 != 0x80 { count += 1 }
    return count
  }
}

/// Orders canonical date strings. Canonical RFC 3339 UTC strings of years
/// 0001-9999 order as text, except that a fraction sorts before `Z`: compare
/// seconds first, then the fraction.
enum DateOrder {
  static func compare(_ a: JPtr, _ b: JPtr) -> Int {
    let left = JValue.stringBytes(a)
    let right = JValue.stringBytes(b)
    // "YYYY-MM-DDTHH:MM:SS" is 19 bytes in both.
    let head = min(19, left.count, right.count)
    for index in 0..<head where left[index] != right[index] {
      return left[index] < right[index] ? -1 : 1
    }
    let leftFraction = fraction(left)
    let rightFraction = fraction(right)
    return leftFraction < rightFraction ? -1 : (leftFraction > rightFraction ? 1 : 0)
  }

  /// The nanoseconds of a canonical string's fraction.
  private static func fraction(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    guard bytes.count > 20, bytes[19] == UInt8(ascii: ".") else { return 0 }
    var value = 0
    var digits = 0
    for byte in bytes[20...] where byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") && digits < 9 {
      value = value * 10 + Int(byte - UInt8(ascii: "0"))
      digits += 1
    }
    while digits < 9 {
      value *= 10
      digits += 1
    }
    return value
  }
}
