/// An instant: whole seconds since 1970-01-01T00:00:00Z plus a nanosecond
/// part, the value of a `date` property.
///
/// A valid value lies between 0001-01-01T00:00:00Z and
/// 9999-12-31T23:59:59.999999999Z, with `nanoseconds` in `0..<1_000_000_000`.
/// Every parser here returns only valid values; every formatter accepts any
/// value (out-of-range fields are written as they are, never trapped on).
package struct DateValue: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// Whole seconds since 1970-01-01T00:00:00Z (negative before it).
  var seconds: Int64
  /// The part of a second after `seconds`, `0..<1_000_000_000`.
  var nanoseconds: Int32

  /// Seconds of 0001-01-01T00:00:00Z, the earliest valid second.
  static let minimumSeconds: Int64 = -62_135_596_800
  /// Seconds of 9999-12-31T23:59:59Z, the latest valid second.
  static let maximumSeconds: Int64 = 253_402_300_799
  /// 0001-01-01T00:00:00Z.
  static let earliest = DateValue(seconds: minimumSeconds, nanoseconds: 0)
  /// 9999-12-31T23:59:59.999999999Z.
  static let latest = DateValue(seconds: maximumSeconds, nanoseconds: 999_999_999)
  /// 1970-01-01T00:00:00Z.
  static let epoch = DateValue(seconds: 0, nanoseconds: 0)

  /// Stores the fields as given, without checking them (see `isValid`).
  init(seconds: Int64, nanoseconds: Int32 = 0) {
    self.seconds = seconds
    self.nanoseconds = nanoseconds
  }

  /// The instant `seconds` + `nanoseconds`, or nil when it is not valid
  /// (nanoseconds outside `0..<1_000_000_000`, or outside years 0001-9999).
  init?(validating seconds: Int64, nanoseconds: Int64 = 0) {
    guard nanoseconds >= 0, nanoseconds < 1_000_000_000,
      seconds >= DateValue.minimumSeconds, seconds <= DateValue.maximumSeconds
    else { return nil }
    self.seconds = seconds
    self.nanoseconds = Int32(nanoseconds)
  }

  /// True when the value lies in years 0001-9999 and `nanoseconds` in range.
  var isValid: Bool {
    nanoseconds >= 0 && nanoseconds < 1_000_000_000 && seconds >= DateValue.minimumSeconds
      && seconds <= DateValue.maximumSeconds
  }

  /// `nanoseconds` clamped into `0...999_999_999`, for writers that must
  /// accept any value.
  var clampedNanoseconds: Int64 {
    Int64(min(max(nanoseconds, 0), 999_999_999))
  }

  /// Earlier instants sort first.
  package static func < (lhs: DateValue, rhs: DateValue) -> Bool {
    lhs.seconds != rhs.seconds ? lhs.seconds < rhs.seconds : lhs.nanoseconds < rhs.nanoseconds
  }

  /// The canonical form, RFC 3339 in UTC: `2013-07-02T16:40:00Z`.
  package var description: String { RFC3339Formatter.format(self) }
}
