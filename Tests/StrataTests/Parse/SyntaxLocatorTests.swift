import CJansson
import Glibc
import Testing

@testable import Strata

/// The `syntax` error of `bytes` as JSONText.parse gives it (jansson decides
/// where the text broke, SyntaxLocator names the value), or nil if it parses.
private func syntaxError(_ bytes: [UInt8]) -> ErrorDetail? {
  switch bytes.withUnsafeBufferPointer({ JSONText.parse($0) }) {
  case .success(let value):
    JValue.release(value)
    return nil
  case .failure(let error):
    return error.errors.first
  }
}

/// The path of the `syntax` error of `text`, or "(parsed)".
private func breakPath(_ text: String) -> String {
  syntaxError(Array(text.utf8))?.path ?? "(parsed)"
}

/// The value at `pointer` in `value`, or nil when the pointer leads nowhere.
private func resolve(_ pointer: String, in value: JSON) -> JSON? {
  if pointer.isEmpty { return value }
  guard let tokens = JSONPointer.parse(pointer) else { return nil }
  var current = value
  for token in tokens {
    switch current {
    case .object(let object):
      guard let next = object[token] else { return nil }
      current = next
    case .array(let elements):
      guard let index = Int(token), index >= 0, index < elements.count else { return nil }
      current = elements[index]
    default: return nil
    }
  }
  return current
}

/// Syntax errors point at the value being read when the text broke (docs/parsing.md).
struct SyntaxLocatorTests {
  /// The examples of the issue and of docs/parsing.md.
  @Test func examplesOfTheRule() {
    #expect(breakPath(#"{"id": 1, "unread": [1, 2,, 3]}"#) == "/unread/2")
    #expect(breakPath(#"[{"a": 1}, {"user": {"x": tru}}]"#) == "/1/user/x")
    #expect(breakPath(#"{"name": "a""#) == "")
    #expect(breakPath(#"{"a": [1, 2"#) == "/a")
    #expect(breakPath("") == "")
    #expect(breakPath(" \n\t ") == "")
    #expect(breakPath(#"{"name": "a"} x"#) == "")
    #expect(breakPath("{} {}") == "")
  }

