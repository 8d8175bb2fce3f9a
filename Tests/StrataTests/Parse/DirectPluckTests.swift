import Testing

@testable import Strata

/// Plucks through one object (`entities.hashtags[].text`,
/// `entities.user_mentions[].id` and `[].screen_name`) are read element by
/// element (`DirectPlan.PluckPlan`): random objects with the arrays null,
/// missing, empty, doubled, not arrays; elements null, not objects, without
/// the key, with it twice or escaped, of the wrong type; `entities` null,
/// doubled or not an object. The text read directly gives what mapping the
/// parsed value gives: the same model, or the same errors.
@Test func plucksReadDirectlyMapAsTheParsedValue() throws {
  let schema = try Schema(
    parsing: #"""
      {"strata": 1, "models": {"S": {"properties": {
        "id": {"type": "int", "required": true},
        "tags": {"type": "[string]", "json": "entities.hashtags[].text"},
        "mentionIDs": {"type": "[int?]", "json": "entities.user_mentions[].id"},
        "mentionNames": {"type": "[string]?", "json": "entities.user_mentions[].screen_name"},
        "first": {"type": "[string]", "json": "entities.urls[].url", "default": []}
      }}}}
      """#)
  let type = try schema.modelType("S").get()
  let plan = try #require(schema.parsePlans.directPlans(in: schema)[type.index])
  #expect(plan.entries.contains { if case .plucks = $0 { return true } else { return false } })
  let hashtags = [
    #"{"text": "a"}"#, #"{"text": "b", "indices": [0, 1]}"#, "null", #"{"indices": []}"#,
    #"{"text": 5}"#, #"{"te\u0078t": "c"}"#, #"{"text": "d", "text": "e"}"#, "7", #"{"text": null}"#,
  ]
  let mentions = [
    #"{"id": 1, "screen_name": "x"}"#, #"{"screen_name": "y", "id": 2}"#, #"{"id": null}"#,
    #"{"id": "3", "screen_name": "z"}"#, "null", #"{"screen_name": ["w"]}"#, "[]",
  ]
  let urls = [#"{"url": "u"}"#, #"{"url": "v", "expanded_url": "w"}"#, "{}"]
  var random = SeededRandom(seed: 0x9_1C4B)
  func list(_ pool: [String]) -> String {
    switch random.below(8) {
    case 0: return "null"
    case 1: return #""no""#
    default:
      return "[" + (0..<random.below(4)).map { _ in pool[random.below(pool.count)] }.joined(separator: ", ")
        + "]"
    }
  }
  var same = 0
  for _ in 0..<3_000 {
    var members: [String] = []
    if random.below(5) != 0 { members.append(#""hashtags": "# + list(hashtags)) }
    if random.below(5) != 0 { members.append(#""user_mentions": "# + list(mentions)) }
    if random.below(3) != 0 { members.append(#""urls": "# + list(urls)) }
    if random.below(6) == 0 { members.append(#""symbols": [{"text": "s"}]"#) }
    if random.below(8) == 0 { members.append(#""hashtags": "# + list(hashtags)) }
    members.shuffle(using: &random)
    var entities = "{" + members.joined(separator: ", ") + "}"
    switch random.below(12) {
    case 0: entities = "null"
    case 1: entities = "[1]"
    default: break
    }
    var outer = [#""id": 1"#, #""entities": "# + entities]
    if random.below(10) == 0 { outer.append(#""entities": {"hashtags": [{"text": "last"}]}"#) }
    if random.below(10) == 0 { outer.removeLast() }
    outer.shuffle(using: &random)
    let text = "{" + outer.joined(separator: ", ") + "}"
    let direct: Result<Model, StrataError> = Result { () throws(StrataError) in
      try schema.map("S", parsing: text)
    }
    let parsed: Result<Model, StrataError> = Result { () throws(StrataError) in
      try schema.map("S", from: try JSON(parsing: text))
    }
    switch (direct, parsed) {
    case (.success(let a), .success(let b)):
      #expect(try a.json == b.json, "\(text)")
      same += 1
    case (.failure(let a), .failure(let b)):
      #expect(a.errors.map(\.path) == b.errors.map(\.path), "\(text)")
      #expect(a.errors.map(\.message) == b.errors.map(\.message), "\(text)")
    default:
      Issue.record("\(text): \(direct) against \(parsed)")
    }
  }
  // most texts map, some fail
  #expect(same > 300 && same < 2_900)
  // a clean text is read on the direct path (it does not give up)
  let clean = Array(
    #"{"id": 1, "entities": {"hashtags": [{"text": "a", "x": 1}], "user_mentions": [{"id": 2, "screen_name": "n"}, {"screen_name": "m", "id": null}], "urls": []}}"#
      .utf8)
  let read = clean.withUnsafeBufferPointer { DirectReader.one($0, type, in: schema) }
  #expect(read != nil)
  // cut anywhere (inside an array, after a key's colon, ...), the text is a syntax error
  for length in 0..<clean.count {
    let cut = Array(clean[..<length])
    let direct = cut.withUnsafeBufferPointer { DirectReader.one($0, type, in: schema) }
    #expect(direct == nil, "cut at \(length)")
    let text = String(decoding: cut, as: UTF8.self)
    #expect(throws: StrataError.self) { try schema.map("S", parsing: text) }
  }
}
