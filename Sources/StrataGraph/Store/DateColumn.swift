import Strata

/// How a date column holds a date: its canonical RFC 3339 UTC text
/// (`2011-04-10T20:09:31.25Z`: a fraction only when not zero, trailing zeros
/// trimmed) with the fraction written out to nine digits
/// (`2011-04-10T20:09:31.250000000Z`). Every stored date then has the same
/// length, so text order is time order: SQL compares, orders and indexes
/// dates as they are, and `sqlite3` or pandas read them as timestamps.
enum DateColumn {
  /// The length of a stored date: `YYYY-MM-DDTHH:MM:SS.fffffffffZ`.
  static let width = 30

  /// The stored text of a canonical date; nil for text that is not one.
  static func stored(_ canonical: String) -> String? {
    let bytes = Array(canonical.utf8)
    guard bytes.count >= 20, bytes.count <= width, bytes.last == UInt8(ascii: "Z"),
      bytes[4] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T")
    else { return nil }
    var out = Array(bytes[0..<19])
    if bytes.count == 20 {
      guard bytes[19] == UInt8(ascii: "Z") else { return nil }
      out.append(UInt8(ascii: "."))
    } else {
      guard bytes[19] == UInt8(ascii: "."), bytes.count > 21 else { return nil }
      let fraction = bytes[20..<(bytes.count - 1)]
      guard fraction.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
        fraction.last != UInt8(ascii: "0")
      else { return nil }
      out.append(contentsOf: bytes[19..<(bytes.count - 1)])
    }
    while out.count < width - 1 { out.append(UInt8(ascii: "0")) }
    out.append(UInt8(ascii: "Z"))
    return String(decoding: out, as: UTF8.self)
  }

  /// The canonical text of a stored date (trailing fraction zeros trimmed);
  /// text of another shape is returned as it is.
  static func canonical(_ stored: String) -> String {
    var bytes = Array(stored.utf8)
    guard bytes.count == width, bytes[19] == UInt8(ascii: "."), bytes.last == UInt8(ascii: "Z") else {
      return stored
    }
    bytes.removeLast()
    while bytes.last == UInt8(ascii: "0") { bytes.removeLast() }
    if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
    bytes.append(UInt8(ascii: "Z"))
    return String(decoding: bytes, as: UTF8.self)
  }
}
