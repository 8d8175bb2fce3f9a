/// The `format` of a `date` property: how its JSON spells an instant.
enum DateFormat: Sendable, Hashable {
  /// RFC 3339 / ISO 8601 text (`ISO8601DateParser`, `RFC3339Formatter`).
  case iso8601
  /// Seconds since the epoch, a JSON integer or real.
  case unix
  /// Milliseconds since the epoch, a JSON integer or real.
  case unixMilliseconds
  /// Text in a Unicode date pattern.
  case pattern(DatePattern)

  /// The format named `name`: `iso8601`, `unix`, `unix-ms`, else a date
  /// pattern (whose compile error is returned).
  static func parse(_ name: String) -> Result<DateFormat, DatePatternError> {
    switch name {
    case "iso8601": return .success(.iso8601)
    case "unix": return .success(.unix)
    case "unix-ms": return .success(.unixMilliseconds)
    default: return DatePattern.compile(name).map { .pattern($0) }
    }
  }

  /// The name `parse` reads back into this format.
  var name: String {
    switch self {
    case .iso8601: return "iso8601"
    case .unix: return "unix"
    case .unixMilliseconds: return "unix-ms"
    case .pattern(let pattern): return pattern.source
    }
  }

  /// True for the formats whose JSON is text (`iso8601`, patterns).
  var isText: Bool {
    switch self {
    case .iso8601, .pattern: return true
    case .unix, .unixMilliseconds: return false
    }
  }

  /// The instant JSON text `bytes` spells, reading text without a zone at
  /// `defaultOffset`; nil when it does not, or when this format is numeric.
  func date(text bytes: UnsafeBufferPointer<UInt8>, defaultOffset: Int) -> DateValue? {
    switch self {
    case .iso8601: return ISO8601DateParser.parse(bytes, defaultOffset: defaultOffset)
    case .pattern(let pattern): return pattern.parse(bytes, defaultOffset: defaultOffset)
    case .unix, .unixMilliseconds: return nil
    }
  }

  /// The instant a JSON integer names; nil when out of range or when this
  /// format is text.
  func date(integer: Int64) -> DateValue? {
    switch self {
    case .unix: return UnixTime.date(seconds: integer)
    case .unixMilliseconds: return UnixTime.date(milliseconds: integer)
    case .iso8601, .pattern: return nil
    }
  }

  /// The instant a JSON real names; nil when not finite, out of range, or
  /// when this format is text.
  func date(real: Double) -> DateValue? {
    switch self {
    case .unix: return UnixTime.date(seconds: real)
    case .unixMilliseconds: return UnixTime.date(milliseconds: real)
    case .iso8601, .pattern: return nil
    }
  }

  /// `value` as this format writes it; text formats write it as read at
  /// `offset` seconds east of UTC (`iso8601` at offset 0 is the canonical
  /// form), Unix numbers ignore the offset.
  func represent(_ value: DateValue, offset: Int) -> DateRepresentation {
    switch self {
    case .iso8601: return .text(RFC3339Formatter.format(value, offset: offset))
    case .pattern(let pattern): return .text(pattern.format(value, offset: offset))
    case .unix, .unixMilliseconds:
      switch self == .unix ? UnixTime.seconds(value) : UnixTime.milliseconds(value) {
      case .integer(let number): return .integer(number)
      case .real(let number): return .real(number)
      }
    }
  }
}
