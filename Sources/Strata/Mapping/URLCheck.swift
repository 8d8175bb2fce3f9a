/// The `url` type's check: an absolute URL with a scheme.
enum URLCheck {
  /// True for `scheme ":" rest`, where the scheme is a letter followed by
  /// letters, digits, `+`, `-` or `.`, the rest is not empty, and nothing is
  /// a space or a control character.
  static func isAbsolute(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress, bytes.count > 0, isLetter(base[0]) else { return false }
    let count = bytes.count
    // the scheme, up to the first ":"
    var index = 1
    while index < count && base[index] != UInt8(ascii: ":") {
      let byte = base[index]
      guard
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
          || byte == UInt8(ascii: ".")
      else { return false }
      index += 1
    }
    // a ":" and at least one byte after it
    guard index + 1 < count else { return false }
    // the rest: eight bytes at a time, then one by one
    index += 1
    while index + 8 <= count {
      let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
      if hasSpaceControlOrDelete(word) { return false }
      index += 8
    }
    while index < count {
      if base[index] <= 0x20 || base[index] == 0x7F { return false }
      index += 1
    }
    return true
  }

  /// True when a byte of `word` is at most 0x20 or is 0x7F. Each test is
  /// exact as to whether some byte matches: a borrow or carry only spreads
  /// from a byte that matches itself.
  @inline(__always) private static func hasSpaceControlOrDelete(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    // a byte below 0x21: subtracting 0x21 borrows into its high bit while its own high bit is clear
    let below = (word &- ones &* 0x21) & ~word & highs
    // a byte equal to 0x7F: zero after the XOR
    let deletes = word ^ (ones &* 0x7F)
    let zero = (deletes &- ones) & ~deletes & highs
    return (below | zero) != 0
  }

  @inline(__always) private static func isLetter(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
      || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
  }

  @inline(__always) private static func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }
}
