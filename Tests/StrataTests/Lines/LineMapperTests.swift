import Strata
import Testing

/// `LineMapper` over a byte source reads into one 256 KiB buffer, the
/// unfinished line moved to its front after each read: lines shorter than,
/// as long as, and longer than the buffer, one past the limit, and a last
/// line without its newline, read in pieces of several sizes.
@Test func linesLongerThanTheReadBuffer() throws {
  let schema = try Schema(
    parsing: #"{"strata": 1, "models": {"S": {"properties": {"s": {"type": "string"}}}}}"#)
  let sizes = [1, 300_000, 2, 262_100, 262_144, 700_000, 3, 140_000, 5]
  var bytes: [UInt8] = []
  for (index, size) in sizes.enumerated() {
    if index > 0 { bytes.append(0x0A) }
    bytes += Array(#"{"s": ""#.utf8) + [UInt8](repeating: UInt8(ascii: "a") + UInt8(index), count: size)
    bytes += Array(#""}"#.utf8)
  }
  for piece in [4096, 100_000, 1 << 20] {
    var offset = 0
    let mapper = try schema.mapLines("S", maxLineLength: 600_000) { buffer in
      let count = min(piece, buffer.count, bytes.count - offset)
      bytes.withUnsafeBytes { source in
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + count]))
      }
      offset += count
      return count
    }
    var seen: [Int] = []
    var failed: [Int] = []
    for result in mapper {
      switch result {
      case .success(let model):
        if case .string(let text)? = model["s"] { seen.append(text.utf8.count) }
      case .failure(let error):
        failed.append(error.line)
        #expect(error.errors.first?.code == .syntax)
      }
    }
    #expect(seen == sizes.enumerated().filter { $0.offset != 5 }.map(\.element), "pieces of \(piece)")
    #expect(failed == [6], "pieces of \(piece)")
  }
}

/// The lines of a text share their key memos (`KeyMemo`): random lines whose
/// keys come in the same order, in another order, missing, doubled, escaped
/// (`"\u0069d"` is `id`), with other spacing, unknown, of the wrong type or
/// broken, each mapped with the others as JSON lines and alone; both give
/// the same model or the same errors.
@Test func linesSharingKeyMemosMapAsEachAlone() throws {
  let schema = try Schema(
    parsing: #"""
      {"strata": 1, "models": {
        "P": {"properties": {"id": {"type": "int", "required": true}, "name": {"type": "string"},
              "at": {"type": "string", "json": "meta.at"}, "tags": {"type": "[string]"},
              "child": {"type": "P?"}}}}}
      """#)
  let members = [
    #""id": 1"#, #""id":2"#, #""\u0069d": 3"#, #""id" :  4"#, #""id": "x""#, #""name": "a""#, #""name":"b""#,
    #""n\u0061me": "c""#, #""name": 5"#, #""meta": {"at": "t", "x": 1}"#, #""meta": {"x": [1], "at": "u"}"#,
    #""meta": null"#, #""tags": ["a", "b"]"#, #""tags": []"#, #""other": {"id": 9}"#, #""ids": 1"#,
    #""child": {"id": 7, "name": "k"}"#, #""child": {"name": "k", "id": 8}"#, #""id": 1e999"#,
    #""name": "\ud83d""#,
  ]
  var random = SeededRandom(seed: 0x11E5_3E30)
  for _ in 0..<60 {
    var lines: [String] = []
    let usual = (0..<5).map { _ in members[random.below(members.count)] }
    for _ in 0..<40 {
      var picked = usual
      switch random.below(4) {
      case 0: picked.shuffle(using: &random)
      case 1: picked.remove(at: random.below(picked.count))
      case 2: picked.insert(members[random.below(members.count)], at: random.below(picked.count + 1))
      default: break
      }
      lines.append("{" + picked.joined(separator: ", ") + "}")
    }
    var index = 0
    for result in try schema.mapLines("P", parsing: lines.joined(separator: "\n")) {
      let line = lines[index]
      index += 1
      let alone: Result<Model, StrataError> = Result { () throws(StrataError) in
        try schema.map("P", parsing: line)
      }
      switch (result, alone) {
      case (.success(let model), .success(let expected)):
        #expect(try model.json == expected.json, "\(line)")
      case (.failure(let error), .failure(let expected)):
        #expect(error.errors.map(\.path) == expected.errors.map(\.path), "\(line)")
        // a line's syntax errors give the column only (docs/parsing.md)
        let messages = expected.errors.map { $0.message.replacing("at line 1, column", with: "at column") }
        #expect(error.errors.map(\.message) == messages, "\(line)")
      default:
        Issue.record("\(line): \(result) against \(alone)")
      }
    }
    #expect(index == lines.count)
  }
}
