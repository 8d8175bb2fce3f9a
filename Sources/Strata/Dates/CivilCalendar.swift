/// Exact proleptic Gregorian calendar arithmetic on day numbers, where day 0
/// is 1970-01-01 (Howard Hinnant's days-from-civil and civil-from-days).
///
/// The functions are total: for the huge days and years only an invalid
/// `DateValue` can produce they clamp instead of overflowing.
enum CivilCalendar {
  /// The day number of 0001-01-01.
  static let firstDay: Int64 = -719_162
  /// The day number of 9999-12-31.
  static let lastDay: Int64 = 2_932_896
  /// Largest magnitude of a day number or year the arithmetic accepts; larger
  /// ones are clamped to it (no valid date comes near).
  static let limit: Int64 = 1 << 50

  /// True for a leap year: divisible by 4, and not by 100 unless by 400.
  static func isLeapYear(_ year: Int64) -> Bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
  }

  /// The number of days of `month` (1-12) in `year`; 0 for a month outside 1-12.
  static func daysInMonth(year: Int64, month: Int64) -> Int64 {
    switch month {
    case 1, 3, 5, 7, 8, 10, 12: return 31
    case 4, 6, 9, 11: return 30
    case 2: return isLeapYear(year) ? 29 : 28
    default: return 0
    }
  }

  /// The day number of `year`-`month`-`day`. Expects month 1-12 and day 1-31
  /// (callers check the date exists first); any input is clamped, never trapped on.
  static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
    let month = min(max(month, 1), 12)
    let day = min(max(day, 1), 31)
    let year = min(max(year, -limit), limit) - (month <= 2 ? 1 : 0)
    let era = (year >= 0 ? year : year - 399) / 400
    let yearOfEra = year - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The year, month (1-12) and day (1-31) of day number `days` (clamped to
  /// `limit` in magnitude).
  static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let shifted = min(max(days, -limit), limit) + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// The weekday of day number `days`: 0 for Monday through 6 for Sunday
  /// (1970-01-01 was a Thursday, 3).
  static func weekday(days: Int64) -> Int {
    let remainder = days % 7  // -6...6
    return Int((remainder + 7 + 3) % 7)
  }

  /// `value` divided by `divisor` (positive), rounded toward negative infinity,
  /// and the remainder `0..<divisor`.
  static func floorDivide(_ value: Int64, by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
    let quotient = value / divisor
    let remainder = value % divisor
    return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
  }
}
