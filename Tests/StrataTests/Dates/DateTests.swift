import Testing

@testable import Strata

/// Parses ISO 8601 text at `offset`.
private func iso(_ text: String, offset: Int = 0) -> DateValue? {
  ISO8601DateParser.parse(text, defaultOffset: offset)
}

/// The canonical text of an ISO 8601 parse, or nil.
private func canonical(_ text: String, offset: Int = 0) -> String? {
  iso(text, offset: offset).map { RFC3339Formatter.format($0) }
}

/// Compiles a pattern the test expects to be valid.
private func pattern(_ source: String) throws -> DatePattern {
  try DatePattern.compile(source).get()
}

/// The compile error of a pattern the test expects to be invalid, or "".
private func patternError(_ source: String) -> String {
  switch DatePattern.compile(source) {
  case .success: return ""
  case .failure(let error): return error.message
  }
}

@Suite struct DateTests {
  // MARK: Calendar

  @Test func calendarRoundTripsEveryDayFromYear1To9999() {
    var failures: [String] = []
    var previous = CivilCalendar.civil(days: CivilCalendar.firstDay - 1)
    var previousWeekday = CivilCalendar.weekday(days: CivilCalendar.firstDay - 1)
    var day = CivilCalendar.firstDay
    while day <= CivilCalendar.lastDay {
      let civil = CivilCalendar.civil(days: day)
      if CivilCalendar.days(year: civil.year, month: civil.month, day: civil.day) != day {
        failures.append("day \(day) -> \(civil) does not come back")
      }
      let nextInMonth =
        civil.year == previous.year && civil.month == previous.month && civil.day == previous.day + 1
      let monthLength = CivilCalendar.daysInMonth(year: previous.year, month: previous.month)
      let nextMonth =
        civil.year == previous.year && civil.month == previous.month + 1 && civil.day == 1
        && previous.day == monthLength
      let nextYear =
        civil.year == previous.year + 1 && civil.month == 1 && civil.day == 1 && previous.month == 12
        && previous.day == 31
      if !(nextInMonth || nextMonth || nextYear) {
        failures.append("\(previous) is not followed by \(civil)")
      }
      let weekday = CivilCalendar.weekday(days: day)
      if weekday != (previousWeekday + 1) % 7 {
        failures.append("weekday of day \(day)")
      }
      if failures.count > 5 { break }
      previous = civil
      previousWeekday = weekday
      day += 1
    }
    #expect(failures.isEmpty, "\(failures)")
    #expect(CivilCalendar.civil(days: CivilCalendar.firstDay) == (1, 1, 1))
    #expect(CivilCalendar.civil(days: CivilCalendar.lastDay) == (9999, 12, 31))
    #expect(CivilCalendar.civil(days: 0) == (1970, 1, 1))
    #expect(CivilCalendar.civil(days: -1) == (1969, 12, 31))
    #expect(CivilCalendar.weekday(days: 0) == 3)  // Thursday
    #expect(CivilCalendar.weekday(days: CivilCalendar.firstDay) == 0)  // Monday
    #expect(CivilCalendar.weekday(days: CivilCalendar.lastDay) == 4)  // Friday
  }

  @Test func calendarConstantsAndLeapYears() {
    #expect(CivilCalendar.days(year: 1, month: 1, day: 1) * 86_400 == DateValue.minimumSeconds)
    #expect(CivilCalendar.days(year: 9999, month: 12, day: 31) * 86_400 + 86_399 == DateValue.maximumSeconds)
    #expect(CivilCalendar.isLeapYear(2000))
    #expect(!CivilCalendar.isLeapYear(1900))
    #expect(CivilCalendar.isLeapYear(2024))
    #expect(!CivilCalendar.isLeapYear(2023))
    #expect(CivilCalendar.isLeapYear(4))
    #expect(CivilCalendar.daysInMonth(year: 2024, month: 2) == 29)
    #expect(CivilCalendar.daysInMonth(year: 2023, month: 2) == 28)
    #expect(CivilCalendar.daysInMonth(year: 2023, month: 13) == 0)
    // Total on absurd input: clamps, never traps.
    _ = CivilCalendar.civil(days: Int64.max)
    _ = CivilCalendar.civil(days: Int64.min)
    _ = CivilCalendar.days(year: Int64.max, month: Int64.min, day: Int64.max)
  }

  // MARK: DateValue

  @Test func dateValueOrdersAndChecks() {
    let a = DateValue(seconds: -1, nanoseconds: 999_999_999)
    let b = DateValue(seconds: 0, nanoseconds: 0)
    let c = DateValue(seconds: 0, nanoseconds: 1)
    #expect(a < b && b < c && a < c)
    #expect([c, a, b].sorted() == [a, b, c])
    #expect(Set([a, b, c, DateValue(seconds: 0)]).count == 3)
    #expect(DateValue.earliest.isValid && DateValue.latest.isValid)
    #expect(!DateValue(seconds: DateValue.maximumSeconds + 1).isValid)
    #expect(!DateValue(seconds: 0, nanoseconds: -1).isValid)
    #expect(!DateValue(seconds: 0, nanoseconds: 1_000_000_000).isValid)
    #expect(DateValue(validating: DateValue.minimumSeconds - 1) == nil)
    #expect(DateValue(validating: 0, nanoseconds: 1_000_000_000) == nil)
    #expect(DateValue(validating: 5, nanoseconds: 7) == DateValue(seconds: 5, nanoseconds: 7))
    #expect(DateValue(seconds: 1_372_783_200).description == "2013-07-02T16:40:00Z")
  }

  // MARK: ISO 8601 parsing

