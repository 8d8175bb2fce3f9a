import CJansson
import Testing

/// The AVX2 kernel `strata_utf8_run` (Sources/CJansson/utf8_run.h) alone,
/// against Swift's own UTF-8 validation, on texts of many 32-byte blocks:
/// whatever it returns is a character boundary with well-formed UTF-8 before
/// it; a `"`, backslash or control byte it returns is the text's first; and
/// on well-formed text whose first such byte lies within whole blocks, it
/// returns that byte (it did the work, not the Swift code after it).
struct UTF8KernelTests {
  private static let wellFormed: [[UInt8]] = [
    Array("plain ascii text".utf8), Array("é".utf8), Array("日本語".utf8), Array("🎉".utf8),
    Array("한".utf8), Array("\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}".utf8), Array("ab".utf8),
  ]
  private static let malformed: [[UInt8]] = [
    [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF],
    [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xEF, 0xBF], [0xF0, 0x80, 0x80, 0x80],
    [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],
    [0xE3, 0x81, 0x41], [0xC3, 0x22], [0xE6, 0x97, 0x22], [0xF0, 0x9F, 0x8E], [0xF8, 0x88, 0x80, 0x80, 0x80],
  ]

  private static func isStop(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
  }

  @Test func kernelAgreesWithSwiftValidation() throws {
    try #require(strata_avx2_usable() != 0, "this test needs a CPU with AVX2")
    var generator = SeededRandom(seed: 20_261_129)
    var crossed = 0
    var refused = 0
    for _ in 0..<20_000 {
      var bytes: [UInt8] = []
      let pieces = Int(generator.next() % 60) + 1
      let bad = generator.next() % 3 == 0
      for _ in 0..<pieces {
        let roll = generator.next() % 100
        if roll < 85 {
          bytes += Self.wellFormed[Int(generator.next() % UInt64(Self.wellFormed.count))]
        } else if roll < 93 {
          bytes += Array(repeating: UInt8(ascii: "a"), count: Int(generator.next() % 33))
        } else if roll < 96 || !bad {
          if generator.next() % 4 == 0 {
            bytes.append([UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x00][Int(generator.next() % 4)])
          }
        } else {
          bytes += Self.malformed[Int(generator.next() % UInt64(Self.malformed.count))]
        }
      }
      let stop = bytes.firstIndex(where: Self.isStop) ?? bytes.count
      let valid = String(validating: bytes[..<stop], as: UTF8.self) != nil
      let got = bytes.withUnsafeBufferPointer { strata_utf8_run($0.baseAddress, $0.count) }
      #expect(got <= bytes.count && got <= stop, "\(bytes): \(got) past the first stop \(stop)")
      guard got <= stop else { continue }
      // what comes before is well formed, so it ends on a boundary (a
      // sequence cut at `got` would make it malformed)
      #expect(String(validating: bytes[..<got], as: UTF8.self) != nil, "\(bytes): \(got)")
      if got < bytes.count && Self.isStop(bytes[got]) {
        #expect(got == stop && valid, "\(bytes): stopped at \(got), want \(stop) (well formed: \(valid))")
      }
      if valid && stop < bytes.count / 32 * 32 {
        #expect(got == stop, "\(bytes): \(got), want \(stop)")
        crossed += 1
      }
      if !valid { refused += 1 }
    }
    #expect(crossed > 2_000 && refused > 2_000, "crossed \(crossed), refused \(refused)")
  }
}
