import CJansson
import Testing

@testable import Strata

/// The C kernel `strata_skip_container` (Sources/CJansson/skip_container.h)
/// alone, against jansson: on random containers, many of them broken by a
/// byte put in, taken out or changed, whatever end it gives is one where the
/// text before it is a whole JSON value that jansson reads, and on plain
/// valid containers (no newline, exponent, out-of-range integer or `\u0000`
/// in a key, within its depth room) it gives that end (it did the work, not
/// the Swift loop after it).
struct SkipKernelTests {
  /// The pieces strings are made of: ASCII, long runs, non-ASCII text, and
  /// every kind of escape, runs of `\u` escapes among them.
  private static let plainPieces: [String] = [
    "a", "plain words", "https://t.co/x1", String(repeating: "long ascii text ", count: 5), "é", "日本語",
    "🎉", "한국어 텍스트", "\\n", "\\\"", "\\\\", "\\/", "\\t", "\\u00e9", "\\u6771\\u4EAC",
    "\\ud83d\\udc4d", String(repeating: "\\u3042", count: 9), "\\uD83C\\uDFFD\\u0041",
  ]
  /// Pieces a plain container has not (the kernel may leave them to Swift).
  private static let rarePieces: [String] = ["\\u0000", "\\uDC00", "\\ud83d", "\\q", "\\u12G4"]

  private static let plainNumbers = [
    "0", "-12", "7", "123456789012345678", "9223372036854775807", "-9223372036854775808", "1.5", "-0.25",
    "1700000000000000000", "true", "false", "null",
  ]
  private static let rareNumbers = [
    "9223372036854775808", "12345678901234567890", "1e5", "2.5E-3", "01", "-", "1.",
  ]

  private static func string(_ random: inout SeededRandom, plain: Bool) -> String {
    var text = "\""
    for _ in 0..<random.below(4) {
      if !plain && random.below(6) == 0 {
        text += rarePieces[random.below(rarePieces.count)]
      } else {
        text += plainPieces[random.below(plainPieces.count)]
      }
    }
    return text + "\""
  }

  private static func space(_ random: inout SeededRandom, plain: Bool) -> String {
    switch random.below(12) {
    case 0: return " "
    case 1: return "\t "
    case 2: return "\r"
    case 3: return plain ? "  " : "\n"
    default: return ""
    }
  }

  /// A random JSON value (any kind; one in twenty may have rare forms, and
  /// those may be wrong) as text.
  static func randomValue(_ random: inout SeededRandom) -> String {
    value(&random, plain: random.below(20) != 0, depth: 2)
  }

  private static func value(_ random: inout SeededRandom, plain: Bool, depth: Int) -> String {
    let kind = depth == 0 ? random.below(2) : random.below(depth > 5 ? 3 : 5) + 2
    switch kind {
    case 0, 1:
      let count = random.below(5)
      let object = kind == 0
      var text = object ? "{" : "["
      for index in 0..<count {
        if index > 0 { text += space(&random, plain: plain) + "," }
        text += space(&random, plain: plain)
        if object {
          text += string(&random, plain: plain) + space(&random, plain: plain) + ":"
          text += space(&random, plain: plain)
        }
        text += value(&random, plain: plain, depth: depth + 1)
      }
      return text + space(&random, plain: plain) + (object ? "}" : "]")
    case 2, 3:
      if !plain && random.below(5) == 0 { return rareNumbers[random.below(rareNumbers.count)] }
      return plainNumbers[random.below(plainNumbers.count)]
    case 4:
      return string(&random, plain: plain)
    default:
      return value(&random, plain: plain, depth: random.below(2) == 0 ? depth + 1 : 0)
    }
  }

  /// Bytes a mutation puts in.
  private static let noise: [UInt8] = Array("\"\\,:]}{[ x0u".utf8) + [0x0A, 0x01, 0xC3, 0x80, 0xE6, 0xFF]

