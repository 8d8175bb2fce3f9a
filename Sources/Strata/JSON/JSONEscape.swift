import CJansson

/// The escapes of JSON strings, as the byte parser (`PrunedParser`, strict)
/// and the syntax-error locator (`SyntaxLocator`, tolerant) both read them.
enum JSONEscape {
  /// The byte a one-character escape stands for (`n` for `\n`, ...), or nil
  /// when `letter` does not make one (`u` included: see `hex4`).
  @inline(__always) static func simple(_ letter: UInt8) -> UInt8? {
    switch letter {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return letter
    case UInt8(ascii: "b"): return 0x08
    case UInt8(ascii: "f"): return 0x0C
    case UInt8(ascii: "n"): return 0x0A
    case UInt8(ascii: "r"): return 0x0D
    case UInt8(ascii: "t"): return 0x09
    default: return nil
    }
  }

  /// The value of the four hex digits at `at` (before `end`), or nil.
  ///
  /// The four bytes are read as one word and checked and decoded together
  /// (SWAR), without a loop or a branch per digit: text written by an API
  /// that escapes every non-ASCII character is mostly `\u` escapes.
  @inline(__always) static func hex4(_ base: UnsafePointer<UInt8>, _ at: Int, _ end: Int) -> UInt32? {
    guard at >= 0, at + 4 <= end else { return nil }
    return hex4(word: UInt32(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt32.self)))
  }

  /// The UTF-16 unit of the `\uXXXX` escape held by the first six bytes of
  /// `word` (read little-endian from the backslash on), or nil when they
  /// are not `\u` and four hex digits.
  @inline(__always) static func unicodeUnit(_ word: UInt64) -> UInt32? {
    guard word & 0xFFFF == 0x755C else { return nil }  // "\u"
    return hex4(word: UInt32(truncatingIfNeeded: word >> 16))
  }

  /// The value of four hex digits given as the bytes of `word` (the first
  /// digit its lowest byte), or nil.
  @inline(__always) static func hex4(word: UInt32) -> UInt32? {
    guard isHex4(word) else { return nil }
    // a digit's value is its low nibble, a letter's its low nibble plus 9
    let nibbles = (word & 0x0F0F_0F0F) &+ ((word >> 6) & 0x0101_0101) &* 9
    return (nibbles & 0xFF) << 12 | (nibbles >> 8 & 0xFF) << 8 | (nibbles >> 16 & 0xFF) << 4 | nibbles >> 24
  }

  /// True when the four bytes of `word` are hex digits (either case).
  @inline(__always) static func isHex4(_ word: UInt32) -> Bool {
    isHex(UInt64(word) | 0x3030_3030 << 32)
  }

  /// True when the eight bytes of `word` are hex digits (either case).
  @inline(__always) static func isHex(_ word: UInt64) -> Bool {
    let high: UInt64 = 0x8080_8080_8080_8080
    let ones: UInt64 = 0x0101_0101_0101_0101
    // with every byte below 0x80, adding to a byte never carries into the next
    guard word & high == 0 else { return false }
    let digit = (word &+ ones &* 0x50) & ~(word &+ ones &* 0x46) & high  // 0x30...0x39
    let folded = word | ones &* 0x20  // A-F to a-f
    let letter = (folded &+ ones &* 0x1F) & ~(folded &+ ones &* 0x19) & high  // 0x61...0x66
    return digit | letter == high
  }

  /// The high bytes of the two units written by the eight hex digits
  /// `word` (checked by `isHex`; the first unit's digits its low half): the
  /// values of each unit's first two digits, in the low byte of each half.
  @inline(__always) static func highBytes(_ word: UInt64) -> UInt64 {
    // a digit's value is its low nibble, a letter's its low nibble plus 9
    let nibbles = (word & 0x0F0F_0000_0F0F) &+ ((word >> 6) & 0x0101_0000_0101) &* 9
    return (nibbles & 0xFF_0000_00FF) << 4 | (nibbles >> 8) & 0xFF_0000_00FF
  }

  /// 1 when either unit written by the eight hex digits `word` is zero (a
  /// key may not hold `\u0000`), else 0.
  @inline(__always) static func zeroUnits(_ word: UInt64) -> UInt32 {
    word & 0xFFFF_FFFF == 0x3030_3030 || word >> 32 == 0x3030_3030 ? 1 : 0
  }

  /// True for the high (first) half of a surrogate pair.
  @inline(__always) static func isHigh(_ unit: UInt32) -> Bool { unit >= 0xD800 && unit <= 0xDBFF }

  /// True for the low (second) half of a surrogate pair.
  @inline(__always) static func isLow(_ unit: UInt32) -> Bool { unit >= 0xDC00 && unit <= 0xDFFF }

  /// The scalar value a surrogate pair stands for.
  @inline(__always) static func pair(_ high: UInt32, _ low: UInt32) -> UInt32 {
    0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
  }

  /// The strict reading of the `\u` escape whose backslash is at `at`: its
  /// scalar value and the index after it (twelve bytes for a surrogate
  /// pair), or nil for bad hex, a lone or reversed surrogate, or text that
  /// ends early.
  @inline(__always) static func unicode(_ base: UnsafePointer<UInt8>, _ at: Int, _ end: Int) -> (UInt32, Int)?
  {
    guard let unit = hex4(base, at + 2, end) else { return nil }
    if isHigh(unit) {
      guard at + 12 <= end, base[at + 6] == UInt8(ascii: "\\"), base[at + 7] == UInt8(ascii: "u"),
        let low = hex4(base, at + 8, end), isLow(low)
      else { return nil }
      return (pair(unit, low), at + 12)
    }
    if isLow(unit) { return nil }
    return (unit, at + 6)
  }

  /// Checks the run of escapes whose first backslash is at `at`, as the
  /// strict reading of each would (`simple`, `unicode`), without decoding
  /// them: the index after the run (the first byte that does not start an
  /// escape), or nil for a bad escape, a lone or reversed surrogate, or
  /// text that ends early. With `key`, `\u0000` is refused too.
  ///
  /// Made for text that writes every non-ASCII character as `\u` (emoji as
  /// surrogate pairs between letters that are not): each escape's
  /// surrogate class is folded into flags instead of branched on, so a mix
  /// of pairs and single escapes costs no mispredicted branch.
  @inline(__always) static func skipRun(_ base: UnsafePointer<UInt8>, _ at: Int, _ end: Int, key: Bool)
    -> Int?
  {
    var index = at
    // 1 after a high half, its low half due next
    var pending: UInt32 = 0
    var wrong: UInt32 = 0
    // five `\uXXXX` escapes a step with AVX2 (`strata_escape_run`,
    // Sources/CJansson/utf8_run.h), where the CPU has it and 32 bytes remain
    if end &- index >= 32 && base[index &+ 1] == UInt8(ascii: "u") {
      var state: UInt32 = 0
      let crossed = strata_escape_run(base + index, end &- index, key ? 1 : 0, &state)
      if crossed > 0 {
        index &+= crossed
        pending = state & 1
        wrong = state >> 1
        guard base[index] == UInt8(ascii: "\\") else { return wrong | pending == 0 ? index : nil }
      }
    }
    // `\uXXXX` escapes, the common ones, read two at a time as two words
    // (while sixteen bytes remain), then one at a time as one word with the
    // two bytes after it (while eight remain): anything else, and the run's
    // last bytes, are read one escape at a time below
    while index &+ 16 <= end {
      let first = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      let second = UInt64(littleEndian: UnsafeRawPointer(base + index + 8).loadUnaligned(as: UInt64.self))
      // `\u` at bytes 0 and 6; the digits at 2-5 and 8-11, as one word
      let digits = (first >> 16) & 0xFFFF_FFFF | second << 32
      guard first & 0xFFFF_0000_0000_FFFF == 0x755C_0000_0000_755C, isHex(digits) else { break }
      let highs = highBytes(digits)
      let one = UInt32(truncatingIfNeeded: highs) & 0xFC
      let two = UInt32(truncatingIfNeeded: highs >> 32) & 0xFC
      wrong |= (one == 0xDC ? 1 : 0) ^ pending
      wrong |= (two == 0xDC ? 1 : 0) ^ (one == 0xD8 ? 1 : 0)
      pending = two == 0xD8 ? 1 : 0
      if key { wrong |= zeroUnits(digits) }
      index &+= 12
      guard (second >> 32) & 0xFF == 0x5C else { return wrong | pending == 0 ? index : nil }
    }
    while index &+ 8 <= end {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      // the digits, and four zero digits above them
      let digits = (word >> 16) & 0xFFFF_FFFF | 0x3030_3030 << 32
      guard word & 0xFFFF == 0x755C, isHex(digits) else { break }
      // only the unit's high byte is needed: its surrogate class
      let high = UInt32(truncatingIfNeeded: highBytes(digits)) & 0xFC
      wrong |= (high == 0xDC ? 1 : 0) ^ pending
      pending = high == 0xD8 ? 1 : 0
      if key { wrong |= digits & 0xFFFF_FFFF == 0x3030_3030 ? 1 : 0 }
      index &+= 6
      // the run goes on where the byte after the escape is a backslash
      guard (word >> 48) & 0xFF == 0x5C else { return wrong | pending == 0 ? index : nil }
    }
    while true {
      guard index + 1 < end else { return nil }
      let letter = base[index + 1]
      if letter == UInt8(ascii: "u") {
        guard let unit = hex4(base, index + 2, end) else { return nil }
        wrong |= (isLow(unit) ? 1 : 0) ^ pending | (key && unit == 0 ? 1 : 0)
        pending = isHigh(unit) ? 1 : 0
        index += 6
      } else {
        guard pending == 0, simple(letter) != nil else { return nil }
        index += 2
      }
      guard index < end, base[index] == UInt8(ascii: "\\") else { break }
    }
    guard wrong | pending == 0 else { return nil }
    return index
  }
}
