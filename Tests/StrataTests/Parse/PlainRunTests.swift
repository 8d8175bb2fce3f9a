import Testing

@testable import Strata

/// `PlainRun.validatedEnd` against Swift's own UTF-8 validation: the string
/// scanner's loop (`validatedEnd`, then one character checked byte by byte
/// where it stops on a non-ASCII byte) must reach the string's end exactly
/// when the bytes before it are well-formed UTF-8, and refuse otherwise,
/// whatever the alignment of sequences to its 16-byte blocks.
struct PlainRunTests {
  /// The scanner's loop over `bytes`: the index of the first `"`, backslash
  /// or control byte, or nil when a malformed sequence comes first. Where
  /// `validatedEnd` stops on a non-ASCII byte, one sequence is checked by
  /// hand (as `PrunedParser.utf8Length` does) and the loop goes on.
  private func scan(_ bytes: [UInt8]) -> Int? {
    bytes.withUnsafeBufferPointer { buffer -> Int? in
      guard let base = buffer.baseAddress else { return 0 }
      var index = 0
      while true {
        index = PlainRun.validatedEnd(base, from: index, end: buffer.count)
        if index == buffer.count { return index }
        let c = buffer[index]
        if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { return index }
        #expect(c >= 0x80, "stopped at a plain byte \(c) at \(index)")
        guard c >= 0x80, let length = sequenceLength(buffer, index) else { return nil }
        index += length
      }
    }
  }

  /// The length of the well-formed sequence at `at`, by Swift's validation.
  private func sequenceLength(_ buffer: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int? {
    let first = buffer[at]
    let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
    guard at + length <= buffer.count else { return nil }
    let slice = Array(buffer[at..<(at + length)])
    guard String(validating: slice, as: UTF8.self) != nil, first >= 0xC0 else { return nil }
    return length
  }

  /// What the scan must give: the first special byte when everything before
  /// it is well-formed, else nil.
  private func expected(_ bytes: [UInt8]) -> Int? {
    let stop =
      bytes.firstIndex { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 } ?? bytes.count
    return String(validating: bytes[..<stop], as: UTF8.self) != nil ? stop : nil
  }

  /// Pieces of text: ASCII, 2-, 3- and 4-byte characters, and the malformed
  /// sequences the check must catch in any position.
  private static let pieces: [[UInt8]] = [
    Array("plain ascii text".utf8), Array("é".utf8), Array("日本語".utf8), Array("🎉".utf8),
    Array("한".utf8), Array("\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}".utf8),
    [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF],
    [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xEF, 0xBF], [0xF0, 0x80, 0x80, 0x80],
    [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],
    [0xE3, 0x81, 0x41], [0xC3, 0x22], [0xE6, 0x97, 0x22],
  ]

  /// How many times the scan of `bytes` stops on a non-ASCII byte.
  private func slowSteps(_ bytes: [UInt8]) -> Int {
    bytes.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return 0 }
      var index = 0
      var steps = 0
      while true {
        index = PlainRun.validatedEnd(base, from: index, end: buffer.count)
        guard index < buffer.count, buffer[index] >= 0x80, let length = sequenceLength(buffer, index) else {
          return steps
        }
        steps += 1
        index += length
      }
    }
  }

  @Test func randomTextScansAsSwiftValidatesIt() {
    var generator = SeededRandom(seed: 20_261_127)
    var malformed = 0
    var wellFormed = 0
    for _ in 0..<20_000 {
      var bytes: [UInt8] = []
      let count = Int(generator.next() % 12) + 1
      for _ in 0..<count {
        let roll = generator.next() % 100
        if roll < 70 {
          bytes += Self.pieces[Int(generator.next() % 6)]  // well-formed
        } else if roll < 80 {
          bytes += Array(repeating: UInt8(ascii: "a"), count: Int(generator.next() % 17))  // shifts alignment
        } else if roll < 83 {
          bytes.append([UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A][Int(generator.next() % 3)])
        } else if roll < 86 {
          bytes += Self.pieces[6 + Int(generator.next() % UInt64(Self.pieces.count - 6))]  // malformed
        } else {
          bytes += Self.pieces[2]
        }
      }
      let want = expected(bytes)
      if want == nil { malformed += 1 } else { wellFormed += 1 }
      #expect(scan(bytes) == want, "\(bytes)")
      if want != nil {
        // well-formed text stops on a character only in its last 15 bytes
        let tail = bytes.suffix(from: max(0, min(want ?? 0, bytes.count) - 15))
        #expect(slowSteps(bytes) <= tail.filter { $0 >= 0xC0 }.count, "\(bytes)")
      }
    }
    #expect(malformed > 1_000 && wellFormed > 1_000)
  }

  @Test func wellFormedTextIsCrossedInBlocks() {
    // 16-byte blocks of 3-byte characters, emoji across block ends: the scan
    // stops on no character before the quote except in the last block
    let text =
      Array(String(repeating: "日本語のテキスト🎉", count: 20).utf8) + [UInt8(ascii: "\"")]
      + Array(repeating: 0x20, count: 16)
    text.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      #expect(PlainRun.validatedEnd(base, from: 0, end: buffer.count) == buffer.count - 17)
    }
  }
}

