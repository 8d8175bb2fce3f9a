/// Reads the `iso8601` date format: RFC 3339 and the common ISO 8601
/// profile around it, from UTF-8 bytes, without allocating.
///
/// Grammar: `YYYY-MM-DD`, then optionally `T`, `t` or a space and `HH:MM`,
/// optionally `:SS`, optionally (after seconds) `.` and one or more digits
/// (any number; kept to the nanosecond, further digits truncated), then
/// optionally a zone `Z`, `z`, `+HH:MM`, `-HHMM` or `+HH`. A date alone is
/// midnight. Text without a zone is read at the default offset.
///
/// Refused (nil): a date or time that does not exist (2015-02-29, month 13,
/// hour 24 including `24:00:00`, minute 60, second 60: leap seconds are not
/// accepted), a zone beyond 23:59, missing or extra digits, anything after
/// the date, and instants outside 0001-01-01T00:00:00Z...9999-12-31T23:59:59.999999999Z.
package enum ISO8601DateParser {
  /// The instant `bytes` spell, reading text without a zone at
  /// `defaultOffset` seconds east of UTC; nil when the text is not a valid
  /// date (or the default offset is needed but outside `TimeZoneOffset.validSeconds`).
  package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, defaultOffset: Int = 0) -> DateValue? {
    var scanner = DateScanner(bytes)
    guard let year = scanner.digits(exactly: 4), scanner.consume(UInt8(ascii: "-")),
      let month = scanner.digits(exactly: 2), scanner.consume(UInt8(ascii: "-")),
      let day = scanner.digits(exactly: 2)
    else { return nil }
    var fields = DateFields(year: Int64(year), month: Int64(month), day: Int64(day))
    var offset = defaultOffset
    if let separator = scanner.peek() {
      guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ")
      else { return nil }
      scanner.skip()
      guard let hour = scanner.digits(exactly: 2), scanner.consume(UInt8(ascii: ":")),
        let minute = scanner.digits(exactly: 2)
      else { return nil }
      fields.hour = Int64(hour)
      fields.minute = Int64(minute)
      if scanner.consume(UInt8(ascii: ":")) {
        guard let second = scanner.digits(exactly: 2) else { return nil }
        fields.second = Int64(second)
        if scanner.consume(UInt8(ascii: ".")) {
          guard let nanosecond = scanner.fractionNanoseconds() else { return nil }
          fields.nanosecond = Int64(nanosecond)
        }
      }
      if !scanner.isAtEnd {
        guard let zone = TimeZoneOffset.scan(&scanner, allowsZ: true), scanner.isAtEnd else { return nil }
        offset = zone
      }
    }
    return fields.date(offset: offset)
  }

  /// The instant `text` spells (see `parse(_:defaultOffset:)`).
  static func parse(_ text: String, defaultOffset: Int = 0) -> DateValue? {
    var text = text
    return text.withUTF8 { parse($0, defaultOffset: defaultOffset) }
  }
}