  static func mutated(_ bytes: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
    var bytes = bytes
    for _ in 0...random.below(2) where !bytes.isEmpty {
      let at = random.below(bytes.count)
      switch random.below(3) {
      case 0: bytes[at] = noise[random.below(noise.count)]
      case 1: bytes.insert(noise[random.below(noise.count)], at: at)
      default: bytes.remove(at: at)
      }
    }
    return bytes
  }

  /// The kernel's end for the container at the start of `bytes` (then more
  /// text, as inside a larger document), with `room` levels of room.
  private static func kernelEnd(_ bytes: [UInt8], room: Int) -> Int {
    let text = bytes + Array(",\"after\": [1, 2, 3], \"more\": \"padding text past 32 bytes\"}".utf8)
    return text.withUnsafeBufferPointer { buffer in
      buffer.baseAddress.map { strata_skip_container($0, 0, buffer.count, room) } ?? 0
    }
  }

  /// True when jansson reads the first `count` bytes as one whole value.
  private static func janssonReads(_ bytes: [UInt8], _ count: Int) -> Bool {
    guard count <= bytes.count else { return false }
    return bytes.withUnsafeBufferPointer { buffer -> Bool in
      var error = json_error_t()
      let flags = Int(JSON_DECODE_ANY | JSON_ALLOW_NUL)
      guard let base = buffer.baseAddress,
        let value = base.withMemoryRebound(
          to: CChar.self, capacity: count, { json_loadb($0, count, flags, &error) })
      else { return false }
      json_decref(value)
      return true
    }
  }

  @Test func everyEndIsAWholeValueJanssonReads() throws {
    try #require(strata_avx2_usable() != 0, "this test needs a CPU with AVX2")
    var random = SeededRandom(seed: 0x5C1B_2026)
    var crossed = 0
    var refused = 0
    for round in 0..<6_000 {
      let plain = round % 3 == 0
      var bytes = Array(Self.value(&random, plain: plain, depth: 0).utf8)
      if round % 2 == 1 { bytes = Self.mutated(bytes, &random) }
      let end = Self.kernelEnd(bytes, room: 2_000)
      if end == 0 {
        refused += 1
        continue
      }
      crossed += 1
      let text = String(decoding: bytes, as: UTF8.self)
      #expect(end <= bytes.count, "\(text)")
      #expect(Self.janssonReads(bytes, end), "\(text) -> \(end)")
    }
    // both outcomes are exercised
    #expect(crossed > 1_000 && refused > 1_000, "crossed \(crossed), refused \(refused)")
  }

  @Test func plainContainersAreCrossedWhole() throws {
    try #require(strata_avx2_usable() != 0, "this test needs a CPU with AVX2")
    var random = SeededRandom(seed: 0xC0FF_EE17)
    for _ in 0..<3_000 {
      let bytes = Array(Self.value(&random, plain: true, depth: 0).utf8)
      let text = String(decoding: bytes, as: UTF8.self)
      #expect(Self.janssonReads(bytes, bytes.count), "\(text)")
      #expect(Self.kernelEnd(bytes, room: 2_000) == bytes.count, "\(text)")
    }
  }

  @Test func nestingPastTheRoomIsLeftToSwift() throws {
    try #require(strata_avx2_usable() != 0, "this test needs a CPU with AVX2")
    for levels in 1...70 {
      let bytes = Array((String(repeating: "[", count: levels) + String(repeating: "]", count: levels)).utf8)
      // `room` counts the levels the parser has left, the opening bracket's own included
      for room in [levels, levels + 1, 2_000] {
        let expected = levels + 1 <= room && levels <= 64 ? bytes.count : 0
        #expect(Self.kernelEnd(bytes, room: room) == expected, "levels \(levels), room \(room)")
      }
    }
    // the input's end inside a string, and text with no room for a block
    #expect(strata_skip_container([UInt8](Array("[\"abc".utf8)), 0, 5, 2_000) == 0)
    #expect(strata_skip_container([UInt8](Array("[1, 2]".utf8)), 0, 6, 2_000) == 6)
  }
}

