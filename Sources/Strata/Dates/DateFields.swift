/// An instant broken down into calendar fields at some UTC offset: what a
/// date's text says (`2013-07-02 18:40:00` at +02:00).
struct DateFields: Sendable, Hashable {
  /// The year, 1-9999 for a valid date.
  var year: Int64
  /// The month, 1-12.
  var month: Int64
  /// The day of the month, 1-31.
  var day: Int64
  /// The hour, 0-23.
  var hour: Int64
  /// The minute, 0-59.
  var minute: Int64
  /// The second, 0-59 (leap seconds are not represented).
  var second: Int64
  /// The part of a second, 0-999_999_999.
  var nanosecond: Int64

  /// Makes fields as given; the time of day defaults to midnight.
  init(
    year: Int64, month: Int64, day: Int64, hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0,
    nanosecond: Int64 = 0
  ) {
    self.year = year
    self.month = month
    self.day = day
    self.hour = hour
    self.minute = minute
    self.second = second
    self.nanosecond = nanosecond
  }

  /// The fields of `value` as read at `offset` seconds east of UTC. Total: an
  /// offset outside `TimeZoneOffset.validSeconds` counts as 0, and an invalid
  /// value gives fields outside the usual ranges instead of trapping.
  init(_ value: DateValue, offset: Int) {
    let offset = TimeZoneOffset.isValid(offset) ? Int64(offset) : 0
    let (shifted, overflow) = value.seconds.addingReportingOverflow(offset)
    let local = overflow ? value.seconds : shifted
    let (days, secondOfDay) = CivilCalendar.floorDivide(local, by: 86_400)
    let (year, month, day) = CivilCalendar.civil(days: days)
    self.init(
      year: year, month: month, day: day, hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60,
      second: secondOfDay % 60, nanosecond: value.clampedNanoseconds)
  }

  /// The day number (days since 1970-01-01) of the date part.
  var dayNumber: Int64 { CivilCalendar.days(year: year, month: month, day: day) }

  /// The weekday of the date part: 0 for Monday through 6 for Sunday.
  var weekday: Int { CivilCalendar.weekday(days: dayNumber) }

  /// True when the fields name a time that exists: year 1-9999, a month and
  /// day of the calendar, hour 0-23, minute and second 0-59, nanosecond in range.
  var exists: Bool {
    year >= 1 && year <= 9999 && day >= 1 && day <= CivilCalendar.daysInMonth(year: year, month: month)
      && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59
      && nanosecond >= 0 && nanosecond < 1_000_000_000
  }

  /// The instant these fields name at `offset` seconds east of UTC, or nil when
  /// the time does not exist, the offset is not valid, or the instant falls
  /// outside years 0001-9999 in UTC.
  func date(offset: Int) -> DateValue? {
    guard exists, TimeZoneOffset.isValid(offset) else { return nil }
    let local = dayNumber * 86_400 + hour * 3600 + minute * 60 + second
    return DateValue(validating: local - Int64(offset), nanoseconds: nanosecond)
  }
}
