import Testing

@testable import Strata

/// Skipped numbers are checked as jansson checks them (`skipNumber` crosses
/// the common integers itself and hands the rest to `number`): random
/// tokens of digits, signs, points and exponents, skipped as a member, an
/// element and a nested member, against whether jansson accepts the text
/// (numbers outside its range left out: the bytes path may accept those).
@Test func skippedNumbersAreCheckedAsJanssonChecksThem() throws {
  let schema = try Schema(
    parsing: #"{"strata": 1, "models": {"M": {"properties": {"id": {"type": "int", "required": true}}}}}"#)
  let alphabet = Array("0123456789012345678901.eE+-".utf8)
  var random = SeededRandom(seed: 0x4E55_4D42)
  var accepted = 0
  for round in 0..<6_000 {
    var bytes: [UInt8] = []
    for _ in 0..<(1 + random.below(12)) { bytes.append(alphabet[random.below(alphabet.count)]) }
    if round % 3 == 0 { bytes = Array(String(random.below(1 << 40)).utf8) }  // plain integers too
    let after = [" ", "", ",\"z\": 2", "]", "x"][random.below(5)]
    let token = String(decoding: bytes, as: UTF8.self)
    let texts = [
      #"{"id": 1, "x": "# + token + "}", #"{"x": "# + token + #", "id": 1}"#,
      #"{"id": 1, "x": ["# + token + ", " + token + "]}", #"{"id": 1, "x": {"y": "# + token + after + "}}",
    ]
    for text in texts {
      let jansson = JSONText.parse(text)
      let janssonAccepts: Bool
      switch jansson {
      case .success(let value):
        JValue.release(value)
        janssonAccepts = true
      case .failure(let error):
        // a number outside jansson's range may be accepted by the bytes path
        // (Tests/fuzz/README.md, "The bytes path against the DOM path")
        let message = error.errors.first?.message ?? ""
        if message.contains("overflow") || message.contains("too big") { continue }
        janssonAccepts = false
      }
      let mapped: Result<Model, StrataError> = Result { () throws(StrataError) in
        try schema.map("M", parsing: text)
      }
      switch mapped {
      case .success:
        #expect(janssonAccepts, "\(text): mapped, jansson refuses it")
        accepted += 1
      case .failure(let error):
        #expect(!janssonAccepts, "\(text): \(error)")
        if !janssonAccepts { #expect(error.errors.first?.code == .syntax, "\(text)") }
      }
    }
  }
  #expect(accepted > 2_000)
}
