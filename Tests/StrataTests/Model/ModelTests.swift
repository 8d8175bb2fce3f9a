import Strata
import Testing

private let issueSchema: JSON = [
  "strata": 1,
  "version": 3,
  "models": [
    "Issue": [
      "primaryKey": "number",
      "keys": "snake_case",
      "properties": [
        "number": ["type": "int", "required": true],
        "title": ["type": "string?"],
        "state": ["type": "string", "enum": ["open": "OPEN", "closed": "CLOSED"]],
        "reporterLogin": ["type": "string?", "json": "user.login"],
        "labels": ["type": "[Label]", "default": []],
        "htmlURL": ["type": "url"],
        "extra": ["type": "json"],
      ],
    ],
    "Label": ["properties": ["name": ["type": "string", "required": true]]],
  ],
]

@Test func schemaReportsVersionAndModels() throws {
  let schema = try Schema(issueSchema)
  #expect(schema.version == 3)
  #expect(schema.modelNames == ["Issue", "Label"])
}

@Test func mapsAndKeepsTheThreeStates() throws {
  let schema = try Schema(issueSchema)
  let model = try schema.map(
    "Issue", from: ["number": 7, "title": nil, "user": ["login": "ann"], "state": "open"])
  #expect(model.name == "Issue")
  #expect(model["number"] == 7)
  #expect(model["title"] == .null)
  #expect(model.has("title"))
  #expect(model["htmlURL"] == nil)
  #expect(!model.has("htmlURL"))
  #expect(model["state"] == "OPEN")
  #expect(model["reporterLogin"] == "ann")
  #expect(model["labels"] == [])
  #expect(model["noSuchProperty"] == nil)
  #expect(
    try model.json
      == ["number": 7, "title": nil, "state": "open", "user": ["login": "ann"], "labels": []])
}

@Test func collectsEveryError() throws {
  let schema = try Schema(issueSchema)
  do {
    _ = try schema.map(
      "Issue", from: ["title": 5, "labels": [["name": 1], [:]], "html_url": "x y", "state": "new"])
    Issue.record("expected errors")
  } catch {
    let found = Set(error.errors.map { "\($0.path) \($0.code.rawValue) \($0.model).\($0.property)" })
    #expect(
      found == [
        "/number missing Issue.number", "/title type Issue.title", "/labels/0/name type Label.name",
        "/labels/1/name missing Label.name", "/html_url format Issue.htmlURL", "/state enum Issue.state",
      ])
  }
}

@Test func unknownModelIsAnArgumentError() throws {
  let schema = try Schema(issueSchema)
  #expect(throws: StrataError.self) { try schema.map("Nope", from: [:]) }
  do {
    _ = try schema.map("Nope", from: [:])
  } catch {
    #expect(error.code == .argument)
  }
}

@Test func equalityHashAndCopy() throws {
  let schema = try Schema(issueSchema)
  let a = try schema.map("Issue", from: ["number": 1, "title": "x"])
  let b = try schema.map("Issue", from: ["title": "x", "number": 1])
  let c = try schema.map("Issue", from: ["number": 1, "title": nil])
  let d = try schema.map("Issue", from: ["number": 1])
  #expect(a == b)
  #expect(a.hashValue == b.hashValue)
  #expect(a != c)
  #expect(c != d)  // null is not absent
  var copy = a
  copy = b
  #expect(copy == a)
  #expect(Set([a, b, c, d]).count == 3)
}

@Test func schemaErrorsNameTheirPlace() {
  do {
    _ = try Schema([
      "strata": 1,
      "models": ["A": ["properties": ["x": ["type": "Nope"], "y": ["type": "int", "json": "a..b"]]]],
    ])
    Issue.record("expected schema errors")
  } catch {
    #expect(Set(error.errors.map(\.path)) == ["/models/A/properties/x/type", "/models/A/properties/y/json"])
    #expect(error.errors.allSatisfy { $0.code == .schema && $0.model == "A" })
  }
}

@Test func deepInputIsAnErrorNotACrash() throws {
  let schema = try Schema(["strata": 1, "models": ["Node": ["properties": ["child": ["type": "Node?"]]]]])
  var input: JSON = [:]
  for _ in 0..<(maxDepth + 10) { input = ["child": input] }
  do {
    _ = try schema.map("Node", from: input)
    Issue.record("expected a depth error")
  } catch {
    #expect(error.errors.map(\.code) == [.depth])
  }
  var shallow: JSON = [:]
  for _ in 0..<(maxDepth - 2) { shallow = ["child": shallow] }
  let model = try schema.map("Node", from: shallow)
  #expect(model.dictionary == shallow)
}

@Test func syntaxErrorsNameLineAndColumn() throws {
  let schema = try Schema(issueSchema)
  do {
    _ = try schema.map("Issue", parsing: "{\"number\": 1,\n  oops}")
    Issue.record("expected a syntax error")
  } catch {
    #expect(error.code == .syntax)
    #expect(error.errors[0].message.contains("line 2"))
  }
}

@Test func jsonValuesRoundTripThroughText() throws {
  let value: JSON = ["a": [1, 2.5, "x", nil, true], "b": ["c": [:]]]
  #expect(try JSON(parsing: value.serialized()) == value)
  #expect(try JSON(parsing: "3") == 3)
  #expect(try JSON(parsing: "3.0") == 3.0)
  #expect(JSON.int(3) != JSON.double(3))
  #expect(value["a"]?[1] == 2.5)
}

@Test func mapManyNamesTheElement() throws {
  let schema = try Schema(issueSchema)
  let models = try schema.mapMany("Issue", from: [["number": 1], ["number": 2]])
  #expect(models.map { $0["number"] } == [1, 2])
  do {
    _ = try schema.mapMany("Issue", from: [["number": 1], ["number": "2"]])
    Issue.record("expected an error")
  } catch {
    #expect(error.errors.map(\.path) == ["/1/number"])
  }
}
