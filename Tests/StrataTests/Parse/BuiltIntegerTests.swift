import Testing

@testable import Strata

/// Integers read from bytes (eight digits at a time, `PrunedParser.decimal`)
/// give what the parsed value gives, up to the edges of 64 bits, and past
/// them as before (a wanted one a `type` error, a skipped one taken), as a
/// wanted property and skipped inside a value.
@Test func builtIntegersAtTheEdgesOf64BitsMapAsTheParsedValue() throws {
  let schema = try Schema(
    parsing: #"{"strata": 1, "models": {"M": {"properties": {"n": {"type": "int", "required": true}}}}}"#)
  var tokens = [
    "0", "-0", "7", "-7", "12345678", "123456789", "99999999", "100000000", "-12345678901234567",
    "999999999999999999", "1000000000000000000", "-999999999999999999", "9223372036854775806",
    "9223372036854775807", "9223372036854775808", "9999999999999999999", "10000000000000000000",
    "-9223372036854775807", "-9223372036854775808", "-9223372036854775809", "18446744073709551616",
    "123456789012345678901234567890",
  ]
  var random = SeededRandom(seed: 0x1_9D16)
  for _ in 0..<2_000 {
    let digits = 1 + random.below(20)
    var token = random.below(2) == 0 ? "-" : ""
    token += String(1 + random.below(9))
    for _ in 1..<digits { token += String(random.below(10)) }
    tokens.append(token)
  }
  for token in tokens {
    let inRange = Int64(token) != nil
    for (index, text) in [#"{"n": "# + token + "}", #"{"x": {"y": ["# + token + #"]}, "n": 1}"#].enumerated()
    {
      let direct = Result { () throws(StrataError) in try schema.map("M", parsing: text).json }
      guard inRange else {
        // outside jansson's range, which refuses the text: the bytes path
        // reports a wanted one as a `type` error at its place and takes a
        // skipped one (Tests/fuzz/README.md, "The bytes path against the DOM path")
        switch direct {
        case .success: #expect(index == 1, "\(text)")
        case .failure(let error):
          #expect(
            index == 0 && error.errors.first?.code == .type && error.errors.first?.path == "/n", "\(text)")
        }
        continue
      }
      let parsed = Result { () throws(StrataError) in try schema.map("M", from: try JSON(parsing: text)).json
      }
      switch (direct, parsed) {
      case (.success(let a), .success(let b)): #expect(a == b, "\(text)")
      default: Issue.record("\(text): bytes \(direct), parsed \(parsed)")
      }
    }
  }
}
