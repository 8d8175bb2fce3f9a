import CJansson
import Strata
import Testing

// Plain integers, reals and strings read from bytes are kept without
// jansson (`Slot.integer`, `Slot.real`, and `Slot.text` in chunks of text
// the call's models share). They must be the same values as the DOM path's jansson leaves:
// equal, hashed alike, written alike, merged alike, and alive for as long
// as any model holding one.

private let keptSchema: JSON = [
  "strata": 1,
  "models": [
    "Item": [
      "properties": [
        "id": ["type": "int"],
        "name": ["type": "string"],
        "site": ["type": "url?"],
        "visits": ["type": "int", "merge": "max"],
        "note": ["type": "string?"],
        "score": ["type": "double"],
        "at": ["type": "date?"],
        "posted": ["type": "date", "format": "EEE MMM dd HH:mm:ss Z yyyy", "timezone": "+01:00"],
      ]
    ]
  ],
]

/// Strings that take every way through the string reader: empty, escaped,
/// multi-byte, a NUL, and longer than a chunk of text.
private let names: [String] = [
  "", "plain", "tab\there", "quote \" and \\ backslash", "caf\u{e9} \u{4e2d}\u{6587} \u{1F600}",
  "nul\u{0}inside", String(repeating: "long ", count: 5_000), "\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}",
]

private func itemText(_ index: Int, _ name: String) -> String {
  let visits = [0, -1, 1, Int64.max, Int64.min, 42][index % 6]
  let score = ["1.5", "-0.0", "1e308", "5", "2.5e-320", "-7.25E+2", "0.1"][index % 7]
  let at = [
    #""2020-01-02T03:04:05Z""#, #""2020-01-02T03:04:05.123+02:00""#, "null", #""1969-07-20T20:17:40-05:00""#,
    #""2020-02-29T00:00:00.5Z""#,
  ][index % 5]
  let posted = ["Thu Dec 03 18:00:00 +0000 2026", "Mon Jan 01 00:00:00 -0800 2024"][index % 2]
  return
    #"{"id": \#(index), "name": \#(JSON.string(name).serialized()), "site": "https://example.com/\#(index)", "visits": \#(visits), "note": null, "score": \#(score), "at": \#(at), "posted": "\#(posted)"}"#
}

@Test func keptLeavesAreTheValuesTheDOMPathGives() throws {
  let schema = try Schema(keptSchema)
  let texts = names.enumerated().map { itemText($0.offset, $0.element) }
  let array = "[" + texts.joined(separator: ",") + "]"
  let fromBytes = try schema.mapMany("Item", parsing: array)
  let fromDOM = try schema.mapMany("Item", from: try JSON(parsing: array))
  #expect(fromBytes.count == names.count)
  for (bytes, dom) in zip(fromBytes, fromDOM) {
    #expect(bytes == dom)
    #expect(dom == bytes)
    #expect(bytes.hashValue == dom.hashValue)
    #expect(try bytes.json == dom.json)
  }
  for (index, model) in fromBytes.enumerated() {
    #expect(model["name"] == .string(names[index]))
    #expect(model.timestamp("posted") == fromDOM[index].timestamp("posted"))
    guard case .text = model.object.slots[7] else {
      Issue.record("item \(index) keeps its date as \(model.object.slots[7])")
      continue
    }
    // kept in the slot and in text, not as jansson values
    guard case .integer = model.object.slots[0], case .text = model.object.slots[1] else {
      Issue.record("item \(index) keeps \(model.object.slots[0]) and \(model.object.slots[1])")
      continue
    }
    // a real given as an integer goes the mapper's way; others are kept
    if index % 7 != 3 {
      guard case .real = model.object.slots[5] else {
        Issue.record("item \(index) keeps \(model.object.slots[5])")
        continue
      }
    }
  }
}

@Test func aKeptStringOutlivesTheOtherModelsOfItsCall() throws {
  let schema = try Schema(keptSchema)
  // enough strings to fill several chunks of text
  func array(_ word: String) -> String {
    "["
      + (0..<2_000).map { itemText($0, "\(word) \($0) " + String(repeating: "x", count: $0 % 50)) }
      .joined(separator: ",") + "]"
  }
  var models = try schema.mapMany("Item", parsing: array("name"))
  let kept = [models[0], models[999], models[1_999]]
  models.removeAll()
  // reuse what was freed
  _ = try schema.mapMany("Item", parsing: array("nome"))
  let tail = String(repeating: "x", count: 49)
  #expect(
    kept.map { $0["name"] } == [
      .string("name 0 "), .string("name 999 " + tail), .string("name 1999 " + tail),
    ])
  let copy = kept[1]
  #expect(copy == kept[1])
}

