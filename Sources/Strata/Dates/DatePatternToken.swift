/// One piece of a compiled date pattern: literal text or a field.
enum DatePatternToken: Sendable, Hashable {
  /// Text that is written as is and must appear as is (exact bytes).
  case literal(DateLiteral)
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

/// Up to 16 bytes of a pattern's literal text, kept in the token itself so
/// that a token is a plain value: with an array here, every token of every
/// date read or written was retained and released (Benchmarks/README.md,
/// "One block per model"). A longer literal is several tokens in a row.
struct DateLiteral: Sendable, Hashable {
  /// The most bytes one literal token holds.
  static let capacity = 16
  /// Bytes 0-7 and 8-15, the first in the lowest byte.
  private var low: UInt64 = 0
  private var high: UInt64 = 0
  /// The number of bytes.
  private(set) var count = 0

  /// The literal of `bytes` (at most `capacity` of them).
  init(_ bytes: ArraySlice<UInt8>) {
    precondition(bytes.count <= Self.capacity, "a date literal token holds at most 16 bytes")
    for byte in bytes {
      if count < 8 {
        low |= UInt64(byte) << (8 * count)
      } else {
        high |= UInt64(byte) << (8 * (count - 8))
      }
      count += 1
    }
  }

  /// The byte at `index` (0 ..< count).
  @inline(__always) subscript(index: Int) -> UInt8 {
    UInt8(truncatingIfNeeded: index < 8 ? low >> (8 * index) : high >> (8 * (index - 8)))
  }
}
