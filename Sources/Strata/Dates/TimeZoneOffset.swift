/// A fixed offset from UTC in seconds, east positive: what a date's text says
/// after the time (`Z`, `+02:00`) or a property's `timezone`.
///
/// IANA zone names (`Europe/Paris`) are not supported: without Foundation
/// there is no time zone database.
struct TimeZoneOffset: Sendable, Hashable {
  /// Seconds east of UTC, within `validSeconds`.
  var seconds: Int

  /// Offsets the engine accepts anywhere: less than a day either way. Text
  /// can only spell whole minutes up to 23:59.
  static let validSeconds = -86_399...86_399
  /// UTC, offset 0.
  static let utc = TimeZoneOffset(seconds: 0)

  /// True when `seconds` lies in `validSeconds`.
  static func isValid(_ seconds: Int) -> Bool { validSeconds.contains(seconds) }

  /// An offset of `seconds`, unchecked (see `isValid`).
  init(seconds: Int) {
    self.seconds = seconds
  }

  /// Parses `UTC`, `Z`, `+HH:MM`, `-HHMM` or `+HH` (hours 00-23, minutes
  /// 00-59); nil for anything else.
  init?(_ text: String) {
    var text = text
    guard let seconds = text.withUTF8({ TimeZoneOffset.parse($0) }) else { return nil }
    self.seconds = seconds
  }

  /// The offset in seconds spelled by the whole of `bytes` (see `init?(_:)`), or nil.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    if bytes.elementsEqual("UTC".utf8) || bytes.elementsEqual("Z".utf8) { return 0 }
    var scanner = DateScanner(bytes)
    guard let seconds = scan(&scanner, allowsZ: false), scanner.isAtEnd else { return nil }
    return seconds
  }

  /// Reads an offset at the scanner: `Z` or `z` (when `allowsZ`), `±HH`,
  /// `±HHMM` or `±HH:MM`, hours 00-23 and minutes 00-59. Returns its seconds,
  /// or nil (the scanner's position is then unspecified).
  static func scan(_ scanner: inout DateScanner, allowsZ: Bool) -> Int? {
    guard let first = scanner.peek() else { return nil }
    if first == UInt8(ascii: "Z") || first == UInt8(ascii: "z") {
      guard allowsZ else { return nil }
      scanner.skip()
      return 0
    }
    let sign: Int
    switch first {
    case UInt8(ascii: "+"): sign = 1
    case UInt8(ascii: "-"): sign = -1
    default: return nil
    }
    scanner.skip()
    guard let hours = scanner.digits(exactly: 2), hours <= 23 else { return nil }
    var minutes = 0
    if scanner.consume(UInt8(ascii: ":")) {
      guard let value = scanner.digits(exactly: 2) else { return nil }
      minutes = value
    } else if let value = scanner.digits(exactly: 2) {
      minutes = value
    }
    guard minutes <= 59 else { return nil }
    return sign * (hours * 3600 + minutes * 60)
  }
}
