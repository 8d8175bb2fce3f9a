/// A forward-only reader over the UTF-8 bytes of a date's text. Every read
/// checks the bounds first, so no input can make it read outside the buffer.
struct DateScanner {
  /// The bytes being read.
  let bytes: UnsafeBufferPointer<UInt8>
  /// The position of the next byte, `0...bytes.count`.
  private(set) var index = 0

  /// A scanner at the start of `bytes`.
  init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  /// True when every byte has been read.
  var isAtEnd: Bool { index >= bytes.count }

  /// The next byte, or nil at the end.
  @inline(__always) func peek() -> UInt8? {
    index < bytes.count ? bytes[index] : nil
  }

  /// Moves past the next byte (nothing at the end).
  @inline(__always) mutating func skip() {
    if index < bytes.count { index += 1 }
  }

  /// Moves past the next byte when it is `byte`; tells whether it did.
  @inline(__always) mutating func consume(_ byte: UInt8) -> Bool {
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  /// Moves past `literal` when the next bytes are exactly it; tells whether it did.
  mutating func consume(_ literal: DateLiteral) -> Bool {
    guard literal.count <= bytes.count - index else { return false }
    var position = index
    for at in 0..<literal.count {
      guard bytes[position] == literal[at] else { return false }
      position += 1
    }
    index = position
    return true
  }

  /// The value of the decimal digit at `position`, or nil when there is none.
  @inline(__always) private func digit(at position: Int) -> Int? {
    guard position < bytes.count else { return nil }
    let byte = bytes[position]
    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
    return Int(byte - UInt8(ascii: "0"))
  }

  /// Reads exactly `count` (1-9) decimal digits as a number; nil, without
  /// moving, when they are not all there.
  @inline(__always) mutating func digits(exactly count: Int) -> Int? {
    digits(atLeast: count, atMost: count)
  }

  /// Reads as many decimal digits as there are, up to `atMost` (at most 9),
  /// as a number; nil, without moving, when there are fewer than `atLeast`.
  @inline(__always) mutating func digits(atLeast: Int, atMost: Int) -> Int? {
    var value = 0
    var read = 0
    let limit = min(atMost, 9)
    while read < limit, let next = digit(at: index + read) {
      value = value * 10 + next
      read += 1
    }
    guard read >= atLeast, read > 0 else { return nil }
    index += read
    return value
  }

  /// Reads one or more decimal digits as the fraction of a second after a
  /// decimal point, in nanoseconds; digits past the ninth are read and dropped
  /// (truncation). Nil, without moving, when no digit is there.
  mutating func fractionNanoseconds() -> Int? {
    var value = 0
    var read = 0
    while let next = digit(at: index + read) {
      if read < 9 { value = value * 10 + next }
      read += 1
    }
    guard read > 0 else { return nil }
    var scale = read
    while scale < 9 {
      value *= 10
      scale += 1
    }
    index += read
    return value
  }

  /// Reads the first of `names` (ASCII, compared without regard to case) that
  /// the next bytes spell, and returns its position in `names`; nil, without
  /// moving, when none matches.
  mutating func name(in names: [[UInt8]]) -> Int? {
    for (position, name) in names.enumerated() where matches(name) {
      index += name.count
      return position
    }
    return nil
  }

  /// True when the next bytes spell `name`, ASCII letters compared without
  /// regard to case.
  private func matches(_ name: [UInt8]) -> Bool {
    guard name.count <= bytes.count - index else { return false }
    var position = index
    for expected in name {
      guard bytes[position] | 0x20 == expected | 0x20 else { return false }
      position += 1
    }
    return true
  }
}