  /// A break inside a value, or where a value must start, names that value.
  @Test func breaksInsideAValue() {
    let cases: [(String, String)] = [
      (#"{"score": NaN}"#, "/score"),
      ("{\"name\": \"a\tb\"}", "/name"),
      ("[1,]", "/1"),
      ("[,1]", "/0"),
      (#"{"a":}"#, "/a"),
      (#"{"a": 99999999999999999999}"#, "/a"),
      (#"{"a": 99999999999999999999"#, "/a"),
      (#"{"a": 1e400}"#, "/a"),
      (#"{"a": 01}"#, "/a"),
      (#"{"a": 1.}"#, "/a"),
      (#"{"a": -}"#, "/a"),
      (#"{"a": -1e"#, "/a"),
      (#"{"a": "x\q"}"#, "/a"),
      (#"{"a": "\u12"}"#, "/a"),
      (#"{"a": "\ud800"}"#, "/a"),
      (#"{"a": "abc"#, "/a"),
      (#"{"a": "abc\"#, "/a"),
      (#"{"a": tru"#, "/a"),
      (#"{"a": é}"#, "/a"),
      (#"{"a": {"b": [true, fals]}}"#, "/a/b/1"),
      (#"[[], [[]], [[], [1, 2, [3, x]]]]"#, "/2/1/2/1"),
      ("nul", ""),
    ]
    for (text, path) in cases {
      #expect(breakPath(text) == path, "\(text)")
    }
  }

  /// A break where a key, `:`, `,` or a closing bracket was expected names
  /// the container; a text that ends early, the innermost container open.
  @Test func breaksBetweenValues() {
    let cases: [(String, String)] = [
      (#"{"name": "a",}"#, ""),
      ("{'name': 'a'}", ""),
      (#"{name: "a"}"#, ""),
      ("[1 2]", ""),
      ("[1-2]", ""),
      (#"{"a" 1}"#, ""),
      (#"{"a":1 "b":2}"#, ""),
      (#"{"a": [1}"#, "/a"),
      (#"{"a": {]"#, "/a"),
      (#"{"a": {"b": 1,}}"#, "/a"),
      (#"{"a": [1, 2]]}"#, ""),
      (#"{"a": 1}}"#, ""),
      ("[1]]", ""),
      (#"{"statuses": ["#, "/statuses"),
      ("[1, 2,", ""),
      (#"{"a":"#, ""),
      (#"{"a""#, ""),
      ("{", ""),
      ("[", ""),
      (#"{"a": {"b": [1, {"c": 2}"#, "/a/b"),
      (#"{"a": {"b": {}"#, "/a"),
      (#"{"\u0000": 1}"#, ""),
      (#"{"k": [{"\u0000": 1}]}"#, "/k/0"),
      (#"{"a": {"b": 1, "c\q": 2}}"#, "/a"),
      (#"{"a": {"b": 1, "c"#, "/a"),
    ]
    for (text, path) in cases {
      #expect(breakPath(text) == path, "\(text)")
    }
  }

  /// Keys are decoded (escapes, surrogate pairs) and escaped as RFC 6901 tokens.
  @Test func keysInThePointer() {
    #expect(breakPath(#"{"a/b": {"c~d": [tru]}}"#) == "/a~1b/c~0d/0")
    #expect(breakPath(#"{"caf\u00e9": {"x\/y": nul}}"#) == "/café/x~1y")
    #expect(breakPath(#"{"\ud83d\ude00": [1,,]}"#) == "/😀/1")
    #expect(breakPath(#"{"q\"\\\n\t": [}"#) == "/q\"\\\n\t/0")
    #expect(breakPath(#"{"": {"": x}}"#) == "//")
    #expect(breakPath(#"{"a": 1, "a": {"b": x}}"#) == "/a/b")
  }

  /// Raw bytes jansson refuses: invalid UTF-8, NUL, a byte-order mark.
  @Test func invalidBytes() {
    let cases: [([UInt8], String)] = [
      (Array(#"{"a": "x"#.utf8) + [0xFF] + Array(#"y"}"#.utf8), "/a"),
      (Array(#"{"k": {"a"#.utf8) + [0xFF] + Array(#"": 1}}"#.utf8), "/k"),
      ([UInt8(ascii: "[")] + [0xFF] + [UInt8(ascii: "]")], "/0"),
      (Array("[1,".utf8) + [0xFF, UInt8(ascii: "]")], "/1"),
      (Array("[1, 2]".utf8) + [0xFF], ""),
      (Array(#"{"a": ["x", ""#.utf8) + [0xC3] + Array(#""]}"#.utf8), "/a/1"),
      (Array("[1, ".utf8) + [0] + [UInt8(ascii: "]")], "/1"),
      (Array(#"{"a": "x"#.utf8) + [0] + Array(#""}"#.utf8), "/a"),
      ([0xEF, 0xBB, 0xBF] + Array("{}".utf8), ""),
      ([0xFF], ""),
    ]
    for (bytes, path) in cases {
      #expect(syntaxError(bytes)?.path == path, "\(bytes)")
    }
  }

  /// The message names line, column and the byte offset of the character
  /// at that line and column (the last one jansson read).
  @Test func messageNamesLineColumnAndByte() {
    #expect(
      syntaxError(Array(#"{"id": 1, "unread": [1, 2,, 3]}"#.utf8))?.message
        == "invalid JSON at line 1, column 27 (byte 26): unexpected token near ','")
    let multiline = "{\n  \"a\": [\n    1,\n    x\n  ]\n}"
    let error = syntaxError(Array(multiline.utf8))
    #expect(error?.path == "/a/1")
    #expect(error?.message == "invalid JSON at line 4, column 5 (byte 22): invalid token near 'x'")
    // A multi-byte character: its first byte.
    #expect(
      syntaxError(Array(#"{"a": é}"#.utf8))?.message.hasPrefix("invalid JSON at line 1, column 7 (byte 6):")
        == true)
    #expect(
      syntaxError([])?.message
        == "invalid JSON at line 1, column 0 (byte 0): unexpected token near end of file")
    #expect(syntaxError(Array(#"{"a": [1, 2"#.utf8))?.message.contains("column 11 (byte 10)") == true)
    #expect(syntaxError(Array(#"{"a": [1, 2"#.utf8))?.code == .syntax)
  }

  /// jansson stops at 2048 levels: the break is the value one level deeper.
  @Test func janssonsDepthLimit() {
    let error = syntaxError(Array(repeating: UInt8(ascii: "["), count: 3000))
    #expect(error?.path == String(repeating: "/0", count: 2048))
  }

  /// The locator alone, on 100,000 levels of arrays and objects: no
  /// recursion, no trap, the pointer of the innermost open container.
  @Test func deepNestingIsIterative() {
    let depth = 100_000
    let arrays = [UInt8](repeating: UInt8(ascii: "["), count: depth)
    #expect(
      SyntaxLocator.pointer(arrays, breakingAt: arrays.count) == String(repeating: "/0", count: depth - 1))
    #expect(
      SyntaxLocator.pointer(arrays + [UInt8(ascii: ",")], breakingAt: depth)
        == String(repeating: "/0", count: depth))
    var objects: [UInt8] = []
    for _ in 0..<depth { objects += Array(#"{"k/":"#.utf8) }
    objects += Array("tru".utf8)
    #expect(
      SyntaxLocator.pointer(objects, breakingAt: objects.count - 1) == String(repeating: "/k~1", count: depth)
    )
    // Through jansson: it refuses at 2048 levels.
    #expect(syntaxError(objects)?.path == String(repeating: "/k~1", count: 2048))
  }

  /// Any bytes and any offset: no trap, and the answer is "" or a pointer.
  @Test func garbageNeverTraps() {
    var random = SeededRandom(seed: 14)
    let alphabet = Array(#"{}[],:"\/u0123456789abcdefEe+-.tnrl ü"#.utf8) + [0, 0x0A, 0xFF, 0xC3, 0xBF]
    for round in 0..<10_000 {
      let length = random.below(64)
      var bytes: [UInt8] = []
      for _ in 0..<length {
        bytes.append(
          round % 3 == 0 ? UInt8(truncatingIfNeeded: random.next()) : alphabet[random.below(alphabet.count)])
      }
      for offset in [-5, -1, 0, length / 2, length - 1, length, length + 7, Int.max, Int.min] {
        let pointer = SyntaxLocator.pointer(bytes, breakingAt: offset)
        #expect(pointer.isEmpty || pointer.hasPrefix("/"))
      }
      if let error = syntaxError(bytes) {
        #expect(error.code == .syntax)
        #expect(error.path.isEmpty || error.path.hasPrefix("/"))
      }
      _ = bytes.withUnsafeBufferPointer { SyntaxLocator.characterStart($0, endingAt: random.below(80) - 8) }
      _ = bytes.withUnsafeBufferPointer { SyntaxLocator.decodeKey($0, 0, bytes.count) }
    }
  }

  /// Every prefix of a valid document that jansson refuses breaks at a
  /// value the whole document has.
  @Test func truncatedDocumentsPointIntoTheDocument() throws {
    let text = #"""
      {"statuses": [{"id": 1, "user": {"name": "ann", "tags": ["a", "b\u00e9"]}},
       {"id": 2.5e3, "user": null, "ok": [true, false, {"x/y": -0.5}]}], "meta": {"~": "z"}}
      """#
    let document = try JSON(parsing: text)
    let bytes = Array(text.utf8)
    for length in 0..<bytes.count {
      guard let error = syntaxError(Array(bytes[0..<length])) else { continue }
      #expect(resolve(error.path, in: document) != nil, "prefix \(length): \(error.path)")
    }
  }

  /// Broken key strings decode tolerantly.
  @Test func brokenKeysDecode() {
    let cases: [(String, String)] = [
      (#""ab""#, "ab"),
      (#""a\u00e9\/\"""#, "aé/\""),
      (#""\ud83d\ude00""#, "😀"),
      (#""\ud800x""#, "\u{FFFD}x"),
      (#""\ud800\ud800\udc00""#, "\u{FFFD}\u{10000}"),
      (#""\udc00""#, "\u{FFFD}"),
      (#""\u12"#, "\u{FFFD}12"),
      (#""\q""#, "\u{FFFD}"),
      (#""abc\"#, "abc\\"),
      ("\"", ""),
    ]
    for (token, key) in cases {
      let bytes = Array(token.utf8)
      let decoded = bytes.withUnsafeBufferPointer { SyntaxLocator.decodeKey($0, 0, bytes.count) }
      #expect(decoded == key, "\(token)")
    }
  }

  /// A schema file that is not JSON: the pointer into the schema document,
  /// the file's name, line, column and byte in the message.
  @Test func schemaFileSyntaxError() throws {
    var template = Array("/tmp/strata-syntax-XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
      guard let base = buffer.baseAddress else { return -1 }
      return mkstemp(base)
    }
    try #require(descriptor >= 0)
    let path = String(
      decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    defer { unlink(path) }
    let text = "{\"strata\": 1,\n \"models\": {\"M\": {\"properties\": {\"a/b\": {\"type\": }}}}}"
    let written = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    try #require(written == text.utf8.count)
    do {
      _ = try Schema(contentsOfFile: path)
      Issue.record("expected a syntax error")
    } catch {
      #expect(error.code == .syntax)
      #expect(error.errors.first?.path == "/models/M/properties/a~1b/type")
      #expect(
        error.errors.first?.message
          == "invalid JSON in '\(path)' at line 2, column 50 (byte 63): unexpected token near '}'")
    }
  }

  /// jansson's position becomes the offset the locator reads.
  @Test func breakOffsets() {
    #expect(SyntaxLocator.breakOffset(position: 5, count: 9, endOfInput: false, badByte: false) == 4)
    #expect(SyntaxLocator.breakOffset(position: 5, count: 9, endOfInput: false, badByte: true) == 5)
    #expect(SyntaxLocator.breakOffset(position: 5, count: 9, endOfInput: true, badByte: false) == 9)
    #expect(SyntaxLocator.breakOffset(position: 0, count: 0, endOfInput: false, badByte: false) == 0)
    #expect(SyntaxLocator.breakOffset(position: 40, count: 9, endOfInput: false, badByte: true) == 9)
    let bytes = Array("aé€😀".utf8)
    let starts = (0...bytes.count + 2).map { position in
      bytes.withUnsafeBufferPointer { SyntaxLocator.characterStart($0, endingAt: position) }
    }
    #expect(starts == [0, 0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 6, 6])
  }
}
