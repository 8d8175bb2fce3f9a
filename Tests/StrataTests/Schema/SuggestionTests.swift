import Testing

@testable import Strata

/// The "did you mean" hints: distance, threshold, ties, and where they appear.
struct SuggestionTests {
  @Test func distanceCountsEditsAndSwaps() {
    #expect(Suggestion.distance(Array("Labl".utf8), Array("Label".utf8)) == 1)
    #expect(Suggestion.distance(Array("requried".utf8), Array("required".utf8)) == 1)
    #expect(Suggestion.distance(Array("kitten".utf8), Array("sitting".utf8)) == 3)
    #expect(Suggestion.distance(Array("".utf8), Array("abc".utf8)) == 3)
  }

  @Test func nearestNameWithinAThirdOfItsLength() {
    #expect(Suggestion.nearest(to: "Labl", among: ["Issue", "Label", "User"]) == "Label")
    #expect(Suggestion.nearest(to: "label", among: ["Label"]) == "Label")
    #expect(Suggestion.nearest(to: "Zebra", among: ["Issue", "Label", "User"]) == nil)
    #expect(Suggestion.nearest(to: "ab", among: ["xy"]) == nil)
    // ties go to the name that sorts first, whatever the order given
    #expect(Suggestion.nearest(to: "cat", among: ["cot", "bat"]) == "bat")
    #expect(Suggestion.nearest(to: "cat", among: ["bat", "cot"]) == "bat")
    #expect(Suggestion.hint(for: "titel", among: ["title"]) == " (did you mean 'title'?)")
    #expect(Suggestion.hintOrList(for: "zzz", among: ["a", "b"]) == " (expected a, b)")
  }

  @Test func schemaErrorsSuggestAndEveryPassReports() throws {
    let text = """
      {"strata": 1, "models": {
        "Issue": {"properties": {
          "labels": {"type": "[Labl]"},
          "opened": {"type": "date", "format": "yyyy QQ"},
          "slug": {"type": "string", "validate": {"pattern": "a(b"}}}},
        "Label": {"properties": {"name": {"type": "string"}}}}}
      """
    do {
      _ = try Schema(parsing: text)
      Issue.record("the schema loaded")
    } catch {
      let messages = error.errors.map(\.message)
      #expect(messages.count == 3)
      #expect(messages.contains("unknown type 'Labl' (did you mean 'Label'?)"))
      #expect(error.errors.map(\.path).contains("/models/Issue/properties/opened/format"))
      #expect(error.errors.map(\.path).contains("/models/Issue/properties/slug/validate/pattern"))
    }
    let schema = try Schema(
      parsing: #"{"strata": 1, "models": {"Issue": {"properties": {"title": {"type": "string"}}}}}"#)
    #expect(throws: StrataError.self) { try schema.map("Isue", parsing: "{}") }
    do {
      _ = try schema.map("Isue", parsing: "{}")
    } catch {
      #expect(error.errors[0].message == "the schema has no model named 'Isue' (did you mean 'Issue'?)")
    }
  }
}
