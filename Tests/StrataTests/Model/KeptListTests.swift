import CJansson
import Strata
import StrataGraph
import Testing

// A `[string]`, `[int]`, `[double]`, `[bool]` or `[url]` without rules, at
// its key or plucked (`entities.mentions[].name`), is kept element by
// element from bytes (`Slot.list`), with no jansson array. It must be the
// same value as the DOM path's jansson array: equal both ways, hashed
// alike, written alike, merged alike, queried alike; and whatever the fast
// way does not take must give the DOM path's value or error.

private let listSchema: JSON = [
  "strata": 1,
  "models": [
    "Post": [
      "primaryKey": "id",
      "properties": [
        "id": ["type": "int"],
        "tags": ["type": "[string]", "merge": "append"],
        "ids": ["type": "[int]"],
        "scores": ["type": "[double]"],
        "flags": ["type": "[bool]"],
        "links": ["type": "[url]"],
        "maybe": ["type": "[string?]"],
        "extra": ["type": "[int]?"],
        "names": ["type": "[string]", "json": "entities.mentions[].name"],
        "mentionIDs": ["type": "[int]", "json": "entities.mentions[].id"],
        "others": ["type": "[string?]", "json": "entities.others[].name"],
      ],
    ]
  ],
]

/// The slot indexes of the properties kept as lists in the clean posts.
private let listIndexes = [1, 2, 3, 4, 5, 6, 8, 9, 10]