@Test func keptIntegersMergeAsTheDOMPathsDo() throws {
  let schema = try Schema(keptSchema)
  let low = itemText(1, "a")  // visits -1
  let high = itemText(3, "b")  // visits Int64.max
  for (first, second) in [(low, high), (high, low)] {
    var fromBytes = try schema.map("Item", parsing: first)
    try fromBytes.merge(try schema.map("Item", parsing: second))
    var fromDOM = try schema.map("Item", from: try JSON(parsing: first))
    try fromDOM.merge(try schema.map("Item", from: try JSON(parsing: second)))
    var mixed = try schema.map("Item", parsing: first)
    try mixed.merge(try schema.map("Item", from: try JSON(parsing: second)))
    #expect(fromBytes["visits"] == .int(Int64.max))
    #expect(fromBytes == fromDOM)
    #expect(mixed == fromDOM)
  }
}

@Test func anIntegerBeyondSixtyFourBitsIsStillRefused() throws {
  let schema = try Schema(keptSchema)
  for text in [
    #"{"id": 9223372036854775808, "name": "a", "visits": 1}"#,
    #"{"id": -9223372036854775809, "name": "a", "visits": 1}"#,
    #"{"id": 1.5, "name": "a", "visits": 1}"#,
    #"{"id": 01, "name": "a", "visits": 1}"#,
    #"{"id": 1, "name": "a", "visits": 1, "score": 1e400}"#,
    #"{"id": 1, "name": "a", "visits": 1, "score": 1.}"#,
    #"{"id": 1, "name": "a", "visits": 1, "score": 1, "posted": "2020-01-02T03:04:05Z"}"#,
    #"{"id": 1, "name": "a", "visits": 1, "score": 1, "at": "2020-13-02T03:04:05Z", "posted": "Mon Jan 01 00:00:00 -0800 2024"}"#,
  ] {
    #expect(throws: StrataError.self) { try schema.map("Item", parsing: text) }
  }
  let edge = try schema.map("Item", parsing: #"{"id": -9223372036854775808, "name": "a", "visits": -0}"#)
  #expect(edge["id"] == .int(Int64.min))
  #expect(edge["visits"] == .int(0))
}

@Test func anEnumReadFromBytesIsTheDOMPathsValue() throws {
  let schema = try Schema([
    "strata": 1,
    "models": [
      "Ticket": [
        "properties": [
          "state": ["type": "string", "enum": ["open": "OPEN", "closed": "CLOSED", "caf\u{e9}": "CAFE"]],
          "kind": ["type": "string?", "enum": ["a": "A", "b": "B"], "enumDefault": "A"],
          // a model value of another type, through the list form
          "level": ["type": "string", "enum": [["low", "1"], ["high", "2"]]],
        ]
      ]
    ],
  ])
  for text in [
    #"{"state": "open", "kind": "b", "level": "high"}"#,
    #"{"state": "op\u0065n", "kind": null, "level": "low"}"#,  // an escape
    #"{"state": "caf\u00e9", "kind": "z", "level": "low"}"#,  // the default
    #"{"state": "cafe\u0301", "kind": "a", "level": "low"}"#,  // é as two scalars: the same Swift string
    #"{"state": "shut", "kind": "a", "level": "low"}"#,  // outside, no default: an enum error
    #"{"state": 1, "kind": "a", "level": "low"}"#,
    #"{"state": null, "kind": "a", "level": "low"}"#,
    #"{"state": "open", "kind": 5, "level": "low"}"#,
  ] {
    let dom = try JSON(parsing: text)
    let bytes = Result<Model, StrataError> { () throws(StrataError) in try schema.map("Ticket", parsing: text)
    }
    let mapped = Result<Model, StrataError> { () throws(StrataError) in try schema.map("Ticket", from: dom) }
    switch (bytes, mapped) {
    case (.success(let x), .success(let y)):
      #expect(x == y, "\(text)")
      #expect(x.hashValue == y.hashValue, "\(text)")
      #expect(try x.json == y.json, "\(text)")
    case (.failure(let x), .failure(let y)):
      #expect(x.errors == y.errors, "\(text): \(x) against \(y)")
    default:
      Issue.record("\(text): from bytes \(bytes), from the DOM \(mapped)")
    }
  }
  #expect(try schema.map("Ticket", parsing: #"{"state": "op\u0065n", "level": "high"}"#)["state"] == "OPEN")
}