  @Test(arguments: [
    ("2013-07-02T16:40:00Z", "2013-07-02T16:40:00Z"),
    ("2013-07-02t16:40:00z", "2013-07-02T16:40:00Z"),
    ("2013-07-02 16:40:00Z", "2013-07-02T16:40:00Z"),
    ("2013-07-02T16:40Z", "2013-07-02T16:40:00Z"),
    ("2013-07-02T16:40", "2013-07-02T16:40:00Z"),
    ("2013-07-02T16:40:00", "2013-07-02T16:40:00Z"),
    ("2015-09-25", "2015-09-25T00:00:00Z"),
    ("2013-07-02T18:40:00+02:00", "2013-07-02T16:40:00Z"),
    ("2013-07-02T18:40:00+0200", "2013-07-02T16:40:00Z"),
    ("2013-07-02T18:40:00+02", "2013-07-02T16:40:00Z"),
    ("2013-07-02T15:10:00-0130", "2013-07-02T16:40:00Z"),
    ("2013-07-02T16:40:00-00:00", "2013-07-02T16:40:00Z"),
    ("2013-07-02T21:40+05", "2013-07-02T16:40:00Z"),
    ("2013-07-02T16:40:00.5Z", "2013-07-02T16:40:00.5Z"),
    ("2013-07-02T16:40:00.500Z", "2013-07-02T16:40:00.5Z"),
    ("2013-07-02T16:40:00.123Z", "2013-07-02T16:40:00.123Z"),
    ("2013-07-02T16:40:00.000001Z", "2013-07-02T16:40:00.000001Z"),
    ("2013-07-02T16:40:00.123456789Z", "2013-07-02T16:40:00.123456789Z"),
    ("2013-07-02T16:40:00.1234567891234567Z", "2013-07-02T16:40:00.123456789Z"),
    ("2013-07-02T16:40:00.000000000Z", "2013-07-02T16:40:00Z"),
    ("2013-07-02T16:40:00.0000000009Z", "2013-07-02T16:40:00Z"),
    ("2013-07-02T18:40:00.25+02:00", "2013-07-02T16:40:00.25Z"),
    ("2000-02-29T12:00:00Z", "2000-02-29T12:00:00Z"),
    ("2024-02-29", "2024-02-29T00:00:00Z"),
    ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
    ("9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59.999999999Z"),
    ("1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"),
    ("2013-07-02T23:59:59Z", "2013-07-02T23:59:59Z"),
  ])
  func isoParsesValidText(input: String, expected: String) {
    #expect(canonical(input) == expected)
  }

  @Test(arguments: [
    "", "2015", "2015-09", "2015-9-25", "2015-09-5", "15-09-25", "2015/09/25", "20150925",
    "2015-02-29", "1900-02-29", "2015-09-31", "2015-04-31", "2015-13-01", "2015-00-10", "2015-01-00",
    "2015-01-32", "0000-12-31", "0000-01-01T00:00:00Z", "10000-01-01", "-2015-01-01",
    "2015-09-25T24:00:00Z", "2015-09-25T24:00", "2015-09-25T25:00:00Z", "2015-09-25T12:60:00Z",
    "2015-09-25T12:00:60Z", "2015-12-31T23:59:60Z", "2015-09-25T1:00:00Z", "2015-09-25T12:0:00Z",
    "2015-09-25T12:00:0Z", "2015-09-25T12", "2015-09-25T", "2015-09-25 ", "2015-09-25X12:00:00Z",
    "2015-09-25T12:00:00.Z", "2015-09-25T12:00:00,5Z", "2015-09-25T12:00.5Z", "2015-09-25T12:00:00ZZ",
    "2015-09-25T12:00:00Z ", " 2015-09-25T12:00:00Z", "2015-09-25T12:00:00+2", "2015-09-25T12:00:00+02:0",
    "2015-09-25T12:00:00+020", "2015-09-25T12:00:00+24:00", "2015-09-25T12:00:00+02:60",
    "2015-09-25T12:00:00 Z",
    "2015-09-25T12:00:00UTC", "2015-09-25Z", "2015-09-25+02:00", "2015-09-25T12:00:00.123abc",
    "2015-09-25T12:00:00+02:00:00", "2015-09-25T12:00:00\u{0}", "0001-01-01T00:00:00+00:01",
    "9999-12-31T23:59:59-00:01", "9999-12-31T23:59:59.999999999-01:00", "２０１５-09-25",
  ])
  func isoRefusesInvalidText(input: String) {
    #expect(iso(input) == nil)
  }

  @Test func isoKnownInstants() {
    #expect(iso("2013-07-02T16:40:00Z") == DateValue(seconds: 1_372_783_200))
    #expect(iso("1970-01-01T00:00:00Z") == DateValue.epoch)
    #expect(iso("1969-12-31T23:59:59Z") == DateValue(seconds: -1))
    #expect(iso("1969-12-31T23:59:59.5Z") == DateValue(seconds: -1, nanoseconds: 500_000_000))
    #expect(iso("0001-01-01T00:00:00Z") == DateValue.earliest)
    #expect(iso("9999-12-31T23:59:59.999999999Z") == DateValue.latest)
    #expect(iso("2015-09-25T12:00:00.1Z")?.nanoseconds == 100_000_000)
    #expect(iso("2015-09-25T12:00:00.000000001Z")?.nanoseconds == 1)
    #expect(iso("2015-09-25T12:00:00.9999999999999Z")?.nanoseconds == 999_999_999)
    let longFraction = "2015-09-25T12:00:00." + String(repeating: "7", count: 5000) + "Z"
    #expect(iso(longFraction)?.nanoseconds == 777_777_777)
  }

  @Test func isoOffsetsShiftAcrossBoundaries() {
    #expect(canonical("2015-01-01T01:00:00+02:00") == "2014-12-31T23:00:00Z")
    #expect(canonical("2014-12-31T23:30:00-01:00") == "2015-01-01T00:30:00Z")
    #expect(canonical("2016-02-29T23:30:00-01:00") == "2016-03-01T00:30:00Z")
    #expect(canonical("2015-02-28T23:30:00-01:00") == "2015-03-01T00:30:00Z")
    #expect(canonical("2016-03-01T00:30:00+01:00") == "2016-02-29T23:30:00Z")
    #expect(canonical("2015-05-01T00:00:00+23:59") == "2015-04-30T00:01:00Z")
    #expect(canonical("2015-04-30T23:59:00-23:59") == "2015-05-01T23:58:00Z")
    #expect(canonical("1970-01-01T00:59:59.25+01:00") == "1969-12-31T23:59:59.25Z")
    #expect(canonical("0001-01-01T01:00:00+01:00") == "0001-01-01T00:00:00Z")
    #expect(canonical("9999-12-31T22:59:59-01:00") == "9999-12-31T23:59:59Z")
  }

