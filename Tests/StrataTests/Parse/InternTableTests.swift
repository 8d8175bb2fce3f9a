import CJansson
import Testing

@testable import Strata

/// `PrunedParser.forEachElement(interning:)`: an object of a keyed model
/// met again with the same bytes (under the same plan) is the value built
/// the first time, shared; anything else is built as without interning.
struct InternTableTests {
  let schema: Schema

  init() throws {
    schema = try Schema(
      parsing: """
        {"strata": 1, "models": {
          "Post": {"primaryKey": "id", "properties": {
            "id": {"type": "int"}, "author": {"type": "User?"}, "editor": {"type": "User?"},
            "extra": {"type": "Note?"}}},
          "User": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "login": {"type": "string"}}},
          "Note": {"properties": {"id": {"type": "int"}}}}}
        """)
  }

  /// The elements of `text` as Post records, built with and without interning.
  private func elements(_ text: String, interning: Bool) throws -> [JPtr] {
    let type = try schema.modelType("Post").get()
    let want = Want.object(PlanRef(plan: schema.parsePlans.plan(type, in: schema)))
    var out: [JPtr] = []
    let bytes = Array(text.utf8)
    let done = bytes.withUnsafeBufferPointer { buffer in
      PrunedParser.forEachElement(buffer, want, interning: interning) { element, _ in
        out.append(element)
        return true
      }
    }
    #expect(done == true)
    return out
  }

  @Test func repeatedObjectsAreSharedAndEqualToUnsharedOnes() throws {
    let text = """
      [{"id": 1, "author": {"id": 7, "login": "a", "x": 1}, "editor": {"id": 7, "login": "a", "x": 1}, "extra": {"id": 1}},
       {"id": 2, "author": {"id": 7, "login": "a", "x": 1}, "editor": {"id": 7,"login": "a", "x": 1}, "extra": {"id": 1}},
       {"id": 3, "author": {"id": 7, "login": "b", "x": 1}, "editor": {"login": "a", "id": 7, "x": 1}}]
      """
    let shared = try elements(text, interning: true)
    let plain = try elements(text, interning: false)
    defer { for value in shared + plain { JValue.release(value) } }
    #expect(shared.count == 3 && plain.count == 3)
    for (left, right) in zip(shared, plain) { #expect(json_equal(left, right) == 1) }
    func member(_ element: JPtr, _ key: String) -> JPtr? { json_object_get(element, key) }
    // the same bytes under the same plan: one value, wherever it is met
    #expect(member(shared[0], "author") == member(shared[0], "editor"))
    #expect(member(shared[0], "author") == member(shared[1], "author"))
    // other spacing, another value, another order: built again
    #expect(member(shared[1], "editor") != member(shared[0], "editor"))
    #expect(member(shared[2], "author") != member(shared[0], "author"))
    #expect(member(shared[2], "editor") != member(shared[0], "editor"))
    // a model without a key (not a record) is never shared
    #expect(member(shared[0], "extra") != member(shared[1], "extra"))
    // without interning nothing is shared
    #expect(member(plain[0], "author") != member(plain[0], "editor"))
  }

  @Test func aBrokenRepeatStillFailsAsWithoutInterning() throws {
    let text =
      #"[{"id": 1, "author": {"id": 7, "login": "a"}}, {"id": 2, "author": {"id": 7, "login": "a"]}]"#
    let type = try schema.modelType("Post").get()
    let want = Want.object(PlanRef(plan: schema.parsePlans.plan(type, in: schema)))
    let bytes = Array(text.utf8)
    for interning in [true, false] {
      let done = bytes.withUnsafeBufferPointer { buffer in
        PrunedParser.forEachElement(buffer, want, interning: interning) { element, _ in
          JValue.release(element)
          return true
        }
      }
      #expect(done == false)
    }
  }
}
