/// Writes a date's text into a fixed buffer (the storage of the `String`
/// being made), so formatting costs one allocation. Writes past the end of
/// the buffer are dropped, never trapped on; callers size the buffer for
/// their longest output.
struct DateByteWriter {
  /// The storage being written.
  let buffer: UnsafeMutableBufferPointer<UInt8>
  /// The number of bytes written so far.
  private(set) var count = 0

  /// A writer at the start of `buffer`.
  init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
    self.buffer = buffer
  }

  /// Appends one byte.
  @inline(__always) mutating func write(_ byte: UInt8) {
    guard count < buffer.count else { return }
    buffer[count] = byte
    count += 1
  }

  /// Appends bytes.
  mutating func write(_ bytes: [UInt8]) {
    for byte in bytes { write(byte) }
  }

  /// Appends a pattern's literal text.
  mutating func write(_ literal: DateLiteral) {
    for at in 0..<literal.count { write(literal[at]) }
  }

  /// Appends exactly two digits of `value` (0-99).
  @inline(__always) mutating func writeTwoDigits(_ value: Int64) {
    let value = UInt8(truncatingIfNeeded: min(max(value, 0), 99))
    write(UInt8(ascii: "0") + value / 10)
    write(UInt8(ascii: "0") + value % 10)
  }

  /// Appends `value` in decimal, `-` first when negative, zero-padded to at
  /// least `minimumDigits` digits.
  mutating func writeNumber(_ value: Int64, minimumDigits: Int) {
    if value < 0 { write(UInt8(ascii: "-")) }
    let magnitude = value.magnitude
    var digits = 1
    var rest = magnitude / 10
    while rest > 0 {
      digits += 1
      rest /= 10
    }
    let width = max(digits, min(minimumDigits, 20))
    guard width <= buffer.count - count else { return }
    var remaining = magnitude
    var position = count + width
    while position > count {
      position -= 1
      buffer[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: remaining % 10)
      remaining /= 10
    }
    count += width
  }

  /// Appends `.` and the nanoseconds (0-999_999_999) with trailing zeros
  /// trimmed (`.5`, `.000001`); nothing when they are zero.
  mutating func writeTrimmedFraction(_ nanoseconds: Int64) {
    guard nanoseconds > 0 else { return }
    var value = nanoseconds
    var digits = 9
    while value % 10 == 0 {
      value /= 10
      digits -= 1
    }
    write(UInt8(ascii: "."))
    writeNumber(value, minimumDigits: digits)
  }

  /// Appends an offset in whole minutes, sign always written: `+hh:mm` with
  /// `separator`, else `+hhmm`; only `+hh` when `optionalMinutes` and the
  /// minutes are zero; `Z` for zero when `zForZero`.
  mutating func writeOffset(_ seconds: Int, separator: Bool, optionalMinutes: Bool, zForZero: Bool) {
    let seconds = Int64(TimeZoneOffset.isValid(seconds) ? seconds : 0)
    if seconds == 0 && zForZero {
      write(UInt8(ascii: "Z"))
      return
    }
    write(seconds < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
    let minutes = seconds.magnitude / 60
    writeTwoDigits(Int64(minutes / 60))
    if optionalMinutes && minutes % 60 == 0 { return }
    if separator { write(UInt8(ascii: ":")) }
    writeTwoDigits(Int64(minutes % 60))
  }
}
