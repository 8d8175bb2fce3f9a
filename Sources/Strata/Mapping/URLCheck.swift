/// The `url` type's check: an absolute URL with a scheme.
enum URLCheck {
  /// True for `scheme ":" rest`, where the scheme is a letter followed by
  /// letters, digits, `+`, `-` or `.`, the rest is not empty, and nothing is
  /// a space or a control character.
  static func isAbsolute(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let first = bytes.first, isLetter(first) else { return false }
    var colon = -1
    for (position, byte) in bytes.enumerated() {
      if byte <= 0x20 || byte == 0x7F { return false }
      if colon < 0 {
        if byte == UInt8(ascii: ":") {
          colon = position
        } else if !(isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
          || byte == UInt8(ascii: "."))
        {
          return false
        }
      }
    }
    return colon > 0 && colon + 1 < bytes.count
  }

  @inline(__always) private static func isLetter(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
      || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
  }

  @inline(__always) private static func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }
}
