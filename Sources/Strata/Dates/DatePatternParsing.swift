extension DatePattern {
  /// The instant `bytes` spell in this pattern, or nil.
  ///
  /// The whole text must match. Year, month and day come from the text; time
  /// fields it lacks are 0; without an offset field the text is read at
  /// `defaultOffset` seconds east of UTC. Nil when the date or time does not
  /// exist (February 29 of 2015, September 31, hour 25), when a weekday name
  /// is not the date's weekday, when `a` contradicts a 24-hour `H`, when a
  /// field appears twice with different values, or when the instant falls
  /// outside years 0001-9999.
  func parse(_ bytes: UnsafeBufferPointer<UInt8>, defaultOffset: Int) -> DateValue? {
    var scanner = DateScanner(bytes)
    var read = DatePatternReading()
    for token in tokens {
      guard read.read(token, from: &scanner) else { return nil }
    }
    guard scanner.isAtEnd else { return nil }
    return read.date(defaultOffset: defaultOffset)
  }

  /// The instant `text` spells in this pattern (see `parse(_:defaultOffset:)`).
  func parse(_ text: String, defaultOffset: Int) -> DateValue? {
    var text = text
    return text.withUTF8 { parse($0, defaultOffset: defaultOffset) }
  }
}

/// The fields read so far while a pattern parses a text.
private struct DatePatternReading {
  /// The year, when read.
  var year: Int?
  /// The month, when read.
  var month: Int?
  /// The day of the month, when read.
  var day: Int?
  /// The hour from `H`, when read.
  var hour24: Int?
  /// The hour from `h` (1-12), when read.
  var hour12: Int?
  /// True for PM, false for AM, when `a` was read.
  var afternoon: Bool?
  /// The minute, when read.
  var minute: Int?
  /// The second, when read.
  var second: Int?
  /// The nanoseconds, when read.
  var nanosecond: Int?
  /// The weekday (0 Monday ... 6 Sunday), when read.
  var weekday: Int?
  /// The offset in seconds, when read.
  var offset: Int?

  /// Stores `value` in `slot`; false when the slot already holds another value.
  private static func store<Value: Equatable>(_ value: Value, in slot: inout Value?) -> Bool {
    if let existing = slot, existing != value { return false }
    slot = value
    return true
  }

  /// Reads `token` at the scanner; false when the text does not match it.
  mutating func read(_ token: DatePatternToken, from scanner: inout DateScanner) -> Bool {
    switch token {
    case .literal(let literal):
      return scanner.consume(literal)
    case .year(let minimumDigits):
      guard let value = scanner.digits(atLeast: minimumDigits, atMost: 4) else { return false }
      return Self.store(value, in: &year)
    case .twoDigitYear:
      guard let value = scanner.digits(exactly: 2) else { return false }
      return Self.store(value < 50 ? 2000 + value : 1900 + value, in: &year)
    case .number(let field, let digits):
      guard let value = scanner.digits(atLeast: digits, atMost: 2) else { return false }
      switch field {
      case .month: return Self.store(value, in: &month)
      case .day: return Self.store(value, in: &day)
      case .hour24: return Self.store(value, in: &hour24)
      case .hour12: return Self.store(value, in: &hour12)
      case .minute: return Self.store(value, in: &minute)
      case .second: return Self.store(value, in: &second)
      }
    case .monthName(let full):
      guard let index = scanner.name(in: full ? EnglishDateNames.months : EnglishDateNames.shortMonths)
      else { return false }
      return Self.store(index + 1, in: &month)
    case .weekdayName(let full):
      guard let index = scanner.name(in: full ? EnglishDateNames.weekdays : EnglishDateNames.shortWeekdays)
      else { return false }
      return Self.store(index, in: &weekday)
    case .dayPeriod:
      guard let index = scanner.name(in: EnglishDateNames.dayPeriods) else { return false }
      return Self.store(index == 1, in: &afternoon)
    case .fraction(let digits):
      guard let value = scanner.digits(exactly: digits) else { return false }
      var nanoseconds = value
      var scale = digits
      while scale < 9 {
        nanoseconds *= 10
        scale += 1
      }
      return Self.store(nanoseconds, in: &nanosecond)
    case .offset:
      guard let value = TimeZoneOffset.scan(&scanner, allowsZ: true) else { return false }
      return Self.store(value, in: &offset)
    }
  }

  /// The instant the fields name, or nil (see `DatePattern.parse`).
  func date(defaultOffset: Int) -> DateValue? {
    guard let year, let month, let day else { return nil }
    var hour = hour24 ?? 0
    if let hour12 {
      guard hour12 >= 1, hour12 <= 12, let afternoon else { return nil }
      let converted = hour12 % 12 + (afternoon ? 12 : 0)
      if let hour24, hour24 != converted { return nil }
      hour = converted
    } else if let hour24, let afternoon, (hour24 >= 12) != afternoon {
      return nil
    }
    let fields = DateFields(
      year: Int64(year), month: Int64(month), day: Int64(day), hour: Int64(hour), minute: Int64(minute ?? 0),
      second: Int64(second ?? 0), nanosecond: Int64(nanosecond ?? 0))
    if let weekday, fields.exists, fields.weekday != weekday { return nil }
    return fields.date(offset: offset ?? defaultOffset)
  }
}
