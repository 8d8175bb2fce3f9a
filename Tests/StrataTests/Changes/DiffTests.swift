import Foundation
import Strata
import Testing

private let schemaDocument: JSON = [
  "strata": 1,
  "models": [
    "Issue": [
      "unknownKeys": "keep",
      "properties": [
        "number": ["type": "int", "required": true],
        "title": ["type": "string"],
        "body": ["type": "string?"],
        "tags": ["type": "[string]", "default": []],
        "assignee": ["type": "User?"],
        "note": ["type": "string", "json": false],
      ],
    ],
    "User": ["properties": ["login": ["type": "string"], "id": ["type": "int"]]],
  ],
]

@Test func diffGivesAJSONPatchThatRoundTrips() throws {
  let schema = try Schema(schemaDocument)
  let a = try schema.map(
    "Issue", from: ["number": 1, "title": "x", "tags": ["a", "b"], "assignee": ["login": "ann"]])
  let b = try schema.map(
    "Issue", from: ["number": 1, "body": nil, "tags": ["a"], "assignee": ["login": "bob", "id": 2]])
  let patch = try a.diff(b)
  #expect(
    patch == [
      ["op": "remove", "path": "/title"],
      ["op": "add", "path": "/body", "value": nil],
      ["op": "remove", "path": "/tags/1"],
      ["op": "replace", "path": "/assignee/login", "value": "bob"],
      ["op": "add", "path": "/assignee/id", "value": 2],
    ])
  #expect(try a.patched(patch) == b)
  #expect(try a.diff(a) == [])
  #expect(try b.patched(try b.diff(a)) == a)
}

@Test func mergeDiffLiftsNullAndRefusesRemovals() throws {
  let schema = try Schema(schemaDocument)
  let a = try schema.map("Issue", from: ["number": 1, "title": "x"])
  let b = try schema.map(
    "Issue", from: ["number": 1, "title": "x", "body": nil, "assignee": ["login": "ann"]])
  let merge = try a.mergeDiff(b)
  #expect(merge == ["body": nil, "assignee": ["login": "ann"]])
  #expect(try a.mergePatched(merge) == b)
  do {
    _ = try b.mergeDiff(a)
    Issue.record("expected an error")
  } catch {
    #expect(error.errors.map(\.path) == ["/body", "/assignee"])
    #expect(error.errors.allSatisfy { $0.code == .argument && $0.model == "Issue" })
    #expect(error.errors.map(\.property) == ["body", "assignee"])
  }
}

@Test func patchesMakeNewModels() throws {
  let schema = try Schema(schemaDocument)
  let a = try schema.map("Issue", from: ["number": 1, "title": "x"])
  let b = try a.patched([
    ["op": "replace", "path": "/title", "value": "y"], ["op": "add", "path": "/note", "value": "n"],
  ])
  #expect(a["title"] == "x")
  #expect(b["title"] == "y")
  #expect(b["note"] == "n")
  // What the patched dictionary leaves out stays absent, defaults or not.
  let c = try a.patched([["op": "remove", "path": "/tags"]])
  #expect(!c.has("tags"))
  #expect(a.has("tags"))
  let d = try a.mergePatched(["title": "z", "$unknown": ["kept": true]])
  #expect(try d.json == ["number": 1, "title": "z", "tags": [], "kept": true])
}

@Test func patchErrorsPointIntoThePatchOrTheResult() throws {
  let schema = try Schema(schemaDocument)
  let a = try schema.map("Issue", from: ["number": 1])
  do {
    _ = try a.patched([["op": "copy", "from": "/title", "path": "/body"]])
    Issue.record("expected an error")
  } catch {
    #expect(error.errors.count == 1)
    #expect(error.errors.first?.path == "/0/from")
    #expect(error.code == .argument)
    #expect(error.errors.first?.property == "body")
  }
  do {
    _ = try a.patched([["op": "add", "path": "/assignee", "value": ["login": 5, "x": 1]]])
    Issue.record("expected an error")
  } catch {
    #expect(
      Set(error.errors.map { "\($0.path) \($0.code.rawValue)" }) == [
        "/assignee/login type", "/assignee/x unknown_key",
      ])
  }
  do {
    _ = try a.mergePatched([1, 2])
    Issue.record("expected an error")
  } catch {
    #expect(error.code == .argument)
  }
}