  @Test func isoDefaultOffsetAppliesOnlyWithoutZone() {
    #expect(canonical("2015-09-25T10:00:00", offset: 7200) == "2015-09-25T08:00:00Z")
    #expect(canonical("2015-09-25", offset: 7200) == "2015-09-24T22:00:00Z")
    #expect(canonical("2015-09-25", offset: -3600) == "2015-09-25T01:00:00Z")
    #expect(canonical("2015-09-25T10:00:00Z", offset: 7200) == "2015-09-25T10:00:00Z")
    #expect(canonical("2015-09-25T10:00:00-01:00", offset: 7200) == "2015-09-25T11:00:00Z")
    #expect(canonical("2015-09-25T10:00:00", offset: 86_400) == nil)
    #expect(canonical("2015-09-25T10:00:00Z", offset: Int.max) == "2015-09-25T10:00:00Z")
    #expect(canonical("0001-01-01", offset: 60) == nil)
  }

  @Test func isoReadsRawBytesWithoutTerminator() {
    let bytes = Array("2013-07-02T16:40:00Zjunk".utf8)
    let value = bytes.withUnsafeBufferPointer { buffer in
      ISO8601DateParser.parse(UnsafeBufferPointer(rebasing: buffer[0..<20]))
    }
    #expect(value == DateValue(seconds: 1_372_783_200))
    let empty = [UInt8]().withUnsafeBufferPointer { ISO8601DateParser.parse($0) }
    #expect(empty == nil)
    #expect(ISO8601DateParser.parse(UnsafeBufferPointer(start: nil, count: 0)) == nil)
  }

  // MARK: RFC 3339 formatting

