import Strata
import Testing

// The conformance keys of diff and patch, archives and compatibility
// (Tests/conformance/README.md), for ConformanceTests.swift.

extension ConformanceCase {
  /// A schema reference of a case: a name in the file's `schemas`, or a document.
  func schemaDocument(_ reference: JSON) -> JSON {
    if case .string(let name) = reference { return schemas[name] ?? .null }
    return reference
  }
}

/// Checks a restored model (or the failure to restore it) against `dictionary` / `json` / `errors`.
private func checkRestored(_ body: JSON, _ restore: () throws(StrataError) -> Model) {
  let restored: Model
  do {
    restored = try restore()
  } catch {
    if let expected = body["errors"] {
      if let problem = compareErrors(expected, error.errors) { Issue.record("\(problem)") }
    } else {
      Issue.record("unarchive failed: \(error)")
    }
    return
  }
  if let expected = body["errors"] {
    Issue.record("unarchive succeeded with \(restored.dictionary), expected errors \(expected)")
    return
  }
  if let expected = body["dictionary"] { #expect(restored.dictionary == expected, "dictionary") }
  if let expected = body["json"] { #expect((try? restored.json) == expected, "json") }
}

/// The changes of compare(old, new) as JSON objects.
func changesJSON(_ changes: [SchemaChange]) -> JSON {
  .array(
    changes.map {
      [
        "path": .string($0.path), "model": .string($0.model), "property": .string($0.property),
        "change": .string($0.change.rawValue), "message": .string($0.message), "breaking": .bool($0.breaking),
      ]
    })
}

/// Compares expected changes (only the members given; `message` a substring) with actual ones, in order.
func compareChanges(_ expected: JSON, _ actual: JSON) -> String? {
  guard case .array(let wanted) = expected, case .array(let got) = actual else {
    return "changes must be an array"
  }
  guard wanted.count == got.count else {
    return "expected \(wanted.count) changes, got \(got.count): \(actual)"
  }
  for (want, have) in zip(wanted, got) {
    guard case .object(let members) = want else { return "an expected change must be an object" }
    for (key, value) in members {
      if key == "message", case .string(let part) = value, case .string(let text)? = have[key] {
        if !text.contains(part) { return "message '\(text)' does not contain '\(part)'" }
      } else if have[key] != value {
        return "\(key): expected \(value), got \(have[key] ?? .null) in \(have)"
      }
    }
  }
  return nil
}

/// Runs the cases that map nothing themselves: `compareWith`, `unarchive`,
/// `archiveWith`. True when the case was one of them.
func runSemanticCase(_ testCase: ConformanceCase, _ schema: Schema) -> Bool {
  let body = testCase.body
  if let reference = body["compareWith"] {
    do {
      let old = try Schema(testCase.schemaDocument(reference))
      let actual = changesJSON(Schema.compare(old: old, new: schema))
      if let problem = compareChanges(body["changes"] ?? .null, actual) { Issue.record("\(problem)") }
    } catch {
      Issue.record("the old schema failed to load: \(error)")
    }
    return true
  }
  if let archive = body["unarchive"] {
    checkRestored(body) { () throws(StrataError) in try schema.unarchive(from: archive) }
    return true
  }
  if let reference = body["archiveWith"] {
    guard case .string(let model)? = body["model"] else {
      Issue.record("archiveWith needs a model")
      return true
    }
    let archive: JSON
    do {
      let writer = try Schema(testCase.schemaDocument(reference))
      archive = try writer.map(model, from: body["input"] ?? .null).archive()
    } catch {
      Issue.record("mapping with the archiveWith schema failed: \(error)")
      return true
    }
    if let expected = body["archive"] { #expect(archive == expected, "archive") }
    checkRestored(body) { () throws(StrataError) in try schema.unarchive(from: archive) }
    return true
  }
  return false
}

/// Checks `archive`, `diffFrom` (`diff`, `mergeDiff`, `mergeDiffErrors`),
/// `patch` and `mergePatch` (`patched`, `patchErrors`) of a mapped model.
func checkSemanticKeys(_ testCase: ConformanceCase, _ schema: Schema, _ model: Model) {
  let body = testCase.body
  if let expected = body["archive"] {
    let archive = model.archive()
    #expect(archive == expected, "archive")
    do {
      #expect(try schema.unarchive(from: archive) == model, "unarchive(archive(m)) == m")
    } catch {
      Issue.record("unarchive failed: \(error)")
    }
  }
  if let from = body["diffFrom"] {
    do {
      let a = try schema.map(model.name, from: from)
      let patch = try a.diff(model)
      if let expected = body["diff"] { #expect(patch == expected, "diff") }
      #expect(try a.patched(patch) == model, "patch(a, diff(a, b)) == b")
      do {
        let merge = try a.mergeDiff(model)
        if let expected = body["mergeDiff"] { #expect(merge == expected, "mergeDiff") }
        if let expected = body["mergeDiffErrors"] {
          Issue.record("mergeDiff succeeded, expected \(expected)")
        }
        #expect(try a.mergePatched(merge) == model, "merge_patch(a, merge_diff(a, b)) == b")
      } catch {
        if let expected = body["mergeDiffErrors"] {
          if let problem = compareErrors(expected, error.errors) { Issue.record("\(problem)") }
        } else {
          Issue.record("mergeDiff failed: \(error)")
        }
      }
    } catch {
      Issue.record("diff failed: \(error)")
    }
  }
  for key in ["patch", "mergePatch"] {
    guard let patch = body[key] else { continue }
    do {
      let patched = key == "patch" ? try model.patched(patch) : try model.mergePatched(patch)
      if let expected = body["patched"] { #expect(patched.dictionary == expected, "patched") }
      if let expected = body["patchErrors"] { Issue.record("\(key) succeeded, expected errors \(expected)") }
    } catch {
      if let expected = body["patchErrors"] {
        if let problem = compareErrors(expected, error.errors) { Issue.record("\(problem)") }
      } else {
        Issue.record("\(key) failed: \(error)")
      }
    }
  }
}
