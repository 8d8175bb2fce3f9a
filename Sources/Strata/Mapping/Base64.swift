/// Base64 (RFC 4648) without Foundation.
enum Base64 {
  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// Decodes the standard or the URL-safe alphabet, with or without padding; nil if malformed.
  static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    var values: [UInt8] = []
    values.reserveCapacity(text.count)
    var padding = 0
    for byte in text {
      if byte == UInt8(ascii: "=") {
        padding += 1
        continue
      }
      if padding > 0 { return nil }  // data after padding
      guard let value = sextet(byte) else { return nil }
      values.append(value)
    }
    if padding > 2 || values.count % 4 == 1 { return nil }
    if padding > 0 && (values.count + padding) % 4 != 0 { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(values.count * 3 / 4)
    var index = 0
    while index + 1 < values.count {
      let a = UInt32(values[index])
      let b = UInt32(values[index + 1])
      let c = index + 2 < values.count ? UInt32(values[index + 2]) : 0
      let d = index + 3 < values.count ? UInt32(values[index + 3]) : 0
      let group = a << 18 | b << 12 | c << 6 | d
      out.append(UInt8(truncatingIfNeeded: group >> 16))
      if index + 2 < values.count { out.append(UInt8(truncatingIfNeeded: group >> 8)) }
      if index + 3 < values.count { out.append(UInt8(truncatingIfNeeded: group)) }
      index += 4
    }
    return out
  }

  /// The standard alphabet, padded.
  static func encode(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index < bytes.count {
      let a = UInt32(bytes[index])
      let b = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
      let c = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
      let group = a << 16 | b << 8 | c
      out.append(alphabet[Int(group >> 18 & 63)])
      out.append(alphabet[Int(group >> 12 & 63)])
      out.append(index + 1 < bytes.count ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
      out.append(index + 2 < bytes.count ? alphabet[Int(group & 63)] : UInt8(ascii: "="))
      index += 3
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func sextet(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
    case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
    case UInt8(ascii: "+"), UInt8(ascii: "-"): return 62
    case UInt8(ascii: "/"), UInt8(ascii: "_"): return 63
    default: return nil
    }
  }
}
