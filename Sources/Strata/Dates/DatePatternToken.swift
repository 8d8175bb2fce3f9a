/// One piece of a compiled date pattern: literal text or a field.
enum DatePatternToken: Sendable, Hashable {
  /// Text that is written as is and must appear as is (exact bytes).
  case literal([UInt8])
  /// `y`, `yyy`, `yyyy`: the year, written zero-padded to `minimumDigits`;
  /// read as `minimumDigits` to 4 digits.
  case year(minimumDigits: Int)
  /// `yy`: the last two digits of the year; read 00-49 as 2000-2049 and
  /// 50-99 as 1950-1999.
  case twoDigitYear
  /// A numeric field: written zero-padded to `digits` (1 or 2); read as
  /// exactly 2 digits when `digits` is 2, else 1 or 2 digits (greedy).
  case number(DatePatternField, digits: Int)
  /// `MMM` (`Jan`) or `MMMM` (`January`).
  case monthName(full: Bool)
  /// `EEE` (`Mon`) or `EEEE` (`Monday`); on input checked against the date.
  case weekdayName(full: Bool)
  /// `a`: `AM` or `PM`.
  case dayPeriod
  /// `S`...: the fraction of a second, exactly `digits` (1-9) digits, truncated.
  case fraction(digits: Int)
  /// `Z`, `ZZZZZ`, `X`..., `x`...: the UTC offset.
  case offset(DateOffsetStyle)
}