@Test func diffNeedsOneSchemaAndOneModel() throws {
  let schema = try Schema(schemaDocument)
  let other = try Schema(schemaDocument)
  let a = try schema.map("Issue", from: ["number": 1])
  let user = try schema.map("User", from: ["login": "x"])
  let foreign = try other.map("Issue", from: ["number": 1])
  for (x, y) in [(a, user), (a, foreign), (foreign, a)] {
    do {
      _ = try x.diff(y)
      Issue.record("expected an error")
    } catch {
      #expect(error.code == .argument)
    }
    do {
      _ = try x.mergeDiff(y)
      Issue.record("expected an error")
    } catch {
      #expect(error.code == .argument)
    }
  }
}

@Test func deepJSONValuesDiffWithoutTrapping() throws {
  let schema = try Schema(["strata": 1, "models": ["A": ["properties": ["v": ["type": "json"]]]]])
  var deep: JSON = 1
  var other: JSON = 2
  for _ in 0..<400 {
    deep = ["k": deep]
    other = ["k": other]
  }
  let a = try schema.map("A", from: ["v": deep])
  let b = try schema.map("A", from: ["v": other])
  let patch = try a.diff(b)
  #expect(try a.patched(patch) == b)
  #expect(try a.mergePatched(try a.mergeDiff(b)) == b)
}

// MARK: the round trip on every conformance model

/// Every model the conformance cases map successfully, grouped by schema and model name.
private func conformanceModels() -> [[Model]] {
  let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("conformance")
  let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
    .filter { $0.hasSuffix(".json") }.sorted()
  var groups: [[Model]] = []
  for file in files {
    guard let text = try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8),
      let document = try? JSON(parsing: text), case .array(let cases)? = document["cases"]
    else { continue }
    let fileSchema = document["schema"].flatMap { try? Schema($0) }
    var byModel: [String: [Model]] = [:]
    var order: [String] = []
    func add(_ model: Model, key: String) {
      if byModel[key] == nil { order.append(key) }
      byModel[key, default: []].append(model)
    }
    for (position, item) in cases.enumerated() {
      guard case .string(let name)? = item["model"] else { continue }
      var schema = fileSchema
      var prefix = "file"
      if let own = item["schema"] {
        schema = try? Schema(own)
        prefix = "case\(position)"
      } else if case .string(let named)? = item["schemaName"] {
        schema = document["schemas"]?[named].flatMap { try? Schema($0) }
        prefix = "case\(position)"
      }
      guard let schema, item["archiveWith"] == nil else { continue }
      for key in ["input", "diffFrom"] {
        guard let input = item[key] else { continue }
        if item["many"] == .bool(true) {
          for model in (try? schema.mapMany(name, from: input)) ?? [] {
            add(model, key: "\(prefix) \(model.name)")
          }
        } else if let model = try? schema.map(name, from: input) {
          add(model, key: "\(prefix) \(model.name)")
        }
      }
    }
    groups += order.compactMap { byModel[$0] }
  }
  return groups
}

/// The model that canonical reading makes of `{}`, when the model has no required property.
private func emptyModel(like model: Model) -> Model? {
  try? model.schema.unarchive(from: [
    "strata-archive": 1, "version": .int(model.schema.version), "model": .string(model.name), "values": [:],
  ])
}

private func checkRoundTrips(_ a: Model, _ b: Model) {
  do {
    let patch = try a.diff(b)
    #expect(try a.patched(patch) == b, "patch(\(a), diff(\(a), \(b)))")
  } catch {
    Issue.record("diff/patch of \(a) and \(b) failed: \(error)")
  }
  do {
    let merge = try a.mergeDiff(b)
    #expect(try a.mergePatched(merge) == b, "merge_patch(\(a), merge_diff(\(a), \(b)))")
  } catch {
    // Only removals are inexpressible in a merge patch.
    #expect(error.errors.allSatisfy { $0.code == .argument }, "\(error)")
  }
}

@Test func diffPatchAndArchivesRoundTripOnEveryConformanceModel() throws {
  let groups = conformanceModels()
  var checked = 0
  for group in groups {
    let models = Array(group.prefix(24))
    for model in models {
      #expect((try? model.schema.unarchive(from: model.archive())) == model, "unarchive(archive(\(model)))")
      #expect((try? model.schema.unarchive(parsing: model.archive().description)) == model)
      if let empty = emptyModel(like: model) {
        checkRoundTrips(empty, model)
        checkRoundTrips(model, empty)
      }
    }
    for a in models {
      for b in models {
        checkRoundTrips(a, b)
        checked += 1
      }
    }
  }
  #expect(checked > 1000)
}
