/// Finds where in a JSON text that jansson refused the text broke, as the
/// RFC 6901 JSON Pointer of the value being read there (docs/parsing.md,
/// "Syntax errors").
///
/// The rule, one pointer per break:
///
/// - A break inside a value (a bad literal, number or string, a value that
///   is too large or nested too deep) or on the first byte where a value
///   must start (a stray `,` or `}`) points at that value:
///   `{"a": [1, 2,, 3]}` -> `/a/2`, `{"a": {"x": tru}}` -> `/a/x`.
/// - A break where a key, a `:`, a `,` or a closing bracket was expected
///   (a bad key, a missing comma, trailing garbage inside a container)
///   points at the innermost container: `{"a": [1 2]}` -> `/a`,
///   `{"a": {"b": 1,}}` -> `/a`.
/// - A text that ends early points at the innermost container still open
///   (`{"a": [1, 2` -> `/a`); an unterminated string is a value being read
///   (`{"a": "abc` -> `/a`).
/// - Empty text, and anything after a complete top-level value, is `""`.
///
/// The scanner is iterative and tolerant: it checks every index, keeps one
/// small frame per open container (object keys as byte ranges, decoded only
/// for the answer), reads the text at most up to the break, and never traps
/// on any input.
package enum SyntaxLocator {
  /// The byte offset the pointer is located at, from jansson's error:
  /// `position` is how many bytes jansson read; at the end of the input
  /// (`endOfInput`) the break is the end of the text; for invalid UTF-8
  /// (`badByte`) it is the byte at `position`, which jansson did not read;
  /// otherwise it is the last byte read, which belongs to the offending token.
  package static func breakOffset(position: Int, count: Int, endOfInput: Bool, badByte: Bool) -> Int {
    if endOfInput { return count }
    if badByte { return max(0, min(position, count)) }
    return max(0, min(position - 1, count))
  }

  /// The 0-based offset of the first byte of the last character among the
  /// first `position` bytes (the character jansson's line and column name),
  /// or 0 when there is none.
  package static func characterStart(_ bytes: UnsafeBufferPointer<UInt8>, endingAt position: Int) -> Int {
    var start = min(position, bytes.count) - 1
    guard start > 0 else { return 0 }
    // Step back over at most three UTF-8 continuation bytes (10xxxxxx).
    var steps = 0
    while steps < 3, start > 0, bytes[start] & 0xC0 == 0x80 {
      start -= 1
      steps += 1
    }
    return start
  }

  /// The JSON Pointer of the value being read when the text broke at
  /// `offset`: a byte of the offending token, or `bytes.count` (or more)
  /// for a text that ended early. See the type's documentation for the rule.
  package static func pointer(_ bytes: UnsafeBufferPointer<UInt8>, breakingAt offset: Int) -> String {
    var scanner = Scanner(bytes)
    let frames = scanner.run(until: offset)
    return JSONPointer.make(frames.map { slot(of: $0, in: bytes) })
  }

  /// The JSON Pointer of the value being read when the text broke at
  /// `offset` (as `pointer(_:breakingAt:)`).
  package static func pointer(_ bytes: [UInt8], breakingAt offset: Int) -> String {
    bytes.withUnsafeBufferPointer { pointer($0, breakingAt: offset) }
  }

  /// The reference token of a frame: its element index, or its decoded key.
  private static func slot(of frame: Frame, in bytes: UnsafeBufferPointer<UInt8>) -> String {
    frame.isObject ? decodeKey(bytes, frame.keyStart, frame.keyEnd) : String(frame.index)
  }

  /// Decodes the JSON string token at `start..<end` (with its quotes),
  /// tolerantly: a bad escape or invalid UTF-8 becomes U+FFFD.
  static func decodeKey(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
    var out: [UInt8] = []
    var index = start + 1
    let stop = min(end, bytes.count)
    /// A high surrogate waiting for its low half.
    var pendingHigh: UInt32? = nil
    while index < stop {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") { break }
      guard byte == UInt8(ascii: "\\"), index + 1 < stop else {
        if pendingHigh != nil { append(0xFFFD, to: &out) }
        pendingHigh = nil
        out.append(byte)
        index += 1
        continue
      }
      let escaped = bytes[index + 1]
      index += 2
      var scalar: UInt32 = 0xFFFD
      if let byte = JSONEscape.simple(escaped) {
        scalar = UInt32(byte)
      } else if escaped == UInt8(ascii: "u"), let base = bytes.baseAddress,
        let unit = JSONEscape.hex4(base, index, stop)
      {
        index += 4
        scalar = unit
      }
      if let high = pendingHigh {
        pendingHigh = nil
        if JSONEscape.isLow(scalar) {
          append(JSONEscape.pair(high, scalar), to: &out)
          continue
        }
        append(0xFFFD, to: &out)
      }
      if JSONEscape.isHigh(scalar) {
        pendingHigh = scalar
      } else {
        append(scalar, to: &out)
      }
    }
    if pendingHigh != nil { append(0xFFFD, to: &out) }
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends the UTF-8 of a scalar value (U+FFFD for one that is not a scalar).
  private static func append(_ value: UInt32, to out: inout [UInt8]) {
    let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
    UTF8.encode(scalar) { out.append($0) }
  }

  /// One open container.
  struct Frame {
    /// An object (else an array).
    var isObject: Bool
    /// For an array: the index of the element being read.
    var index = 0
    /// For an object: the byte range of the key being read, as its JSON
    /// string token with the quotes.
    var keyStart = 0
    /// The end of that range.
    var keyEnd = 0
  }

  /// What the scanner expects next.
  enum Expect {
    /// A value (the top level, an array element after `,`, a member's value after `:`).
    case value
    /// A value or `]`: just after `[`.
    case firstValue
    /// A key or `}`: just after `{`.
    case firstKey
    /// A key: after `,` in an object.
    case key
    /// The `:` after a key.
    case colon
    /// `,` or the closing bracket, after a value inside a container.
    case after
    /// The end of the text, after the top-level value.
    case done
  }

  /// The kinds of token the scanner tells apart.
  enum Token {
    /// `{`, `}`, `[`, `]`, `,` or `:` (the byte).
    case punctuation(UInt8)
    /// A string, closed by its quote (its content is not checked).
    case string
    /// A number of JSON's grammar, or `true`, `false`, `null`.
    case scalar
    /// Anything else: an unterminated string, a bad number or word, a stray byte.
    case bad
  }

  /// The tolerant scanner: a cursor, what it expects, and the open containers.
  struct Scanner {
    /// The text.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    var cursor = 0
    /// What comes next.
    var expect = Expect.value
    /// The open containers, outermost first.
    var frames: [Frame] = []

    /// A scanner at the start of `bytes`.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
      self.bytes = bytes
    }

    /// Reads tokens until the break (the token holding byte `offset`, the
    /// first token that cannot come where it stands, or the end of the
    /// text) and returns the frames whose slots make the pointer.
    mutating func run(until offset: Int) -> ArraySlice<Frame> {
      while true {
        skipWhitespace()
        guard cursor < bytes.count else { return containerFrames() }
        let start = cursor
        let token = next()
        // The token holds the break (or the break lay in the space before it).
        if cursor > offset { return breakFrames() }
        guard accept(token, start) else { return breakFrames() }
      }
    }

    /// The frames of a break at a token: the value being read when a value
    /// was expected, else the innermost container.
    func breakFrames() -> ArraySlice<Frame> {
      switch expect {
      case .value, .firstValue: return frames[...]
      case .firstKey, .key, .colon, .after, .done: return containerFrames()
      }
    }

    /// The frames naming the innermost open container ("" at the top).
    func containerFrames() -> ArraySlice<Frame> {
      frames.dropLast()
    }

    /// Moves past spaces, tabs, line feeds and carriage returns.
    mutating func skipWhitespace() {
      while cursor < bytes.count {
        switch bytes[cursor] {
        case 0x20, 0x09, 0x0A, 0x0D: cursor += 1
        default: return
        }
      }
    }

    /// Reads one token at the cursor (there is at least one byte) and moves past it.
    mutating func next() -> Token {
      let byte = bytes[cursor]
      switch byte {
      case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","),
        UInt8(ascii: ":"):
        cursor += 1
        return .punctuation(byte)
      case UInt8(ascii: "\""): return string()
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): return word()
      default:
        cursor += 1
        return .bad
      }
    }

    /// A string token: up to the closing quote, a backslash escaping the next byte.
    mutating func string() -> Token {
      cursor += 1
      while cursor < bytes.count {
        switch bytes[cursor] {
        case UInt8(ascii: "\""):
          cursor += 1
          return .string
        case UInt8(ascii: "\\"): cursor = min(cursor + 2, bytes.count)
        default: cursor += 1
        }
      }
      return .bad
    }

    /// A number token as jansson reads one: `-`? (`0` | [1-9][0-9]*)
    /// (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?; it ends where the grammar does.
    mutating func number() -> Token {
      if byte(at: cursor) == UInt8(ascii: "-") { cursor += 1 }
      if byte(at: cursor) == UInt8(ascii: "0") {
        cursor += 1
      } else if !digits() {
        return .bad
      }
      if byte(at: cursor) == UInt8(ascii: ".") {
        cursor += 1
        guard digits() else { return .bad }
      }
      if byte(at: cursor) == UInt8(ascii: "e") || byte(at: cursor) == UInt8(ascii: "E") {
        cursor += 1
        if byte(at: cursor) == UInt8(ascii: "+") || byte(at: cursor) == UInt8(ascii: "-") { cursor += 1 }
        guard digits() else { return .bad }
      }
      return .scalar
    }

    /// Moves past decimal digits; false when there were none.
    mutating func digits() -> Bool {
      let start = cursor
      while let byte = byte(at: cursor), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { cursor += 1 }
      return cursor > start
    }

    /// A run of ASCII letters, as jansson reads one: `true`, `false`, `null`, or bad.
    mutating func word() -> Token {
      let start = cursor
      while let byte = byte(at: cursor),
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
          || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
      {
        cursor += 1
      }
      let word = bytes[start..<cursor]
      let known =
        word.elementsEqual("true".utf8) || word.elementsEqual("false".utf8) || word.elementsEqual("null".utf8)
      return known ? .scalar : .bad
    }

    /// The byte at `index`, or nil past the end.
    func byte(at index: Int) -> UInt8? {
      index >= 0 && index < bytes.count ? bytes[index] : nil
    }

    /// Takes a token that started at `start` where it stands; false when it
    /// cannot come here (the break).
    mutating func accept(_ token: Token, _ start: Int) -> Bool {
      switch (expect, token) {
      case (.value, .punctuation(UInt8(ascii: "["))), (.firstValue, .punctuation(UInt8(ascii: "["))):
        frames.append(Frame(isObject: false))
        expect = .firstValue
      case (.value, .punctuation(UInt8(ascii: "{"))), (.firstValue, .punctuation(UInt8(ascii: "{"))):
        frames.append(Frame(isObject: true))
        expect = .firstKey
      case (.value, .string), (.value, .scalar), (.firstValue, .string), (.firstValue, .scalar):
        expect = frames.isEmpty ? .done : .after
      case (.firstValue, .punctuation(UInt8(ascii: "]"))), (.firstKey, .punctuation(UInt8(ascii: "}"))):
        close()
      case (.firstKey, .string), (.key, .string):
        guard let last = frames.indices.last else { return false }
        frames[last].keyStart = start
        frames[last].keyEnd = cursor
        expect = .colon
      case (.colon, .punctuation(UInt8(ascii: ":"))):
        expect = .value
      case (.after, .punctuation(UInt8(ascii: ","))):
        guard let last = frames.indices.last else { return false }
        if frames[last].isObject {
          expect = .key
        } else {
          frames[last].index += 1
          expect = .value
        }
      case (.after, .punctuation(let closer)):
        guard let last = frames.last, closer == (last.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
          return false
        }
        close()
      default:
        return false
      }
      return true
    }

    /// Closes the innermost container: the value it was is complete.
    mutating func close() {
      _ = frames.popLast()
      expect = frames.isEmpty ? .done : .after
    }
  }
}
