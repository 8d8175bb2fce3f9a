import Foundation
import Strata
import Testing

/// One case of Tests/conformance/*.json.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
  let file: String
  let name: String
  let schema: JSON
  let body: JSON
  /// The file's `schemas` (named schemas that cases refer to), or null.
  var schemas: JSON = .null

  var testDescription: String { "\(file):\(name)" }

  static let folder: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("conformance")

  static func all() -> [ConformanceCase] {
    let only = ProcessInfo.processInfo.environment["STRATA_CONFORMANCE_FILE"]
    let files =
      ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
      .filter { $0.hasSuffix(".json") && (only == nil || $0 == only) }.sorted()
    var cases: [ConformanceCase] = []
    for file in files {
      guard let text = try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8),
        let document = try? JSON(parsing: text), case .array(let items)? = document["cases"]
      else {
        cases.append(ConformanceCase(file: file, name: "(unreadable file)", schema: .null, body: .null))
        continue
      }
      for item in items {
        let name: String
        if case .string(let text)? = item["name"] { name = text } else { name = "?" }
        var schema = item["schema"] ?? document["schema"] ?? .null
        if case .string(let named)? = item["schemaName"] { schema = document["schemas"]?[named] ?? .null }
        var entry = ConformanceCase(file: file, name: name, schema: schema, body: item)
        entry.schemas = document["schemas"] ?? .null
        cases.append(entry)
      }
    }
    return cases
  }
}

/// Sorts error entries by (path, code, model, property) for multiset comparison.
private func sortKey(_ entry: [String: String]) -> String {
  [entry["path"] ?? "", entry["code"] ?? "", entry["model"] ?? "", entry["property"] ?? ""].joined(
    separator: "\u{1}")
}

func compareErrors(_ expected: JSON, _ actual: [ErrorDetail]) -> String? {
  guard case .array(let items) = expected else { return "expected errors must be an array" }
  var wanted: [[String: String]] = []
  for item in items {
    guard case .object(let object) = item else { return "an expected error must be an object" }
    var entry: [String: String] = [:]
    for (key, value) in object { if case .string(let text) = value { entry[key] = text } }
    wanted.append(entry)
  }
  let got = actual.map {
    [
      "path": $0.path, "code": $0.code.rawValue, "model": $0.model, "property": $0.property,
      "message": $0.message,
    ]
  }
  guard wanted.count == got.count else {
    return "expected \(wanted.count) errors, got \(got.count): \(actual)"
  }
  let sortedWanted = wanted.sorted { sortKey($0) < sortKey($1) }
  let sortedGot = got.sorted { sortKey($0) < sortKey($1) }
  for (want, have) in zip(sortedWanted, sortedGot) {
    for key in ["path", "code", "model", "property"] {
      if let value = want[key], value != have[key] {
        return "error \(key): expected \(value), got \(have[key] ?? "") in \(sortedGot)"
      }
    }
    if let message = want["message"], !(have["message"] ?? "").contains(message) {
      return "message \(have["message"] ?? "") does not contain \(message)"
    }
  }
  return nil
}

@Test("conformance", arguments: ConformanceCase.all())
func conformance(_ testCase: ConformanceCase) throws {
  let body = testCase.body
  if case .object(let codes)? = body["errorCodes"] {  // every code: its name and number
    let known = Dictionary(
      uniqueKeysWithValues: ErrorCode.allCases.map { ($0.rawValue, JSON.int(Int64($0.number))) })
    #expect(known == Dictionary(uniqueKeysWithValues: codes.map { ($0.key, $0.value) }), "error codes")
    return
  }
  if let expected = body["schemaErrors"] {
    do {
      _ = try Schema(testCase.schema)
      Issue.record("the schema loaded, expected errors \(expected)")
    } catch {
      if let problem = compareErrors(expected, error.errors) { Issue.record("\(problem)") }
    }
    return
  }
  if runGraphCase(testCase) { return }  // graph
  let schema: Schema
  do {
    schema = try Schema(testCase.schema)
  } catch {
    Issue.record("schema failed to load: \(error)")
    return
  }
  if runSemanticCase(testCase, schema) { return }  // unarchive, archiveWith, compareWith
  if runMergeCase(testCase, schema) { return }  // mergeWith, update
  if runResponseCase(testCase, schema) { return }  // response
  if runLinesCase(testCase, schema) { return }  // lines, linesHex
  if case .array(let lines)? = testCase.body["python"] {  // typed Python classes
    let module = schema.pythonModule()
    for case .string(let line) in lines where !module.contains(line) {
      Issue.record("the generated module lacks the line: \(line)")
    }
    return
  }
  guard case .string(let model)? = body["model"] else {
    Issue.record("case has no model")
    return
  }
  let many = body["many"] == .bool(true)
  if case .string(let text)? = body["inputText"] {
    checkBytePaths(schema, model, many: many, text: text)
  } else if let input = body["input"] {
    checkBytePaths(schema, model, many: many, text: input.serialized())
  }
  var models: [Model] = []
  do {
    if case .string(let text)? = body["inputText"] {
      models = many ? try schema.mapMany(model, parsing: text) : [try schema.map(model, parsing: text)]
    } else {
      let input = body["input"] ?? .null
      models = many ? try schema.mapMany(model, from: input) : [try schema.map(model, from: input)]
    }
  } catch {
    if let expected = body["errors"] {
      if let problem = compareErrors(expected, error.errors) { Issue.record("\(problem)") }
    } else {
      Issue.record("mapping failed: \(error)")
    }
    return
  }
  if body["errors"] != nil {
    Issue.record("mapping succeeded, expected errors \(body["errors"] ?? .null)")
    return
  }
  if let expected = body["dictionary"] {
    let actual: JSON = many ? .array(models.map(\.dictionary)) : (models.first?.dictionary ?? .null)
    #expect(actual == expected, "dictionary")
  }
  if let expected = body["json"] {
    do {
      let actual: JSON = many ? .array(try models.map { try $0.json }) : (try models.first?.json ?? .null)
      #expect(actual == expected, "json")
    } catch {
      Issue.record("serialization failed: \(error)")
    }
  }
  if !many, let first = models.first { checkSemanticKeys(testCase, schema, first) }  // archive, diff, patch
}
