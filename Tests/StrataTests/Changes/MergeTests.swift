import Strata
import Testing

private let mergeSchema: JSON = [
  "strata": 1,
  "models": [
    "Issue": [
      "primaryKey": "number",
      "properties": [
        "number": ["type": "int", "required": true],
        "title": ["type": "string?"],
        "body": ["type": "string", "merge": "keep"],
        "user": ["type": "User?", "merge": "merge"],
        "labels": ["type": "[Label]", "merge": "union"],
        "events": ["type": "[string]", "merge": "append"],
        "comments": ["type": "int", "merge": "max"],
        "firstSeen": ["type": "date", "merge": "min"],
        "score": ["type": "int", "merge": "sum"],
        "note": ["type": "string", "json": false],
        "milestone": ["type": "string"],
      ],
    ],
    "User": ["properties": ["login": ["type": "string"], "name": ["type": "string?"]]],
    "Label": ["primaryKey": "id", "properties": ["id": ["type": "int"], "name": ["type": "string"]]],
    "PullRequest": ["extends": "Issue", "properties": ["merged": ["type": "bool"]]],
  ],
]

private func schema() throws -> Schema {
  try Schema(
    mergeSchema,
    mergers: [
      "sum": ValueMerger { current, incoming in
        guard case .int(let b) = incoming else { throw StrataError([]) }
        if case .int(let a)? = current { return .int(a + b) }
        return incoming
      }
    ])
}

@Test func mergePoliciesCombineValues() throws {
  let schema = try schema()
  var a = try schema.map(
    "Issue",
    from: [
      "number": 1, "title": "a", "body": "original", "user": ["login": "ann", "name": "Ann"],
      "labels": [["id": 1, "name": "bug"], ["id": 2, "name": "ui"]], "events": ["opened"], "comments": 5,
      "firstSeen": "2020-01-02T00:00:00Z", "score": 2,
    ])
  let b = try schema.map(
    "Issue",
    from: [
      "number": 1, "title": nil, "body": "edited", "user": ["name": "Ann B."],
      "labels": [["id": 2, "name": "UI"], ["id": 3, "name": "new"]], "events": ["closed"], "comments": 3,
      "firstSeen": "2019-01-01T00:00:00Z", "score": 3,
    ])
  try a.merge(b)
  #expect(
    a.dictionary
      == [
        "number": 1, "title": nil, "body": "original", "user": ["login": "ann", "name": "Ann B."],
        "labels": [["id": 1, "name": "bug"], ["id": 2, "name": "UI"], ["id": 3, "name": "new"]],
        "events": ["opened", "closed"], "comments": 5, "firstSeen": "2019-01-01T00:00:00Z", "score": 5,
      ])
}

@Test func absentNeverWipes() throws {
  let schema = try schema()
  var a = try schema.map("Issue", from: ["number": 1, "title": "kept", "comments": 2])
  try a.merge(try schema.map("Issue", from: ["number": 1]))
  #expect(a["title"] == "kept")
  #expect(a["comments"] == 2)
}

@Test func mergeIsCopyOnWrite() throws {
  let schema = try schema()
  let original = try schema.map("Issue", from: ["number": 1, "title": "a"])
  var changed = original
  try changed.merge(try schema.map("Issue", from: ["number": 1, "title": "b"]))
  #expect(original["title"] == "a")
  #expect(changed["title"] == "b")
}

@Test func mergeAlongExtends() throws {
  let schema = try schema()
  var pull = try schema.map("PullRequest", from: ["number": 7, "merged": true, "title": "x"])
  try pull.merge(try schema.map("Issue", from: ["number": 7, "title": "y"]))
  #expect(pull["title"] == "y")
  #expect(pull["merged"] == true)
  var issue = try schema.map("Issue", from: ["number": 7])
  try issue.merge(pull)
  #expect(issue.name == "Issue")
  #expect(issue["title"] == "y")
  do {
    var user = try schema.map("User", from: ["login": "x"])
    try user.merge(issue)
    Issue.record("expected an error")
  } catch {
    #expect(error.code == .argument)
  }
}

@Test func updateIsAMergePatch() throws {
  let schema = try schema()
  var a = try schema.map(
    "Issue",
    from: ["number": 1, "title": "t", "user": ["login": "ann", "name": "Ann"], "comments": 4, "note": nil])
  try a.update(from: ["title": nil, "user": ["name": nil], "comments": 9, "events": ["x"]])
  #expect(a["title"] == .null)
  #expect(a["user"] == ["login": "ann", "name": nil])
  #expect(a["comments"] == 9)
  #expect(a["events"] == ["x"])
  #expect(a["number"] == 1)  // required keys may be missing from an update
  // null clears a property without null to absent; max keeps the value that is there
  try a.update(from: ["milestone": "v1"])
  try a.update(from: ["milestone": nil, "comments": nil])
  #expect(!a.has("milestone"))
  #expect(a["comments"] == 9)
  // a required property cannot be cleared
  #expect(throws: StrataError.self) { try a.update(from: ["number": nil]) }
}

@Test func updateIsAllOrNothing() throws {
  let schema = try schema()
  var a = try schema.map("Issue", from: ["number": 1, "title": "t", "comments": 4])
  let before = a
  do {
    try a.update(from: ["title": "new", "comments": "many", "labels": [["id": "x"]]])
    Issue.record("expected errors")
  } catch {
    #expect(Set(error.errors.map(\.path)) == ["/comments", "/labels/0/id"])
  }
  #expect(a == before)
}

@Test func customMergerRefusalLeavesModelUnchanged() throws {
  let schema = try Schema(
    mergeSchema,
    mergers: ["sum": ValueMerger { _, _ in throw StrataError([]) }])
  var a = try schema.map("Issue", from: ["number": 1, "title": "t", "score": 1])
  let before = a
  do {
    try a.merge(try schema.map("Issue", from: ["number": 1, "title": "u", "score": 2]))
    Issue.record("expected a refusal")
  } catch {
    #expect(error.errors.first?.code == .validation)
    #expect(error.errors.first?.property == "score")
  }
  #expect(a == before)
}

@Test func mergePolicyMustFitTheType() {
  do {
    _ = try Schema([
      "strata": 1,
      "models": [
        "A": [
          "properties": ["x": ["type": "int", "merge": "union"], "y": ["type": "int", "merge": "nope"]]
        ]
      ],
    ])
    Issue.record("expected schema errors")
  } catch {
    #expect(
      Set(error.errors.map(\.path)) == ["/models/A/properties/x/merge", "/models/A/properties/y/merge"])
  }
}
