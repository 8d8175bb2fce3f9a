/// The `unix` (seconds) and `unix-ms` (milliseconds) date formats: numbers
/// of seconds or milliseconds since 1970-01-01T00:00:00Z, integer or real.
///
/// A real is read through its shortest decimal spelling (the digits JSON
/// wrote), so `1372783200.123` is exactly .123 seconds, not the nearest
/// binary fraction; digits past the nanosecond are truncated toward zero.
/// NaN, infinities and instants outside years 0001-9999 give nil.
enum UnixTime {
  /// The instant `seconds` after the epoch, or nil outside years 0001-9999.
  static func date(seconds: Int64) -> DateValue? {
    DateValue(validating: seconds)
  }

  /// The instant `milliseconds` after the epoch, or nil outside years 0001-9999.
  static func date(milliseconds: Int64) -> DateValue? {
    let (seconds, remainder) = CivilCalendar.floorDivide(milliseconds, by: 1000)
    return DateValue(validating: seconds, nanoseconds: remainder * 1_000_000)
  }

  /// The instant `seconds` (a real) after the epoch, or nil.
  static func date(seconds: Double) -> DateValue? {
    date(real: seconds, decimalShift: 0)
  }

  /// The instant `milliseconds` (a real) after the epoch, or nil.
  static func date(milliseconds: Double) -> DateValue? {
    date(real: milliseconds, decimalShift: 3)
  }

  /// Seconds since the epoch: an integer when the nanoseconds are zero, else
  /// the real nearest to the exact decimal value.
  static func seconds(_ value: DateValue) -> UnixNumber {
    let nanoseconds = value.clampedNanoseconds
    guard nanoseconds != 0 else { return .integer(value.seconds) }
    return .real(real(seconds: value.seconds, nanoseconds: nanoseconds, unitDigits: 9))
  }

  /// Milliseconds since the epoch: an integer when there is nothing below the
  /// millisecond, else the real nearest to the exact decimal value.
  static func milliseconds(_ value: DateValue) -> UnixNumber {
    let nanoseconds = value.clampedNanoseconds
    let (scaled, overflow) = value.seconds.multipliedReportingOverflow(by: 1000)
    guard !overflow, scaled <= Int64.max - 999 else {
      return .real(Double(value.seconds) * 1000 + Double(nanoseconds) / 1_000_000)
    }
    let whole = scaled + nanoseconds / 1_000_000
    let rest = nanoseconds % 1_000_000
    guard rest != 0 else { return .integer(whole) }
    return .real(real(seconds: whole, nanoseconds: rest, unitDigits: 6))
  }

  /// The real nearest `whole + fraction / 10^unitDigits`, by way of its
  /// decimal text (so it is the correctly rounded double). `fraction` is in
  /// `1..<10^unitDigits`.
  private static func real(seconds whole: Int64, nanoseconds fraction: Int64, unitDigits: Int) -> Double {
    var scale: Int64 = 1
    for _ in 0..<unitDigits { scale *= 10 }
    let negative = whole < 0
    // The magnitude of whole + fraction/scale, as integer and fraction parts.
    let integerPart = negative ? (whole + 1).magnitude : whole.magnitude
    let fractionPart = negative ? scale - fraction : fraction
    var text = negative ? "-" : ""
    text += String(integerPart)
    text += "."
    let digits = String(fractionPart)
    text += String(repeating: "0", count: max(0, unitDigits - digits.count))
    text += digits
    return Double(text) ?? (Double(whole) + Double(fraction) / Double(scale))
  }

  /// The instant `number * 10^-decimalShift` seconds after the epoch, read
  /// from the shortest decimal spelling of `number`; nil for NaN, infinities
  /// and instants outside years 0001-9999.
  private static func date(real number: Double, decimalShift: Int) -> DateValue? {
    guard number.isFinite, let decimal = UnixDecimalSpelling(number) else { return nil }
    // number = ±significand * 10^exponent, so seconds = ±significand * 10^(exponent - decimalShift).
    let exponent = decimal.exponent - decimalShift
    var whole: UInt64
    var nanoseconds: UInt64
    if exponent >= 0 {
      guard exponent <= 19, let scaled = multiply(decimal.significand, byPowerOfTen: exponent) else {
        return decimal.significand == 0 ? DateValue.epoch : nil
      }
      whole = scaled
      nanoseconds = 0
    } else {
      let places = -exponent
      if places <= 19 {
        let divisor = powerOfTen(places)
        whole = decimal.significand / divisor
        let rest = decimal.significand % divisor
        nanoseconds =
          places <= 9 ? rest * powerOfTen(9 - places) : rest / powerOfTen(places - 9)
      } else {
        whole = 0
        nanoseconds = places - 9 <= 19 ? decimal.significand / powerOfTen(places - 9) : 0
      }
    }
    // The magnitude bound keeps the conversion to Int64 and the negation safe.
    guard whole <= UInt64(DateValue.maximumSeconds) + 1 else { return nil }
    var seconds = Int64(whole)
    var nano = Int64(nanoseconds)
    if decimal.negative {
      seconds = -seconds
      if nano > 0 {
        seconds -= 1
        nano = 1_000_000_000 - nano
      }
    }
    return DateValue(validating: seconds, nanoseconds: nano)
  }

  /// 10^exponent for exponent 0-19.
  private static func powerOfTen(_ exponent: Int) -> UInt64 {
    var value: UInt64 = 1
    for _ in 0..<min(max(exponent, 0), 19) { value *= 10 }
    return value
  }

  /// `value * 10^exponent`, or nil when it overflows 64 bits.
  private static func multiply(_ value: UInt64, byPowerOfTen exponent: Int) -> UInt64? {
    let (product, overflow) = value.multipliedReportingOverflow(by: powerOfTen(exponent))
    return overflow ? nil : product
  }
}