/// `DirectReader` on arrays of objects whose keys come in one order (so
/// that its key memo learns them), most not wanted, with random values
/// (skipped members and containers, which the C kernel crosses), some texts
/// broken by a byte, read by the byte path and by the DOM path: the same
/// models, or the same error both ways (numbers outside jansson's range left
/// out: the bytes path may accept those when it skips them).
struct SkipMembersTests {
  let schema: Schema

  init() throws {
    schema = try Schema(
      parsing: """
        {"strata": 1, "models": {
          "Status": {"properties": {
            "id": {"type": "int", "required": true},
            "name": {"type": "string"},
            "userID": {"type": "int", "json": "user.id"}
          }}}}
        """)
  }

  private static let unwanted = (0..<14).map { "\"extra_\($0)\"" } + ["\"entities\"", "\"\\u0061b\""]

  private func text(_ random: inout SeededRandom) -> [UInt8] {
    // one order of keys for every object of the array, the wanted ones among them
    var keys = (0..<random.below(9) + 3).map { _ in Self.unwanted[random.below(Self.unwanted.count)] }
    keys.insert("\"id\"", at: random.below(keys.count + 1))
    keys.insert("\"user\"", at: random.below(keys.count + 1))
    if random.below(2) == 0 { keys.insert("\"name\"", at: random.below(keys.count + 1)) }
    var objects: [String] = []
    for index in 0..<random.below(5) + 2 {
      var members: [String] = []
      for key in keys where key == "\"id\"" || key == "\"user\"" || random.below(8) != 0 {
        let value: String
        switch key {
        case "\"id\"": value = "\(index)"
        case "\"name\"": value = "\"n\(index)\""
        case "\"user\"":
          var inner = (0..<random.below(6)).map { "\"u\($0)\": \(SkipKernelTests.randomValue(&random))" }
          inner.insert("\"id\": \(index * 7)", at: random.below(inner.count + 1))
          value = "{" + inner.joined(separator: ",") + "}"
        default: value = SkipKernelTests.randomValue(&random)
        }
        members.append(key + (random.below(6) == 0 ? " : " : ":") + value)
      }
      objects.append("{" + members.joined(separator: random.below(8) == 0 ? ", " : ",") + "}")
    }
    var bytes = Array(("[" + objects.joined(separator: ",") + "]").utf8)
    if random.below(3) == 0 { bytes = SkipKernelTests.mutated(bytes, &random) }
    return bytes
  }

  @Test func theBytePathAgreesWithTheDOMPath() throws {
    var random = SeededRandom(seed: 0x5C1B_3E3B)
    var direct = 0
    var failed = 0
    for _ in 0..<3_000 {
      let bytes = text(&random)
      let type = try schema.modelType("Status").get()
      let (fast, slow, read) = bytes.withUnsafeBufferPointer { buffer in
        (
          schema.mapManyBytes("Status", buffer, pruned: true),
          schema.mapManyBytes("Status", buffer, pruned: false),
          DirectReader.many(buffer, type, in: schema)
        )
      }
      let shown = String(decoding: bytes, as: UTF8.self)
      // what the direct reader gives is the answer (the paths after it would hide a wrong nil)
      if let read {
        direct += 1
        if case .success(let models) = slow {
          #expect(read.map { Model($0) } == models.map { Model($0) }, "\(shown)")
        }
      }
      switch (fast, slow) {
      case (.success(let a), .success(let b)):
        #expect(a.map { Model($0) } == b.map { Model($0) }, "\(shown)")
      case (.failure(let a), .failure(let b)):
        failed += 1
        #expect(a == b, "\(shown)")
      case (.success, .failure(let error)):
        // a number outside jansson's range may be accepted by the bytes path
        // (Tests/fuzz/README.md, "The bytes path against the DOM path")
        let message = error.errors.first?.message ?? ""
        #expect(message.contains("too big") || message.contains("overflow"), "\(shown): \(message)")
      case (.failure(let error), .success):
        Issue.record("only the byte path fails, on \(shown): \(error)")
      }
    }
    // the direct reader did most of the work, and errors were met too
    #expect(direct > 1_000 && failed > 300, "direct \(direct), failed \(failed)")
  }
}