/// `JSONEscape.hex4` reads four bytes at once: every 4-byte string of the
/// characters around the hex digits' ranges, against a digit-by-digit reading.
@Test func hex4ReadsExactlyTheHexDigits() {
  let alphabet: [UInt8] = Array("/09:@AFGaf`g".utf8) + [0x00, 0x10, 0x19, 0x7F, 0x80, 0xB0, 0xC1, 0xE6, 0xFF]
  func reference(_ bytes: [UInt8]) -> UInt32? {
    var value: UInt32 = 0
    for c in bytes {
      guard let digit = UInt32(String(UnicodeScalar(c)), radix: 16), c < 0x80 else { return nil }
      value = value << 4 | digit
    }
    return value
  }
  var checked = 0
  for a in alphabet {
    for b in alphabet {
      for c in alphabet {
        for d in alphabet {
          let bytes = [a, b, c, d]
          let read = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.flatMap { JSONEscape.hex4($0, 0, 4) }
          }
          #expect(read == reference(bytes), "\(bytes)")
          checked += 1
        }
      }
    }
  }
  #expect(checked == alphabet.count * alphabet.count * alphabet.count * alphabet.count)
}

/// `JSONEscape.skipRun` checks a run of escapes with the surrogate halves
/// folded into flags: random runs (pairs, single escapes, simple escapes,
/// lone, reversed and cut halves, bad hex, `\u0000`, text ending early),
/// against reading them one escape at a time with `simple` and `unicode`.
@Test func escapeRunsSkipAsReadOneByOne() {
  func reference(_ bytes: [UInt8], key: Bool) -> Int? {
    bytes.withUnsafeBufferPointer { buffer -> Int? in
      guard let base = buffer.baseAddress else { return nil }
      var index = 0
      repeat {
        guard index + 1 < buffer.count else { return nil }
        if JSONEscape.simple(base[index + 1]) != nil {
          index += 2
        } else {
          guard base[index + 1] == UInt8(ascii: "u"),
            let (scalar, next) = JSONEscape.unicode(base, index, buffer.count)
          else { return nil }
          if key && scalar == 0 { return nil }
          index = next
        }
      } while index < buffer.count && base[index] == UInt8(ascii: "\\")
      return index
    }
  }
  let pieces: [String] = [
    "\\u6771", "\\u4EAC", "\\ud83d\\udc4d", "\\uD83C\\uDFFD", "\\ud83d", "\\udc4d", "\\uDBFF", "\\uDC00",
    "\\u0000", "\\u00e9", "\\u200d", "\\/", "\\n", "\\\"", "\\\\", "\\q", "\\u12G4", "\\u12", "\\", "a",
    "\u{6771}", "\"",
  ]
  var random = SeededRandom(seed: 0x5EED_E5CA)
  var accepted = 0
  for _ in 0..<20_000 {
    var text = pieces[random.below(pieces.count - 5)]  // starts with an escape
    // long runs of `\u` escapes too (the AVX2 kernel reads five a step)
    for _ in 0..<random.below(random.below(4) == 0 ? 24 : 8) {
      text += pieces[random.below(4) == 0 ? random.below(pieces.count) : random.below(11)]
    }
    let bytes = Array(text.utf8)
    for key in [false, true] {
      let skipped = bytes.withUnsafeBufferPointer { buffer in
        buffer.baseAddress.flatMap { JSONEscape.skipRun($0, 0, buffer.count, key: key) }
      }
      #expect(skipped == reference(bytes, key: key), "\(text) key: \(key)")
      if skipped != nil { accepted += 1 }
    }
  }
  // both outcomes are exercised
  #expect(accepted > 2_000 && accepted < 38_000)
}
