/// A finite double as its shortest round-trip decimal spelling (Swift's
/// `description`): `±significand * 10^exponent`.
struct UnixDecimalSpelling {
  /// True for a number below zero (or negative zero).
  var negative = false
  /// The decimal digits, as an integer (at most 17 significant digits).
  var significand: UInt64 = 0
  /// The power of ten the significand is scaled by.
  var exponent = 0

  /// The spelling of `number`, or nil when it is not finite or its text
  /// cannot be read.
  init?(_ number: Double) {
    guard number.isFinite else { return nil }
    var text = number.description
    guard let parsed = text.withUTF8({ UnixDecimalSpelling.read($0) }) else { return nil }
    self = parsed
  }

  /// An empty spelling, filled by `read`.
  private init() {}

  /// Reads `-?digits(.digits)?(e[+-]?digits)?`.
  private static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> UnixDecimalSpelling? {
    var spelling = UnixDecimalSpelling()
    var scanner = DateScanner(bytes)
    spelling.negative = scanner.consume(UInt8(ascii: "-"))
    var sawDigit = false
    var afterPoint = false
    while let byte = scanner.peek() {
      if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
        let (times, overflow1) = spelling.significand.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
        guard !overflow1, !overflow2 else { return nil }
        spelling.significand = sum
        if afterPoint { spelling.exponent -= 1 }
        sawDigit = true
      } else if byte == UInt8(ascii: ".") && !afterPoint {
        afterPoint = true
      } else {
        break
      }
      scanner.skip()
    }
    guard sawDigit else { return nil }
    if scanner.consume(UInt8(ascii: "e")) || scanner.consume(UInt8(ascii: "E")) {
      let negativeExponent = scanner.consume(UInt8(ascii: "-"))
      if !negativeExponent { _ = scanner.consume(UInt8(ascii: "+")) }
      guard let power = scanner.digits(atLeast: 1, atMost: 4) else { return nil }
      spelling.exponent += negativeExponent ? -power : power
    }
    return scanner.isAtEnd ? spelling : nil
  }
}