  @Test func formatterWritesCanonicalText() {
    #expect(RFC3339Formatter.format(DateValue(seconds: 1_372_783_200)) == "2013-07-02T16:40:00Z")
    #expect(
      RFC3339Formatter.format(DateValue(seconds: 1_372_783_200, nanoseconds: 500_000_000))
        == "2013-07-02T16:40:00.5Z")
    #expect(
      RFC3339Formatter.format(DateValue(seconds: 1_372_783_200, nanoseconds: 123_000_000))
        == "2013-07-02T16:40:00.123Z")
    #expect(
      RFC3339Formatter.format(DateValue(seconds: 1_372_783_200, nanoseconds: 1_000))
        == "2013-07-02T16:40:00.000001Z")
    #expect(
      RFC3339Formatter.format(DateValue(seconds: 1_372_783_200, nanoseconds: 1))
        == "2013-07-02T16:40:00.000000001Z")
    #expect(RFC3339Formatter.format(DateValue(seconds: -1)) == "1969-12-31T23:59:59Z")
    #expect(RFC3339Formatter.format(DateValue.earliest) == "0001-01-01T00:00:00Z")
    #expect(RFC3339Formatter.format(DateValue.latest) == "9999-12-31T23:59:59.999999999Z")
    #expect(
      RFC3339Formatter.format(DateValue(seconds: 1_372_783_200), offset: 7200) == "2013-07-02T18:40:00+02:00")
    #expect(
      RFC3339Formatter.format(DateValue(seconds: 1_372_783_200), offset: -5400) == "2013-07-02T15:10:00-01:30"
    )
    #expect(RFC3339Formatter.format(DateValue(seconds: 1_372_783_200), offset: 0) == "2013-07-02T16:40:00Z")
    #expect(
      RFC3339Formatter.format(DateValue(seconds: 1_372_783_200), offset: 90_000) == "2013-07-02T16:40:00Z")
    #expect(
      RFC3339Formatter.format(DateValue(seconds: 1_372_783_200), offset: 7259) == "2013-07-02T18:40:00+02:00")
    #expect(
      RFC3339Formatter.format(DateValue(seconds: 1_419_984_000), offset: 7200) == "2014-12-31T02:00:00+02:00")
  }

  @Test func formatterNeverTrapsOnInvalidValues() {
    let extremes = [
      DateValue(seconds: Int64.max, nanoseconds: Int32.max),
      DateValue(seconds: Int64.min, nanoseconds: Int32.min),
      DateValue(seconds: DateValue.maximumSeconds + 1),
      DateValue(seconds: DateValue.minimumSeconds - 1),
      DateValue(seconds: 0, nanoseconds: -1),
    ]
    for value in extremes {
      #expect(!RFC3339Formatter.format(value).isEmpty)
      #expect(!RFC3339Formatter.format(value, offset: -3600).isEmpty)
      _ = UnixTime.seconds(value)
      _ = UnixTime.milliseconds(value)
    }
    #expect(
      RFC3339Formatter.format(DateValue(seconds: DateValue.maximumSeconds + 1)) == "10000-01-01T00:00:00Z")
    #expect(
      RFC3339Formatter.format(DateValue(seconds: DateValue.minimumSeconds - 1)) == "0000-12-31T23:59:59Z")
    #expect(RFC3339Formatter.format(DateValue(seconds: 0, nanoseconds: -1)) == "1970-01-01T00:00:00Z")
  }

  @Test func formatAndParseRoundTripAcrossTheRange() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    let span = UInt64(DateValue.maximumSeconds - DateValue.minimumSeconds + 1)
    var failures: [String] = []
    for index in 0..<50_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let seconds = DateValue.minimumSeconds + Int64((state >> 11) % span)
      let nanoseconds: Int32 = index % 3 == 0 ? 0 : Int32((state >> 3) % 1_000_000_000)
      let value = DateValue(
        seconds: seconds, nanoseconds: index % 5 == 0 ? nanoseconds / 1000 * 1000 : nanoseconds)
      let text = RFC3339Formatter.format(value)
      if iso(text) != value { failures.append(text) }
      let offset = Int((state >> 40) % 2879) * 60 - 86_340
      let shifted = RFC3339Formatter.format(value, offset: offset)
      if let back = iso(shifted), back != value { failures.append(shifted) }
      if failures.count > 5 { break }
    }
    #expect(failures.isEmpty, "\(failures)")
    for value in [DateValue.earliest, DateValue.latest, DateValue.epoch, DateValue(seconds: -1)] {
      #expect(iso(RFC3339Formatter.format(value)) == value)
    }
  }

  // MARK: Time zone offsets

  @Test func timeZoneOffsetsParse() {
    #expect(TimeZoneOffset("UTC")?.seconds == 0)
    #expect(TimeZoneOffset("Z")?.seconds == 0)
    #expect(TimeZoneOffset("+02:00")?.seconds == 7200)
    #expect(TimeZoneOffset("-0130")?.seconds == -5400)
    #expect(TimeZoneOffset("+05")?.seconds == 18_000)
    #expect(TimeZoneOffset("-00:00")?.seconds == 0)
    #expect(TimeZoneOffset("+23:59")?.seconds == 86_340)
    for bad in [
      "", "utc", "z", "GMT", "Europe/Paris", "+2", "02:00", "+24:00", "+02:60", "+02:00 ", " +02:00", "+02:0",
      "+020", "+02:00:00", "++02", "UTCZ", "Z+01",
    ] {
      #expect(TimeZoneOffset(bad) == nil, "\(bad)")
    }
    #expect(TimeZoneOffset.isValid(86_399) && TimeZoneOffset.isValid(-86_399))
    #expect(!TimeZoneOffset.isValid(86_400) && !TimeZoneOffset.isValid(Int.min))
    #expect(TimeZoneOffset.utc.seconds == 0)
  }

  // MARK: Unix time

  @Test func unixIntegers() {
    #expect(UnixTime.date(seconds: Int64(1_372_783_200)) == DateValue(seconds: 1_372_783_200))
    #expect(UnixTime.date(seconds: Int64(-1)) == DateValue(seconds: -1))
    #expect(UnixTime.date(seconds: DateValue.maximumSeconds) == DateValue(seconds: DateValue.maximumSeconds))
    #expect(UnixTime.date(seconds: DateValue.maximumSeconds + 1) == nil)
    #expect(UnixTime.date(seconds: DateValue.minimumSeconds) == DateValue.earliest)
    #expect(UnixTime.date(seconds: DateValue.minimumSeconds - 1) == nil)
    #expect(UnixTime.date(seconds: Int64.max) == nil)
    #expect(UnixTime.date(seconds: Int64.min) == nil)
    #expect(
      UnixTime.date(milliseconds: Int64(1_372_783_200_123))
        == DateValue(seconds: 1_372_783_200, nanoseconds: 123_000_000))
    #expect(UnixTime.date(milliseconds: Int64(-1)) == DateValue(seconds: -1, nanoseconds: 999_000_000))
    #expect(UnixTime.date(milliseconds: Int64(-1000)) == DateValue(seconds: -1))
    #expect(
      UnixTime.date(milliseconds: DateValue.maximumSeconds * 1000 + 999)
        == DateValue(seconds: DateValue.maximumSeconds, nanoseconds: 999_000_000))
    #expect(UnixTime.date(milliseconds: DateValue.maximumSeconds * 1000 + 1000) == nil)
    #expect(UnixTime.date(milliseconds: DateValue.minimumSeconds * 1000) == DateValue.earliest)
    #expect(UnixTime.date(milliseconds: DateValue.minimumSeconds * 1000 - 1) == nil)
    #expect(UnixTime.date(milliseconds: Int64.min) == nil)
    #expect(UnixTime.date(milliseconds: Int64.max) == nil)
  }

  @Test func unixReals() {
    #expect(UnixTime.date(seconds: 1.5) == DateValue(seconds: 1, nanoseconds: 500_000_000))
    #expect(UnixTime.date(seconds: -1.5) == DateValue(seconds: -2, nanoseconds: 500_000_000))
    #expect(UnixTime.date(seconds: -0.0) == DateValue.epoch)
    #expect(
      UnixTime.date(seconds: 1_372_783_200.123) == DateValue(seconds: 1_372_783_200, nanoseconds: 123_000_000)
    )
    #expect(UnixTime.date(seconds: 0.000001) == DateValue(seconds: 0, nanoseconds: 1000))
    #expect(UnixTime.date(seconds: 1e-9) == DateValue(seconds: 0, nanoseconds: 1))
    #expect(UnixTime.date(seconds: 1e-10) == DateValue.epoch)
    #expect(UnixTime.date(seconds: -1e-10) == DateValue.epoch)
    #expect(UnixTime.date(seconds: .leastNonzeroMagnitude) == DateValue.epoch)
    #expect(UnixTime.date(seconds: 1e10) == DateValue(seconds: 10_000_000_000))
    #expect(
      UnixTime.date(seconds: Double(DateValue.maximumSeconds)) == DateValue(seconds: DateValue.maximumSeconds)
    )
    #expect(
      UnixTime.date(seconds: Double(DateValue.maximumSeconds) + 0.5)
        == DateValue(seconds: DateValue.maximumSeconds, nanoseconds: 500_000_000))
    #expect(UnixTime.date(seconds: Double(DateValue.maximumSeconds + 1)) == nil)
    #expect(UnixTime.date(seconds: Double(DateValue.minimumSeconds)) == DateValue.earliest)
    #expect(UnixTime.date(seconds: Double(DateValue.minimumSeconds) - 0.5) == nil)
    for bad in [Double.nan, .infinity, -.infinity, 1e300, -1e300, .greatestFiniteMagnitude, 1e19, 9.3e18] {
      #expect(UnixTime.date(seconds: bad) == nil)
      #expect(UnixTime.date(milliseconds: bad) == nil)
    }
    #expect(
      UnixTime.date(milliseconds: 1_372_783_200_123.5)
        == DateValue(seconds: 1_372_783_200, nanoseconds: 123_500_000))
    #expect(UnixTime.date(milliseconds: 1.5) == DateValue(seconds: 0, nanoseconds: 1_500_000))
    #expect(UnixTime.date(milliseconds: -1.5) == DateValue(seconds: -1, nanoseconds: 998_500_000))
    #expect(UnixTime.date(milliseconds: 1e13) == DateValue(seconds: 10_000_000_000))
    #expect(UnixTime.date(milliseconds: 0.0000015) == DateValue(seconds: 0, nanoseconds: 1))
  }

  @Test func unixBackToNumbers() {
    #expect(UnixTime.seconds(DateValue(seconds: 1_372_783_200)) == .integer(1_372_783_200))
    #expect(UnixTime.seconds(DateValue(seconds: -1)) == .integer(-1))
    #expect(
      UnixTime.seconds(DateValue(seconds: 1_372_783_200, nanoseconds: 123_000_000))
        == .real(1_372_783_200.123))
    #expect(UnixTime.seconds(DateValue(seconds: -2, nanoseconds: 500_000_000)) == .real(-1.5))
    #expect(UnixTime.seconds(DateValue(seconds: -1, nanoseconds: 999_999_999)) == .real(-0.000000001))
    #expect(
      UnixTime.milliseconds(DateValue(seconds: 1_372_783_200, nanoseconds: 123_000_000))
        == .integer(1_372_783_200_123))
    #expect(UnixTime.milliseconds(DateValue(seconds: -1, nanoseconds: 999_000_000)) == .integer(-1))
    #expect(
      UnixTime.milliseconds(DateValue(seconds: 1_372_783_200, nanoseconds: 123_456_789))
        == .real(1_372_783_200_123.456789))
    #expect(UnixTime.milliseconds(DateValue(seconds: -1, nanoseconds: 998_500_000)) == .real(-1.5))
    #expect(UnixTime.milliseconds(DateValue.latest) == .real(253_402_300_799_999.999999))
    #expect(UnixTime.milliseconds(DateValue.earliest) == .integer(-62_135_596_800_000))
    // JSON reals with up to nanosecond digits come back as the same double.
    for number in [1_372_783_200.123, 0.5, -0.25, 1.000001, -62_135_596_799.75, 253_402_300_799.5, 1e-9] {
      guard let value = UnixTime.date(seconds: number) else {
        Issue.record("\(number) did not parse")
        continue
      }
      #expect(UnixTime.seconds(value) == .real(number), "\(number)")
    }
    for number in [1_372_783_200_123.5, 0.001, -1.25] {
      guard let value = UnixTime.date(milliseconds: number) else {
        Issue.record("\(number) did not parse")
        continue
      }
      #expect(UnixTime.milliseconds(value) == .real(number), "\(number)")
    }
  }

  // MARK: Date patterns

  @Test func patternCompileErrorsNameTheLetter() {
    #expect(patternError("yyyy-QQ-dd").contains("'Q'"))
    #expect(patternError("YYYY-MM-dd").contains("'Y'"))
    #expect(patternError("yyyy-MM-DD").contains("'D'"))
    #expect(patternError("yyyy-MM-ddTHH").contains("'T'"))
    #expect(patternError("yyyy-MM-dd'T").contains("unterminated quote"))
    #expect(patternError("yyyy-MMMMM-dd").contains("'M'"))
    #expect(patternError("yyyyy-MM-dd").contains("'y'"))
    #expect(patternError("yyyy-MM-ddd").contains("'d'"))
    #expect(patternError("yyyy-MM-dd HHH").contains("'H'"))
    #expect(patternError("yyyy-MM-dd SSSSSSSSSS").contains("'S'"))
    #expect(patternError("yyyy-MM-dd EEEEE").contains("'E'"))
    #expect(patternError("yyyy-MM-dd ZZZZ").contains("'Z'"))
    #expect(patternError("yyyy-MM-dd ZZZZZZ").contains("'Z'"))
    #expect(patternError("yyyy-MM-dd XXXX").contains("'X'"))
    #expect(patternError("yyyy-MM-dd aaaa").contains("'a'"))
    #expect(patternError("yyyy-MM-dd hh:mm").contains("'a'"))
    #expect(patternError("HH:mm").contains("year"))
    #expect(patternError("yyyy-dd").contains("month"))
    #expect(patternError("yyyy-MM").contains("day"))
    #expect(patternError("").contains("year"))
    #expect(patternError("yyyy-MM-dd").isEmpty)
    #expect(patternError("yyyy-QQ-dd").contains("yyyy-QQ-dd"))
  }

  @Test func patternReadsAndWritesRFC3339Like() throws {
    let p = try pattern("yyyy-MM-dd'T'HH:mm:ss.SSSZZZZZ")
    let value = try #require(p.parse("2013-07-02T18:40:00.123+02:00", defaultOffset: 0))
    #expect(value == DateValue(seconds: 1_372_783_200, nanoseconds: 123_000_000))
    #expect(p.format(value, offset: 7200) == "2013-07-02T18:40:00.123+02:00")
    #expect(p.format(value, offset: 0) == "2013-07-02T16:40:00.123Z")
    #expect(p.parse("2013-07-02T16:40:00.123Z", defaultOffset: 0) == value)
    #expect(p.parse("2013-07-02T16:40:00.123+0000", defaultOffset: 0) == value)
    #expect(p.parse("2013-07-02T16:40:00.12Z", defaultOffset: 0) == nil)
    #expect(p.parse("2013-07-02T16:40:00.1234Z", defaultOffset: 0) == nil)
    #expect(p.parse("2013-07-02T16:40:00.123", defaultOffset: 0) == nil)
    #expect(p.parse("2013-07-02 16:40:00.123Z", defaultOffset: 0) == nil)
    #expect(p.tokens.count == 14)
  }

  @Test func patternRFC822WithWeekdayCheck() throws {
    let p = try pattern("EEE, dd MMM yyyy HH:mm:ss Z")
    let value = DateValue(seconds: 1_372_783_200)
    #expect(p.format(value, offset: 0) == "Tue, 02 Jul 2013 16:40:00 +0000")
    #expect(p.format(value, offset: -25_200) == "Tue, 02 Jul 2013 09:40:00 -0700")
    #expect(p.format(value, offset: 30_600) == "Wed, 03 Jul 2013 01:10:00 +0830")
    #expect(p.parse("Tue, 02 Jul 2013 16:40:00 +0000", defaultOffset: 0) == value)
    #expect(p.parse("tue, 02 JUL 2013 09:40:00 -0700", defaultOffset: 0) == value)
    #expect(p.parse("Wed, 03 Jul 2013 01:10:00 +0830", defaultOffset: 0) == value)
    #expect(p.parse("Wed, 02 Jul 2013 16:40:00 +0000", defaultOffset: 0) == nil)
    #expect(p.parse("Tue, 02 July 2013 16:40:00 +0000", defaultOffset: 0) == nil)
    #expect(p.parse("Tue, 02 Jux 2013 16:40:00 +0000", defaultOffset: 0) == nil)
    #expect(p.parse("Tue, 02 Jul 2013 16:40:00 +2400", defaultOffset: 0) == nil)
    #expect(p.parse("Tue, 02 Jul 2013 16:40:00", defaultOffset: 0) == nil)
  }

  @Test func patternFullNamesAndTwelveHourClock() throws {
    let p = try pattern("EEEE, MMMM d, y h:mm a")
    let value = DateValue(seconds: 1_372_783_200)
    #expect(p.format(value, offset: 0) == "Tuesday, July 2, 2013 4:40 PM")
    #expect(p.parse("Tuesday, July 2, 2013 4:40 PM", defaultOffset: 0) == value)
    #expect(p.parse("TUESDAY, july 2, 2013 4:40 pm", defaultOffset: 0) == value)
    #expect(p.parse("Tuesday, July 02, 2013 04:40 PM", defaultOffset: 0) == value)
    #expect(p.parse("Monday, July 2, 2013 4:40 PM", defaultOffset: 0) == nil)
    #expect(p.parse("Tue, July 2, 2013 4:40 PM", defaultOffset: 0) == nil)
    #expect(p.parse("Tuesday, July 2, 2013 12:05 AM", defaultOffset: 0) == iso("2013-07-02T00:05:00Z"))
    #expect(p.parse("Tuesday, July 2, 2013 12:05 PM", defaultOffset: 0) == iso("2013-07-02T12:05:00Z"))
    #expect(p.parse("Tuesday, July 2, 2013 11:59 PM", defaultOffset: 0) == iso("2013-07-02T23:59:00Z"))
    #expect(p.parse("Tuesday, July 2, 2013 13:05 PM", defaultOffset: 0) == nil)
    #expect(p.parse("Tuesday, July 2, 2013 0:05 AM", defaultOffset: 0) == nil)
    #expect(p.parse("Tuesday, July 2, 2013 4:40 XM", defaultOffset: 0) == nil)
    #expect(p.parse("Tuesday, July 2, 2013 4:40 PM", defaultOffset: 7200) == iso("2013-07-02T14:40:00Z"))
    let midnight = try #require(iso("2013-07-02T00:05:00Z"))
    #expect(p.format(midnight, offset: 0) == "Tuesday, July 2, 2013 12:05 AM")
    let noon = try #require(iso("2013-07-02T12:05:00Z"))
    #expect(p.format(noon, offset: 0) == "Tuesday, July 2, 2013 12:05 PM")
    let months = try pattern("MMMM d yyyy")
    let names = [
      "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
      "November", "December",
    ]
    for (index, name) in names.enumerated() {
      let date = try #require(months.parse("\(name) 1 2013", defaultOffset: 0))
      #expect(months.format(date, offset: 0) == "\(name) 1 2013")
      #expect(RFC3339Formatter.format(date).hasPrefix("2013-\(index < 9 ? "0" : "")\(index + 1)-01"))
    }
    let short = try pattern("EEE MMM d yyyy")
    var weekdays: [String] = []
    for day in 1...7 {
      let date = try #require(iso("2013-07-0\(day)"))
      weekdays.append(String(short.format(date, offset: 0).prefix(3)))
    }
    #expect(weekdays == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
    let full = try pattern("EEEE yyyy-MM-dd")
    #expect(full.format(DateValue.earliest, offset: 0) == "Monday 0001-01-01")
    #expect(full.format(DateValue.latest, offset: 0) == "Friday 9999-12-31")
    #expect(full.parse("Sunday 2013-07-07", defaultOffset: 0) == iso("2013-07-07"))
    #expect(full.parse("Sun 2013-07-07", defaultOffset: 0) == nil)
  }

  @Test func patternTwoDigitYearWindow() throws {
    let p = try pattern("M/d/yy")
    #expect(p.parse("7/2/13", defaultOffset: 0) == iso("2013-07-02"))
    #expect(p.parse("12/31/49", defaultOffset: 0) == iso("2049-12-31"))
    #expect(p.parse("1/1/50", defaultOffset: 0) == iso("1950-01-01"))
    #expect(p.parse("1/1/99", defaultOffset: 0) == iso("1999-01-01"))
    #expect(p.parse("1/1/00", defaultOffset: 0) == iso("2000-01-01"))
    #expect(p.parse("1/1/2013", defaultOffset: 0) == nil)
    #expect(p.parse("1/1/5", defaultOffset: 0) == nil)
    #expect(p.parse("2/29/15", defaultOffset: 0) == nil)
    #expect(p.parse("2/29/16", defaultOffset: 0) == iso("2016-02-29"))
    #expect(p.format(try #require(iso("1999-12-31")), offset: 0) == "12/31/99")
    #expect(p.format(try #require(iso("2005-01-09")), offset: 0) == "1/9/05")
    #expect(p.format(DateValue.earliest, offset: 0) == "1/1/01")
  }

  @Test func patternNumericWidths() throws {
    let compact = try pattern("yyyyMMddHHmmss")
    #expect(compact.parse("20130702164000", defaultOffset: 0) == DateValue(seconds: 1_372_783_200))
    #expect(compact.format(DateValue(seconds: 1_372_783_200), offset: 0) == "20130702164000")
    #expect(compact.parse("2013070216400", defaultOffset: 0) == nil)
    #expect(compact.parse("201307021640000", defaultOffset: 0) == nil)
    let loose = try pattern("d.M.y H:m:s")
    let value = try #require(iso("0005-07-02T06:05:03Z"))
    #expect(loose.format(value, offset: 0) == "2.7.5 6:5:3")
    #expect(loose.parse("2.7.5 6:5:3", defaultOffset: 0) == value)
    #expect(loose.parse("02.07.0005 06:05:03", defaultOffset: 0) == value)
    #expect(loose.parse("2.7.12345 6:5:3", defaultOffset: 0) == nil)
    #expect(loose.parse("2.7.2013 6:5:3", defaultOffset: 0) == iso("2013-07-02T06:05:03Z"))
    let threeDigitYear = try pattern("yyy-MM-dd")
    #expect(threeDigitYear.format(value, offset: 0) == "005-07-02")
    #expect(threeDigitYear.parse("005-07-02", defaultOffset: 0) == iso("0005-07-02"))
    #expect(threeDigitYear.parse("05-07-02", defaultOffset: 0) == nil)
    let padded = try pattern("yyyy-MM-dd HH:mm:ss")
    #expect(padded.format(value, offset: 0) == "0005-07-02 06:05:03")
    #expect(padded.parse("213-07-02 06:05:03", defaultOffset: 0) == nil)
    #expect(padded.parse("2013-7-02 06:05:03", defaultOffset: 0) == nil)
    #expect(padded.parse("2013-07-02 6:05:03", defaultOffset: 0) == nil)
  }

  @Test(arguments: [
    "2015-02-29 00:00:00", "2015-09-31 00:00:00", "2015-09-37 00:00:00", "2015-13-01 00:00:00",
    "2015-00-01 00:00:00", "2015-01-00 00:00:00", "2015-09-25 25:00:00", "2015-09-25 24:00:00",
    "2015-09-25 12:60:00", "2015-09-25 12:00:60", "0000-01-01 00:00:00", "2015-09-25 12:00:00 ",
    "2015-09-25 12:00", "2015-09-25T12:00:00", "", "2015-09-25 12:00:0x",
  ])
  func patternRefusesDatesThatDoNotExist(input: String) throws {
    let p = try pattern("yyyy-MM-dd HH:mm:ss")
    #expect(p.parse(input, defaultOffset: 0) == nil)
  }

  @Test func patternFractions() throws {
    let value = DateValue(seconds: 1_372_783_200, nanoseconds: 123_456_789)
    let expectations: [(String, String, Int32)] = [
      ("S", "1", 100_000_000), ("SS", "12", 120_000_000), ("SSS", "123", 123_000_000),
      ("SSSSSS", "123456", 123_456_000), ("SSSSSSSSS", "123456789", 123_456_789),
    ]
    for (letters, digits, nanoseconds) in expectations {
      let p = try pattern("yyyy-MM-dd HH:mm:ss.\(letters)")
      #expect(p.format(value, offset: 0) == "2013-07-02 16:40:00.\(digits)")
      #expect(
        p.parse("2013-07-02 16:40:00.\(digits)", defaultOffset: 0)
          == DateValue(seconds: 1_372_783_200, nanoseconds: nanoseconds))
    }
    let p = try pattern("yyyy-MM-dd HH:mm:ss.SSS")
    #expect(
      p.format(DateValue(seconds: 1_372_783_200, nanoseconds: 5_000_000), offset: 0)
        == "2013-07-02 16:40:00.005")
    #expect(p.format(DateValue(seconds: 1_372_783_200), offset: 0) == "2013-07-02 16:40:00.000")
  }

  @Test func patternOffsetStyles() throws {
    let value = DateValue(seconds: 1_372_783_200)
    let cases: [(String, Int, String)] = [
      ("Z", 0, "+0000"), ("Z", 7200, "+0200"), ("ZZ", -5400, "-0130"), ("ZZZ", 19_800, "+0530"),
      ("ZZZZZ", 0, "Z"), ("ZZZZZ", 7200, "+02:00"), ("ZZZZZ", -5400, "-01:30"),
      ("X", 0, "Z"), ("X", 7200, "+02"), ("X", 19_800, "+0530"), ("XX", 0, "Z"), ("XX", -7200, "-0200"),
      ("XXX", 0, "Z"), ("XXX", 19_800, "+05:30"), ("x", 0, "+00"), ("x", -3600, "-01"), ("xx", 0, "+0000"),
      ("xxx", 0, "+00:00"), ("xxx", 7200, "+02:00"),
    ]
    for (letters, offset, suffix) in cases {
      let p = try pattern("yyyy-MM-dd'T'HH:mm\(letters)")
      let text = p.format(value, offset: offset)
      #expect(text.hasSuffix(suffix), "\(letters) at \(offset): \(text)")
      #expect(p.parse(text, defaultOffset: 12_345) == value, "\(letters): \(text)")
    }
    // Input is lenient: every offset letter reads every spelling.
    let p = try pattern("yyyy-MM-dd'T'HH:mmX")
    for text in [
      "2013-07-02T18:40+02", "2013-07-02T18:40+0200", "2013-07-02T18:40+02:00", "2013-07-02T16:40z",
    ] {
      #expect(p.parse(text, defaultOffset: 0) == value, "\(text)")
    }
    #expect(p.parse("2013-07-02T16:40", defaultOffset: 0) == nil)
    #expect(p.parse("2013-07-02T16:40+2", defaultOffset: 0) == nil)
    // Offsets with seconds are written in whole minutes, consistently.
    let rfc = try pattern("yyyy-MM-dd'T'HH:mm:ssZZZZZ")
    #expect(rfc.format(value, offset: 7259) == "2013-07-02T18:40:00+02:00")
    #expect(rfc.format(value, offset: 100_000) == "2013-07-02T16:40:00Z")
    #expect(rfc.format(value, offset: -86_399) == "2013-07-01T16:41:00-23:59")
  }

  @Test func patternLiteralsAndQuotes() throws {
    let value = DateValue(seconds: 1_372_783_200)
    let said = try pattern("yyyy-MM-dd 'at' HH 'o''clock'")
    #expect(said.format(value, offset: 0) == "2013-07-02 at 16 o'clock")
    #expect(said.parse("2013-07-02 at 16 o'clock", defaultOffset: 0) == iso("2013-07-02T16:00:00Z"))
    #expect(said.parse("2013-07-02 AT 16 o'clock", defaultOffset: 0) == nil)
    let quotes = try pattern("yyyy''MM''dd")
    #expect(quotes.format(value, offset: 0) == "2013'07'02")
    #expect(quotes.parse("2013'07'02", defaultOffset: 0) == iso("2013-07-02"))
    let unicode = try pattern("yyyy年MM月dd日 HH時")
    #expect(unicode.format(value, offset: 0) == "2013年07月02日 16時")
    #expect(unicode.parse("2013年07月02日 16時", defaultOffset: 0) == iso("2013-07-02T16:00:00Z"))
    let quotedLetters = try pattern("'Date:' yyyy/MM/dd '(ISO)'")
    #expect(quotedLetters.format(value, offset: 0) == "Date: 2013/07/02 (ISO)")
    #expect(quotedLetters.parse("Date: 2013/07/02 (ISO)", defaultOffset: 0) == iso("2013-07-02"))
    let emptyQuote = try pattern("yyyy-MM-dd''")
    #expect(emptyQuote.format(value, offset: 0) == "2013-07-02'")
  }

  @Test func patternDayPeriodWith24HourClockAndRepeatedFields() throws {
    let p = try pattern("yyyy-MM-dd HH a")
    #expect(p.parse("2013-07-02 16 PM", defaultOffset: 0) == iso("2013-07-02T16:00:00Z"))
    #expect(p.parse("2013-07-02 04 AM", defaultOffset: 0) == iso("2013-07-02T04:00:00Z"))
    #expect(p.parse("2013-07-02 16 AM", defaultOffset: 0) == nil)
    #expect(p.parse("2013-07-02 04 PM", defaultOffset: 0) == nil)
    #expect(p.format(DateValue(seconds: 1_372_783_200), offset: 0) == "2013-07-02 16 PM")
    let twice = try pattern("yyyy-MM-dd (yyyy)")
    #expect(twice.parse("2013-07-02 (2013)", defaultOffset: 0) == iso("2013-07-02"))
    #expect(twice.parse("2013-07-02 (2014)", defaultOffset: 0) == nil)
  }

  @Test func patternDefaultOffsetAndRange() throws {
    let p = try pattern("yyyy-MM-dd HH:mm")
    #expect(p.parse("2013-07-02 18:40", defaultOffset: 7200) == DateValue(seconds: 1_372_783_200))
    #expect(p.format(DateValue(seconds: 1_372_783_200), offset: 7200) == "2013-07-02 18:40")
    #expect(p.parse("2013-07-02 18:40", defaultOffset: 86_400) == nil)
    #expect(p.parse("0001-01-01 00:00", defaultOffset: 3600) == nil)
    #expect(p.parse("9999-12-31 23:59", defaultOffset: -3600) == nil)
    #expect(p.parse("9999-12-31 23:59", defaultOffset: 0) == iso("9999-12-31T23:59:00Z"))
    #expect(!p.format(DateValue(seconds: Int64.min, nanoseconds: Int32.min), offset: Int.min).isEmpty)
    #expect(!p.format(DateValue(seconds: Int64.max, nanoseconds: Int32.max), offset: Int.max).isEmpty)
    let raw = Array("2013-07-02 18:40".utf8)
    #expect(
      raw.withUnsafeBufferPointer { p.parse($0, defaultOffset: 7200) } == DateValue(seconds: 1_372_783_200))
  }

  @Test func patternRoundTripsEveryLetter() throws {
    let p = try pattern(
      "EEEE EEE yyyy yy MMMM MMM MM M dd d HH H hh h mm m ss s SSS a ZZZZZ Z XXX xx X 'lit'''")
    var state: UInt64 = 42
    for _ in 0..<2_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let seconds = Int64((state >> 20) % 3_000_000_000) - 500_000_000
      let value = DateValue(seconds: seconds, nanoseconds: Int32((state >> 5) % 1000) * 1_000_000)
      let offset = Int((state >> 50) % 48) * 1800 - 43_200
      let text = p.format(value, offset: offset)
      #expect(p.parse(text, defaultOffset: 0) == value, "\(text)")
    }
  }

  // MARK: DateFormat

  @Test func dateFormatNames() throws {
    #expect(try DateFormat.parse("iso8601").get() == .iso8601)
    #expect(try DateFormat.parse("unix").get() == .unix)
    #expect(try DateFormat.parse("unix-ms").get() == .unixMilliseconds)
    let patterned = try DateFormat.parse("yyyy-MM-dd").get()
    #expect(patterned.name == "yyyy-MM-dd")
    #expect(patterned.isText && DateFormat.iso8601.isText && !DateFormat.unix.isText)
    if case .failure(let error) = DateFormat.parse("ISO8601") {
      #expect(error.message.contains("'I'"))
    } else {
      Issue.record("ISO8601 should not compile")
    }
    #expect((try? DateFormat.parse("unix-seconds").get()) == nil)
    for name in ["iso8601", "unix", "unix-ms", "dd/MM/yyyy"] {
      #expect(try DateFormat.parse(name).get().name == name)
    }
  }

  @Test func dateFormatReadsAndWrites() throws {
    let value = DateValue(seconds: 1_372_783_200)
    let text = Array("2013-07-02T16:40:00Z".utf8)
    #expect(text.withUnsafeBufferPointer { DateFormat.iso8601.date(text: $0, defaultOffset: 0) } == value)
    #expect(text.withUnsafeBufferPointer { DateFormat.unix.date(text: $0, defaultOffset: 0) } == nil)
    #expect(DateFormat.iso8601.date(integer: 1) == nil)
    #expect(DateFormat.iso8601.date(real: 1) == nil)
    #expect(DateFormat.unix.date(integer: 1_372_783_200) == value)
    #expect(DateFormat.unixMilliseconds.date(integer: 1_372_783_200_000) == value)
    #expect(DateFormat.unix.date(real: 1_372_783_200.0) == value)
    #expect(DateFormat.unixMilliseconds.date(real: 1_372_783_200_000.0) == value)
    #expect(DateFormat.iso8601.represent(value, offset: 0) == .text("2013-07-02T16:40:00Z"))
    #expect(DateFormat.iso8601.represent(value, offset: 3600) == .text("2013-07-02T17:40:00+01:00"))
    #expect(DateFormat.unix.represent(value, offset: 3600) == .integer(1_372_783_200))
    #expect(DateFormat.unixMilliseconds.represent(value, offset: 0) == .integer(1_372_783_200_000))
    let half = DateValue(seconds: 1, nanoseconds: 500_000_000)
    #expect(DateFormat.unix.represent(half, offset: 0) == .real(1.5))
    #expect(DateFormat.unixMilliseconds.represent(half, offset: 0) == .integer(1500))
    let pattern = try DateFormat.parse("dd/MM/yyyy HH:mm").get()
    #expect(pattern.represent(value, offset: 7200) == .text("02/07/2013 18:40"))
    let patternText = Array("02/07/2013 18:40".utf8)
    #expect(patternText.withUnsafeBufferPointer { pattern.date(text: $0, defaultOffset: 7200) } == value)
    #expect(pattern.date(integer: 0) == nil)
  }
}
