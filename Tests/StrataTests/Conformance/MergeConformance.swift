import Strata
import Testing

// The conformance keys of merge and update (Tests/conformance/README.md,
// "Merge and update"), for ConformanceTests.swift.

/// Runs `mergeWith` (with `mergeModel`) and `update` cases: `input` is mapped
/// onto `model`, then `mergeWith` (mapped onto `mergeModel`, or `model`) is
/// merged into it, or `update` applied to it. `dictionary` / `json` are
/// expected of the changed model; `errors` of the merge or update, after
/// which the model must be unchanged. True when the case was one of them.
func runMergeCase(_ testCase: ConformanceCase, _ schema: Schema) -> Bool {
  let body = testCase.body
  let mergeWith = body["mergeWith"]
  let update = body["update"]
  guard mergeWith != nil || update != nil else { return false }
  guard case .string(let name)? = body["model"] else {
    Issue.record("a mergeWith or update case needs a model")
    return true
  }
  var model: Model
  var other: Model? = nil
  do {
    model = try schema.map(name, from: body["input"] ?? .null)
    if let mergeWith {
      var otherName = name
      if case .string(let given)? = body["mergeModel"] { otherName = given }
      other = try schema.map(otherName, from: mergeWith)
    }
  } catch {
    Issue.record("mapping the case's input failed: \(error)")
    return true
  }
  let before = model.dictionary
  let original = model
  do {
    if let other {
      try model.merge(other)
    } else if let update {
      try model.update(from: update)
    }
  } catch {
    if let expected = body["errors"] {
      if let problem = compareErrors(expected, error.errors) { Issue.record("\(problem)") }
    } else {
      Issue.record("the merge or update failed: \(error)")
    }
    #expect(model.dictionary == before, "a failed merge or update leaves the model unchanged")
    #expect(model == original, "a failed merge or update leaves the model unchanged")
    return true
  }
  if let expected = body["errors"] {
    Issue.record("the merge or update succeeded with \(model.dictionary), expected errors \(expected)")
    return true
  }
  if let expected = body["dictionary"] { #expect(model.dictionary == expected, "dictionary") }
  if let expected = body["json"] {
    do {
      #expect(try model.json == expected, "json")
    } catch {
      Issue.record("serialization failed: \(error)")
    }
  }
  return true
}
