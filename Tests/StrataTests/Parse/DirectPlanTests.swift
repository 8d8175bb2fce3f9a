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
