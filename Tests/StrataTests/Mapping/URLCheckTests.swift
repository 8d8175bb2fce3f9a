import Strata
import Testing

/// The `url` type's check reads the part after the scheme eight bytes at a
/// time: every position of a space, a control character or DEL must still
/// be found, next to bytes that only look close (0x21, 0x7E, UTF-8).
private let linkSchema: JSON = [
  "strata": 1,
  "models": ["Link": ["properties": ["href": ["type": "url"]]]],
]

/// The rule, one byte at a time: a letter, then letters, digits, "+", "-"
/// or "."; a ":" and at least one byte; no byte at most 0x20 and no 0x7F.
private func referenceIsAbsolute(_ text: String) -> Bool {
  let bytes = Array(text.utf8)
  guard let first = bytes.first, first.isASCIILetter else { return false }
  guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 1 < bytes.count else { return false }
  for byte in bytes[1..<colon]
  where
    !(byte.isASCIILetter || (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2D || byte == 0x2E)
  {
    return false
  }
  return !bytes.contains { $0 <= 0x20 || $0 == 0x7F }
}

extension UInt8 {
  fileprivate var isASCIILetter: Bool { (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A) }
}

@Test func urlCheckFindsEveryBadByteAtEveryPosition() throws {
  let schema = try Schema(linkSchema)
  let stems = [
    "https://example.com/a/long/path/segment/", "x:", "mailto:someone@example.com", "a+b-c.d:rest",
  ]
  let inserts: [String] = [
    "\u{0}", "\u{1}", "\u{1F}", " ", "\t", "\n", "!", "~", "\u{7F}", "é", "\u{80}", "\u{FFFF}", "a", ":",
  ]
  var checked = 0
  for stem in stems {
    let characters = Array(stem)
    for position in 0...characters.count {
      for insert in inserts {
        var text = characters
        text.insert(contentsOf: insert, at: position)
        let candidate = String(text)
        let expected = referenceIsAbsolute(candidate)
        let accepted: Bool
        do {
          _ = try schema.map("Link", from: ["href": .string(candidate)])
          accepted = true
        } catch {
          #expect(error.errors.first?.code == .format)
          accepted = false
        }
        #expect(accepted == expected, "\(candidate.debugDescription)")
        checked += 1
      }
    }
  }
  #expect(checked > 900)
}