/// A post whose lists the fast way takes.
private func cleanPost(_ index: Int) -> String {
  let tags = [
    "[]", #"["a"]"#, #"["caf\u00e9", "\u4e2d\u6587 \ud83d\ude00", "tab\t", "", "nul\u0000"]"#,
    "[" + (0..<300).map { #""tag \#($0)""# }.joined(separator: ", ") + "]",
  ][index % 4]
  let ids = ["[]", "[1, -2, 9223372036854775807, -9223372036854775808]", "[0]"][index % 3]
  let scores = ["[1.5, -0.0, 1e308, 2.5e-320]", "[]", "[ 0.1 ,-7.25E+2 ]"][index % 3]
  let flags = ["[true, false]", "[]", "[false]"][index % 3]
  let links = [#"["https://example.com/a", "mailto:x@example.com"]"#, "[]"][index % 2]
  let maybe = [#"[null, "x", null]"#, "[]", "[null]"][index % 3]
  let extra = index % 2 == 0 ? "[3, 4]" : "[]"
  let mentions = [
    #"[]"#, #"[{"id": 1, "name": "ann"}, {"name": "bob", "id": 2, "skipped": [1, {"a": 2}]}]"#,
    #"[{"id": 3, "name": "c\u00e9", "name": "dup"}]"#,
  ][index % 3]
  let others = [#"[null, {"name": "x"}, {}]"#, "[]", #"[{"name": null}]"#][index % 3]
  return
    #"{"id": \#(index), "tags": \#(tags), "ids": \#(ids), "scores": \#(scores), "flags": \#(flags), "links": \#(links), "maybe": \#(maybe), "extra": \#(extra), "entities": {"mentions": \#(mentions), "others": \#(others)}}"#
}

@Test func keptListsAreTheArraysTheDOMPathGives() throws {
  let schema = try Schema(listSchema)
  let texts = (0..<12).map(cleanPost)
  let array = "[" + texts.joined(separator: ",") + "]"
  let fromBytes = try schema.mapMany("Post", parsing: array)
  let fromDOM = try schema.mapMany("Post", from: try JSON(parsing: array))
  #expect(fromBytes.count == texts.count)
  for (index, (bytes, dom)) in zip(fromBytes, fromDOM).enumerated() {
    #expect(bytes == dom, "post \(index)")
    #expect(dom == bytes, "post \(index)")
    #expect(bytes.hashValue == dom.hashValue, "post \(index)")
    #expect(try bytes.json == dom.json, "post \(index)")
    #expect(bytes.dictionary == dom.dictionary, "post \(index)")
    // the representation: kept element by element, not as jansson arrays
    for slot in listIndexes {
      guard case .list = bytes.object.slots[slot] else {
        Issue.record("post \(index) keeps property \(slot) as \(bytes.object.slots[slot])")
        continue
      }
    }
  }
  #expect(fromBytes[2]["tags"] == ["caf\u{e9}", "\u{4e2d}\u{6587} \u{1F600}", "tab\t", "", "nul\u{0}"])
  #expect(fromBytes[1]["names"] == ["ann", "bob"])
  #expect(fromBytes[2]["names"] == ["dup"])
  #expect(fromBytes[0]["others"] == [.null, "x", .null])
}

/// Posts with a list the fast way gives up on: each must give what the DOM
/// path gives, a value (read the ordinary way) or the same error.
private let awkwardPosts: [String] = [
  #"{"id": 1, "scores": [1, 2.5]}"#,  // an integer for a double
  #"{"id": 1, "ids": [1, 2.5]}"#,
  #"{"id": 1, "ids": [1, "2"]}"#,
  #"{"id": 1, "ids": [1, 99999999999999999999]}"#,
  #"{"id": 1, "ids": [1, null]}"#,  // null where elements may not be null
  #"{"id": 1, "tags": ["a", 1]}"#,
  #"{"id": 1, "tags": "a"}"#,
  #"{"id": 1, "tags": null}"#,
  #"{"id": 1, "extra": null}"#,
  #"{"id": 1, "links": ["https://example.com", "relative/path"]}"#,
  #"{"id": 1, "flags": [true, 1]}"#,
  #"{"id": 1, "scores": [1e400]}"#,
  #"{"id": 1, "tags": [["nested"]]}"#,
  #"{"id": 1, "entities": {"mentions": [{"id": 1}]}}"#,  // no name, not optional
  #"{"id": 1, "entities": {"mentions": [null]}}"#,
  #"{"id": 1, "entities": {"mentions": [{"id": "1", "name": "a"}]}}"#,
  #"{"id": 1, "entities": {"mentions": [1]}}"#,
  #"{"id": 1, "entities": {"mentions": null}}"#,
  #"{"id": 1, "entities": {"others": [{"name": 5}]}}"#,
  #"{"id": 1, "ids": [1, 2}"#,  // not JSON
  #"{"id": 1, "ids": [1 2]}"#,
  #"{"id": 1, "entities": {"mentions": [{"id": 1, "name": "a"} {"id": 2}]}}"#,
  #"{"id": 1, "tags": ["a\x"]}"#,
]

@Test func whatTheFastWayDoesNotTakeGoesTheDOMPathsWay() throws {
  let schema = try Schema(listSchema)
  for text in awkwardPosts {
    let bytes = Result<Model, StrataError> { () throws(StrataError) in try schema.map("Post", parsing: text) }
    guard let dom = try? JSON(parsing: text) else {
      #expect(throws: StrataError.self, "\(text)") { try bytes.get() }
      continue
    }
    let mapped = Result<Model, StrataError> { () throws(StrataError) in try schema.map("Post", from: dom) }
    switch (bytes, mapped) {
    case (.success(let x), .success(let y)):
      #expect(x == y, "\(text)")
      #expect(x.hashValue == y.hashValue, "\(text)")
    case (.failure(let x), .failure(let y)):
      #expect(x.errors == y.errors, "\(text): \(x) against \(y)")
    default:
      Issue.record("\(text): from bytes \(bytes), from the DOM \(mapped)")
    }
  }
}

@Test func keptListsMergeAsTheDOMPathsDo() throws {
  let schema = try Schema(listSchema)
  let first = #"{"id": 1, "tags": ["a", "b"], "ids": [1]}"#
  let second = #"{"id": 1, "tags": ["c"], "ids": [2, 3]}"#
  func parsed(_ text: String) throws -> Model { try schema.map("Post", parsing: text) }
  func built(_ text: String) throws -> Model { try schema.map("Post", from: try JSON(parsing: text)) }
  var want = try built(first)
  try want.merge(try built(second))
  #expect(want["tags"] == ["a", "b", "c"])
  #expect(want["ids"] == [2, 3])
  for (mine, theirs) in [(parsed, parsed), (parsed, built), (built, parsed)] {
    var merged = try mine(first)
    let incoming = try theirs(second)
    try merged.merge(incoming)
    #expect(merged == want)
    #expect(merged.hashValue == want.hashValue)
    // what was merged from is unchanged
    #expect(incoming["tags"] == ["c"])
  }
  // a jansson array joined into a copy: the model merged from keeps its own
  let dom = try built(first)
  var onto = dom
  try onto.merge(try parsed(second))
  #expect(dom["tags"] == ["a", "b"])
}

@Test func aQueryReadsAKeptListAsItReadsAnArray() throws {
  let schema = try Schema(listSchema)
  let texts = (0..<12).map(cleanPost)
  for parsing in [true, false] {
    let context = try Context(schema: schema, path: nil)
    defer { context.close() }
    let array = "[" + texts.joined(separator: ",") + "]"
    if parsing {
      _ = try context.import("Post", parsing: array)
    } else {
      _ = try context.import("Post", try JSON(parsing: array))
    }
    let keys = { (condition: JSON) throws -> [JSON] in
      try context.query("Post", where: condition).map(\.key)
    }
    #expect(try keys(["tags": "a"]) == [1, 5, 9])
    #expect(try keys(["tags": ["prefix": "tag 29"]]) == [3, 7, 11])
    #expect(try keys(["ids": ["<": -1]]) == [1, 4, 7, 10])
    #expect(try keys(["names": "dup"]) == [2, 5, 8, 11])
    #expect(try keys(["scores": [">": 100.0]]) == [0, 3, 6, 9])
    #expect(try keys(["flags": true]) == [0, 3, 6, 9])
  }
}
