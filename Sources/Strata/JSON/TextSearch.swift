/// Substring search on UTF-8 bytes, so that the engine needs nothing of the
/// `_StringProcessing` module (its `contains` and `firstRange(of:)` on
/// strings pull that module and `_RegexParser`, about 0.9 MB, into
/// libstrata.so; Benchmarks/README.md, "Footprint").
extension String {
  /// True when `part` occurs in the text.
  package func holds(_ part: String) -> Bool {
    Self.firstOffset(of: Array(part.utf8), in: Array(utf8), from: 0) != nil
  }

  /// The text with every occurrence of `part` (not empty) replaced by `replacement`.
  func replacingEvery(_ part: String, with replacement: String) -> String {
    let bytes = Array(utf8)
    let needle = Array(part.utf8)
    guard !needle.isEmpty else { return self }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var start = 0
    while let found = Self.firstOffset(of: needle, in: bytes, from: start) {
      out += bytes[start..<found]
      out += replacement.utf8
      start = found + needle.count
    }
    out += bytes[start...]
    return String(decoding: out, as: UTF8.self)
  }

  /// The first offset at or after `start` where `needle` begins in `bytes`.
  private static func firstOffset(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    guard !needle.isEmpty, bytes.count >= needle.count, start <= bytes.count - needle.count else {
      return needle.isEmpty ? start : nil
    }
    var at = start
    while at <= bytes.count - needle.count {
      var same = true
      for index in 0..<needle.count where bytes[at + index] != needle[index] {
        same = false
        break
      }
      if same { return at }
      at += 1
    }
    return nil
  }
}
