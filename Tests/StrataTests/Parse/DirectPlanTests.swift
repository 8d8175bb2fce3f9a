import Testing

@testable import Strata

/// Which keys `DirectReader` reads member by member, and that it reads a
/// clean text without giving up (conformance `direct.json` checks the answers
/// against the DOM path; these check the fast path was the one that gave them).
struct DirectPlanTests {
  let schema: Schema

  init() throws {
    schema = try Schema(
      parsing: """
        {"strata": 1, "models": {
          "Tweet": {"properties": {
            "id": {"type": "int", "required": true},
            "userID": {"type": "int", "json": "user.id"},
            "userName": {"type": "string", "json": "user.screen_name"},
            "color": {"type": "string", "json": "user.profile.color"},
            "owner": {"type": "json", "json": "owner"},
            "ownerLogin": {"type": "string", "json": "owner.login"},
            "tags": {"type": "[string]", "json": ["meta.a", "meta.b"]},
            "metaC": {"type": "string", "json": "meta.c"}
          }}}}
        """)
  }

  /// The entry of `key` in the plan of `model`.
  private func entry(_ model: String, _ key: String) throws -> DirectPlan.Entry? {
    let type = try schema.modelType(model).get()
    let plan = try #require(schema.parsePlans.directPlans(in: schema)[type.index])
    guard let position = plan.want.keys.firstIndex(of: Array(key.utf8)) else { return nil }
    return plan.entries[position]
  }

  @Test func keyPathsAloneThroughAnObjectAreReadMemberByMember() throws {
    guard case .descend(let user) = try entry("Tweet", "user") else {
      Issue.record("user: expected a descend entry")
      return
    }
    #expect(user.properties.count == 3)
    let profile = user.want.keys.firstIndex(of: Array("profile".utf8)).map { user.entries[$0] }
    guard case .descend(let inner) = profile else {
      Issue.record("user.profile: expected a descend entry")
      return
    }
    #expect(inner.properties.count == 1)
    #expect(inner.prefix.count == 2)
  }

  @Test func anObjectReadWholeOrByAListOfKeyPathsIsCollected() throws {
    guard case .collect = try entry("Tweet", "owner") else {
      Issue.record("owner: read whole and through, expected collect")
      return
    }
    guard case .collect = try entry("Tweet", "meta") else {
      Issue.record("meta: a list of key paths goes through it, expected collect")
      return
    }
  }

  @Test func aCleanTextIsReadWithoutGivingUp() throws {
    let type = try schema.modelType("Tweet").get()
    var text = #"{"id": 1, "user": {"x": [1], "id": 2, "profile": {"color": "red"}}, "z": null}"#
    let object = text.withUTF8 { DirectReader.one($0, type, in: schema) }
    let model = Model(try #require(object))
    #expect(model.dictionary["userID"] == .int(2))
    #expect(model.dictionary["color"] == .string("red"))
  }

  @Test func aKeyPathThroughAStringGivesUp() throws {
    let type = try schema.modelType("Tweet").get()
    var text = #"{"id": 1, "user": {"profile": "none"}}"#
    #expect(text.withUTF8 { DirectReader.one($0, type, in: schema) } == nil)
  }
}

/// Class clusters read directly: the subtype is read from the object first,
/// then the object straight into the chosen model.
struct DirectClusterTests {
  let schema: Schema

  init() throws {
    schema = try Schema(
      parsing: """
        {"strata": 1, "models": {
          "Shape": {"subtypes": {"key": "kind", "map": {"circle": "Circle", "square": "Square", "poly": "Poly"}},
                    "properties": {"name": {"type": "string"}}},
          "Circle": {"extends": "Shape", "properties": {"radius": {"type": "double"}}},
          "Square": {"extends": "Shape", "unknownKeys": "reject", "properties": {"side": {"type": "int"}}},
          "Poly": {"extends": "Shape", "subtypes": {"rules": [{"has": "points", "model": "Points"}]},
                   "properties": {}},
          "Points": {"extends": "Poly", "properties": {"points": {"type": "[[int]]"}}},
          "Canvas": {"properties": {"main": {"type": "Shape"}, "shapes": {"type": "[Shape]"}}}}}
        """)
  }

  private func direct(_ model: String, _ text: String) throws -> Model? {
    let type = try schema.modelType(model).get()
    var text = text
    return text.withUTF8 { DirectReader.one($0, type, in: schema) }.map { Model($0) }
  }

