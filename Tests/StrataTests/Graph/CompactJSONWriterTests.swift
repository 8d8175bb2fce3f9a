import CJansson
import Glibc
import Strata
import StrataGraph
import Testing

// A row's JSON column is written by CompactJSONWriter instead of json_dumps.
// The invariant: for any value, it writes exactly json_dumps's compact text
// (members in order, 17-digit reals), or gives up (nil) and leaves the value
// to json_dumps; it gives up only on strings that are not ASCII.

/// A random jansson value (a new reference), `depth` levels at most.
private func randomValue(_ random: inout SeededRandom, depth: Int) -> JPtr {
  let pieces: [String] = [
    "a", "url", "+1", "\"", "\\", "\n", "\t", "\u{1}", "\u{1f}", "\u{7f}", "/", " ", "0", "\u{8}", "\u{c}",
    "\r",
  ]
  func text() -> String {
    (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }
      .joined()
  }
  switch Int.random(in: 0..<(depth > 0 ? 10 : 7), using: &random) {
  case 0: return json_null()
  case 1: return Bool.random(using: &random) ? json_true() : json_false()
  case 2:
    let choices: [json_int_t] = [
      0, 1, -1, 9, 10, 99, 100, 12_345, -987_654_321, .max, .min, .max - 1, .min + 1,
    ]
    return json_integer(
      Bool.random(using: &random)
        ? choices.randomElement(using: &random) ?? 0 : json_int_t.random(in: .min ... .max, using: &random))
  case 3:
    let reals = [0.0, -0.0, 1.5, 1e300, -2.5e-300, 0.1, 1.0 / 3.0, 123_456_789.0, 1e16, 5e-324]
    return json_real(reals.randomElement(using: &random) ?? 0)
  case 4, 5, 6:
    let made = text()
    return made.withCString { json_stringn($0, made.utf8.count) } ?? json_null()
  case 7, 8:
    guard let object = json_object() else { return json_null() }
    for _ in 0..<Int.random(in: 0...5, using: &random) {
      let key = text()
      _ = key.withCString {
        json_object_setn_new(object, $0, key.utf8.count, randomValue(&random, depth: depth - 1))
      }
    }
    return object
  default:
    guard let array = json_array() else { return json_null() }
    for _ in 0..<Int.random(in: 0...5, using: &random) {
      json_array_append_new(array, randomValue(&random, depth: depth - 1))
    }
    return array
  }
}

/// json_dumps's compact text of `value`, members in order.
private func janssonText(_ value: JPtr) -> String? {
  let flags = Int(JSON_COMPACT | JSON_ENCODE_ANY) | JSONText.JSON_REAL_PRECISION_17
  guard let dumped = json_dumps(value, flags) else { return nil }
  defer { free(dumped) }
  return String(cString: dumped)
}

@Test(arguments: 0..<4)
func theCompactWriterWritesWhatJanssonWrites(seed: UInt64) {
  var random = SeededRandom(seed: seed)
  for round in 0..<2_000 {
    let value = randomValue(&random, depth: 4)
    defer { json_decref(value) }
    let written = CompactJSONWriter.text(value)
    #expect(written != nil, "round \(round): ASCII only, yet given up")
    #expect(written == janssonText(value), "round \(round)")
  }
}

@Test func theCompactWriterLeavesTextThatIsNotASCIIToJansson() throws {
  for text in ["caf\u{e9}", "\u{65e5}\u{672c}", "a\u{1f600}"] {
    let value = try #require(json_pack_string(text))
    defer { json_decref(value) }
    #expect(CompactJSONWriter.text(value) == nil)
    let object = try #require(json_object())
    defer { json_decref(object) }
    json_object_set_new(object, "k", json_integer(1))
    _ = text.withCString { json_object_set_new(object, $0, json_null()) }
    #expect(CompactJSONWriter.text(object) == nil)
    // the canonical text (the writer, else jansson) is still jansson's
    #expect(try CanonicalJSON.text(object, sortKeys: false) == janssonText(object))
  }
}

/// A jansson string of `text` (a new reference).
private func json_pack_string(_ text: String) -> JPtr? {
  text.withCString { json_stringn($0, text.utf8.count) }
}
