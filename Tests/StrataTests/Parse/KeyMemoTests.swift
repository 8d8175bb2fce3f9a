import Testing

@testable import Strata

/// `KeyMemo` recognizes a key only by repeating its bytes exactly: random
/// texts of keys (with and without spaces, near the text's end, one byte
/// changed, cut short) against noting each key read the ordinary way.
@Test func keyMemoMatchesOnlyTheSameBytes() {
  let keys = [
    "\"id\": ", "\"id\":", "\"id_str\": ", "\"created_at\": ", "\"a\" : ", "\"favorite_count\": ",
    "\"a_key_longer_than_sixteen_bytes_and_then_some\": ", "\"ext_07\":  ",
  ]
  var random = SeededRandom(seed: 0x4B45_594D)
  var hits = 0
  for _ in 0..<2_000 {
    let memo = KeyMemo()
    // a first object notes its keys in order
    let order = (0..<6).map { _ in keys[random.below(keys.count)] }
    var text: [UInt8] = []
    var starts: [Int] = []
    for key in order {
      starts.append(text.count)
      text += Array(key.utf8)
    }
    // a second object: the same keys, some dropped, changed or cut
    var second: [UInt8] = []
    var expected: [(start: Int, key: String?)] = []
    for key in order where random.below(5) != 0 {
      var bytes = Array(key.utf8)
      var same: String? = key
      if random.below(6) == 0 {
        bytes[random.below(bytes.count)] ^= 0x01
        same = Array(key.utf8) == bytes ? key : nil
      }
      expected.append((second.count, same))
      second += bytes
    }
    if random.below(4) == 0, !second.isEmpty { second.removeLast(random.below(min(3, second.count)) + 1) }
    let all = text + second
    all.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      var cursor = 0
      for (index, key) in order.enumerated() {
        let colon = key.utf8.firstIndex(of: UInt8(ascii: ":")) ?? key.utf8.startIndex
        let quote =
          key.utf8[key.utf8.index(after: key.utf8.startIndex)...].firstIndex(of: UInt8(ascii: "\"")) ?? colon
        let keyLength = key.utf8.distance(from: key.utf8.startIndex, to: quote) - 1
        if memoHit(memo, base, starts[index], buffer.count, &cursor) == nil {
          memo.note(
            base, start: starts[index], span: key.utf8.count, keyLength: keyLength, found: index,
            cursor: &cursor)
        }
      }
      cursor = 0
      for (start, key) in expected {
        let at = text.count + start
        let hit = memoHit(memo, base, at, buffer.count, &cursor)
        if let hit {
          hits += 1
          // a hit repeats a noted key's bytes exactly, inside the text
          let noted = order[hit.found]
          #expect(at + hit.span <= buffer.count)
          #expect(Array(buffer[at..<(at + hit.span)]) == Array(noted.utf8))
        } else if let key, at + key.utf8.count <= buffer.count, cursor < order.count,
          order[cursor] == key
        {
          Issue.record("the key \(key) at the walk's place was not recognized")
        }
      }
    }
  }
  #expect(hits > 1_000)
}

private func memoHit(
  _ memo: KeyMemo, _ base: UnsafePointer<UInt8>, _ at: Int, _ end: Int, _ cursor: inout Int
) -> KeyMemo.Entry? {
  memo.match(base, at, end, cursor: &cursor)
}
