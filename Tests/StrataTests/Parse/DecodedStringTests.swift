import Testing

@testable import Strata

/// Strings with escapes are decoded into the parser's scratch, which grows
/// past its first 256 bytes: escaped strings of many lengths (values, kept
/// keys, keys of a cluster's discriminator) give what the parsed value gives.
@Test func longEscapedStringsDecodeAsJanssonDecodesThem() throws {
  let schema = try Schema(
    parsing: #"""
      {"strata": 1, "models": {"S": {"unknownKeys": "keep", "properties": {
        "id": {"type": "int"}, "name": {"type": "string"}, "tags": {"type": "[string]"}}}}}
      """#)
  let pieces = [#"\u00e9"#, #"\ud83d\ude00"#, #"\n"#, #"\/"#, "a", "\u{6771}", #"\\"#, #"\""#]
  var random = SeededRandom(seed: 0xDEC0_DE5)
  for length in [1, 40, 120, 255, 256, 257, 600, 3_000] {
    for _ in 0..<4 {
      func text() -> String { (0..<length).map { _ in pieces[random.below(pieces.count)] }.joined() }
      let json =
        #"{"id": 1, "name": ""# + text() + #"", ""# + text() + #"": [""# + text() + #""], "tags": [""#
        + text() + #"", ""# + text() + #""]}"#
      let direct = try schema.map("S", parsing: json)
      let parsed = try schema.map("S", from: try JSON(parsing: json))
      #expect(try direct.json == parsed.json, "length \(length)")
    }
  }
}
