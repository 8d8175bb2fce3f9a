extension DatePattern {
  /// The text of `value` in this pattern as read at `offset` seconds east of
  /// UTC (whole minutes; an offset outside `TimeZoneOffset.validSeconds`
  /// counts as 0). Offset fields write that offset.
  func format(_ value: DateValue, offset: Int) -> String {
    let offset = TimeZoneOffset.isValid(offset) ? offset / 60 * 60 : 0
    let fields = DateFields(value, offset: offset)
    return String(unsafeUninitializedCapacity: maximumFormattedLength) { buffer in
      var writer = DateByteWriter(buffer)
      for token in tokens {
        write(token, fields: fields, offset: offset, to: &writer)
      }
      return writer.count
    }
  }

  /// Writes one token of the text of `fields` at `offset`.
  private func write(
    _ token: DatePatternToken, fields: DateFields, offset: Int, to writer: inout DateByteWriter
  ) {
    switch token {
    case .literal(let bytes):
      writer.write(bytes)
    case .year(let minimumDigits):
      writer.writeNumber(fields.year, minimumDigits: minimumDigits)
    case .twoDigitYear:
      writer.writeTwoDigits(CivilCalendar.floorDivide(fields.year, by: 100).remainder)
    case .number(let field, let digits):
      let value: Int64
      switch field {
      case .month: value = fields.month
      case .day: value = fields.day
      case .hour24: value = fields.hour
      case .hour12: value = fields.hour % 12 == 0 ? 12 : fields.hour % 12
      case .minute: value = fields.minute
      case .second: value = fields.second
      }
      writer.writeNumber(value, minimumDigits: digits)
    case .monthName(let full):
      writer.write(
        EnglishDateNames.name(
          full ? EnglishDateNames.months : EnglishDateNames.shortMonths, at: fields.month - 1))
    case .weekdayName(let full):
      writer.write(
        EnglishDateNames.name(
          full ? EnglishDateNames.weekdays : EnglishDateNames.shortWeekdays, at: Int64(fields.weekday)))
    case .dayPeriod:
      writer.write(EnglishDateNames.name(EnglishDateNames.dayPeriods, at: fields.hour >= 12 ? 1 : 0))
    case .fraction(let digits):
      var value = fields.nanosecond
      var scale = max(digits, 0)
      while scale < 9 {
        value /= 10
        scale += 1
      }
      writer.writeNumber(value, minimumDigits: digits)
    case .offset(let style):
      writer.writeOffset(
        offset, separator: style.separator, optionalMinutes: style.optionalMinutes, zForZero: style.zForZero)
    }
  }
}