  @Test func aClusterIsReadIntoTheSubtypeItsKeyChooses() throws {
    let model = try #require(
      try direct("Shape", #"{"name": "c", "x": {"kind": 1}, "kind": "circle", "radius": 2}"#))
    #expect(model.name == "Circle")
    #expect(model.dictionary["radius"] == .double(2))
    let canvas = try #require(
      try direct(
        "Canvas",
        #"{"main": {"kind": "poly", "points": [[1]]}, "shapes": [{"kind": "circle"}, {"kind": "poly", "points": []}]}"#
      ))
    #expect(canvas.dictionary["main"]?["$type"] == .string("Points"))
    #expect(canvas.dictionary["shapes"]?[1]?["$type"] == .string("Points"))
  }

  @Test func aClusterThatChoosesNothingGivesUp() throws {
    #expect(try direct("Shape", #"{"kind": "hexagon"}"#) == nil)
    #expect(try direct("Shape", #"{"kind": "circle", "kind": 5}"#) == nil)
    #expect(try direct("Shape", #"{"kind": "poly"}"#) == nil)
    // Square rejects unknown keys: it has no plan, and is built as a jansson object and mapped
    #expect(try direct("Shape", #"{"kind": "square", "side": 1}"#)?.name == "Square")
  }
}

/// Models that keep or reject unknown keys read directly: kept keys in the
/// order jansson's object gives them, a rejected one makes the reader give up.
struct DirectUnknownKeysTests {
  let schema: Schema

  init() throws {
    schema = try Schema(
      parsing: """
        {"strata": 1, "models": {
          "Kept": {"unknownKeys": "keep", "properties": {"id": {"type": "int"}}},
          "Strict": {"unknownKeys": "reject", "properties": {"id": {"type": "int"}}}}}
        """)
  }

  private func direct(_ model: String, _ text: String) throws -> Model? {
    let type = try schema.modelType(model).get()
    #expect(schema.parsePlans.directPlans(in: schema)[type.index] != nil)
    var text = text
    return text.withUTF8 { DirectReader.one($0, type, in: schema) }.map { Model($0) }
  }

  @Test func keptKeysComeOutInTheDOMPathsOrder() throws {
    let text = #"{"x": 1, "id": 2, "y": {"a": [1]}, "x": "again"}"#
    let model = try #require(try direct("Kept", text))
    let dom = try schema.map("Kept", from: try JSON(parsing: text))
    let ours = try model.json.serialized()
    #expect(ours == (try dom.json.serialized()))
    #expect(ours == #"{"id":2,"x":"again","y":{"a":[1]}}"#)
  }

  @Test func anUnknownKeyOfARejectingModelGivesUp() throws {
    #expect(try direct("Strict", #"{"id": 1}"#) != nil)
    #expect(try direct("Strict", #"{"id": 1, "other": 2}"#) == nil)
  }
}

/// Responses read directly: the keys down to the root and the metadata are
/// followed member by member (conformance `responses.json` checks the answers).
struct DirectResponseTests {
  let schema: Schema

  init() throws {
    schema = try Schema(
      parsing: """
        {"strata": 1, "models": {
          "Item": {"root": "data.items", "meta": {"path": "data.paging", "model": "Paging"},
                   "properties": {"id": {"type": "int", "required": true}}},
          "Paging": {"properties": {"next": {"type": "string?"}}}}}
        """)
  }

  private func direct(_ text: String) throws -> ResponseObjects? {
    let type = try schema.modelType("Item").get()
    let meta = try schema.modelType("Paging").get()
    var text = text
    return text.withUTF8 {
      DirectReader.response(
        $0, type, root: [Key("data"), Key("items")], meta: ([Key("data"), Key("paging")], meta), in: schema)
    }
  }

  @Test func recordsAndMetadataAreReadOnTheWayDown() throws {
    let found = try #require(
      try direct(#"{"x": [1], "data": {"paging": {"next": "p2"}, "items": [{"id": 1}, {"id": 2, "y": 0}]}}"#))
    #expect(found.records.count == 2)
    #expect(found.metadata.map { Model($0).dictionary["next"] } == .string("p2"))
  }

  @Test func theLastDuplicateWinsAndAMissingRootGivesUp() throws {
    let found = try #require(try direct(#"{"data": {"items": [{"id": 1}]}, "data": {"items": null}}"#))
    #expect(found.records.isEmpty)
    #expect(found.metadata == nil)
    #expect(try direct(#"{"data": {"items": [{"id": 1}]}, "data": {}}"#) == nil)
    #expect(try direct(#"{"data": "none"}"#) == nil)
  }
}
