import Foundation
import Strata
import StrataGraph
import Testing

// The conformance keys of the object graph (Tests/conformance/README.md,
// "Graph"), for ConformanceTests.swift.

/// JSON equality that ignores the order of object members.
func sameJSON(_ a: JSON, _ b: JSON) -> Bool {
  switch (a, b) {
  case (.object(let x), .object(let y)):
    guard x.count == y.count else { return false }
    for (key, value) in x {
      guard let other = y[key], sameJSON(value, other) else { return false }
    }
    return true
  case (.array(let x), .array(let y)):
    return x.count == y.count && zip(x, y).allSatisfy { sameJSON($0, $1) }
  default:
    return a == b
  }
}

/// The key injectors a case asks for: `{"member": name}` gives the input object's member.
func graphInjectors(_ spec: JSON?) -> [String: KeyInjectorFunction] {
  guard case .object(let object)? = spec else { return [:] }
  var out: [String: KeyInjectorFunction] = [:]
  for (model, rule) in object {
    guard case .string(let member)? = rule["member"] else { continue }
    out[model] = { value, _ in value[member] ?? .null }
  }
  return out
}

/// Counts as a dictionary, for comparing `created`, `updated` and `deleted`.
private func counts(_ json: JSON) -> [String: Int] {
  guard case .object(let object) = json else { return [:] }
  var out: [String: Int] = [:]
  for (key, value) in object { if case .int(let count) = value { out[key] = Int(count) } }
  return out
}

/// Runs a `graph` case: its steps in order on one context; a case on a file
/// twice, the second time with contexts that keep no record in their cache
/// between calls. With a PostgreSQL server (`STRATA_TEST_POSTGRES_URL`,
/// which scripts/test sets), every case runs once more on a graph of its
/// own there (a schema of the database, dropped after), unless the case
/// says `"postgres": {"skip": why}`. True when the case was one.
func runGraphCase(_ testCase: ConformanceCase) -> Bool {
  guard case .array? = testCase.body["graph"] else { return false }
  runGraphSteps(testCase, cache: nil)
  if testCase.body["file"] == .bool(true) { runGraphSteps(testCase, cache: 0) }
  if let server = ProcessInfo.processInfo.environment["STRATA_TEST_POSTGRES_URL"],
    testCase.body["postgres"]?["skip"] == nil
  {
    let schema = "conformance_swift_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
    runGraphSteps(testCase, cache: nil, postgres: server + "?schema=" + schema)
    do {
      try PostgresConnection(url: server).execute("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
    } catch {
      Issue.record("the case's PostgreSQL schema was not dropped: \(error)")
    }
  }
  return true
}

/// Opens a context for a case, with the cache limit given (nil: the
/// default); a context that caches nothing also reads through a memory map.
private func openGraph(_ schema: Schema, _ path: String?, cache: Int?) throws(StrataError) -> Context {
  let context = try Context(schema: schema, path: path)
  if let cache {
    try context.setCacheLimit(cache)
    try context.setMemoryMap(1 << 24)
  }
  return context
}

/// Runs a `graph` case's steps in order on one context.
private func runGraphSteps(_ testCase: ConformanceCase, cache: Int?, postgres: String? = nil) {
  let body = testCase.body
  guard case .array(let steps)? = body["graph"] else { return }
  let schema: Schema
  do {
    schema = try Schema(testCase.schema, keyInjectors: graphInjectors(body["keyInjectors"]))
  } catch {
    Issue.record("schema failed to load: \(error)")
    return
  }
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "strata-graph-\(UUID().uuidString)")
  try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  let path: String? =
    postgres ?? (body["file"] == .bool(true) ? directory.appendingPathComponent("graph.db").path : nil)
  var context: Context
  do {
    context = try openGraph(schema, path, cache: cache)
  } catch {
    Issue.record("the context did not open: \(error)")
    return
  }
  // a second context on the same file, opened when a step first names it
  var other: Context? = nil
  defer { other?.close() }
  for (position, step) in steps.enumerated() {
    let label =
      (cache == nil ? "step \(position)" : "step \(position) (caching nothing)")
      + (postgres == nil ? "" : " (PostgreSQL)")
    // The graph's invariants hold after every step, failed or not.
    defer {
      do { try context.check() } catch { Issue.record("\(label): graph invariants broken: \(error)") }
    }
    do {
      if step["reopen"] == .bool(true), let open = other {
        open.close()
        other = nil
      }
      if step["other"] == .bool(true) {
        if other == nil { other = try openGraph(schema, path, cache: cache) }
        guard var second = other else { continue }
        try runGraphStep(step, &second, schema: schema, path: path, cache: cache, label: label)
      } else {
        try runGraphStep(step, &context, schema: schema, path: path, cache: cache, label: label)
      }
    } catch {
      if let expected = step["errors"] {
        if let problem = compareErrors(expected, error.errors) { Issue.record("\(label): \(problem)") }
      } else {
        Issue.record("\(label) failed: \(error)")
      }
      continue
    }
    if let expected = step["errors"] { Issue.record("\(label) succeeded, expected errors \(expected)") }
  }
  context.close()
}

private func runGraphStep(
  _ step: JSON, _ context: inout Context, schema: Schema, path: String?, cache: Int?, label: String
) throws(StrataError) {
  if case .string(let model)? = step["import"] {
    var root: String? = nil
    var orphans: OrphanDeletion? = nil
    if case .string(let text)? = step["options"]?["root"] { root = text }
    if case .object(let rule)? = step["options"]?["delete_orphans"], case .string(let name)? = rule["model"] {
      var scope: [String: JSON] = [:]
      if case .object(let fields)? = rule["where"] { for (key, value) in fields { scope[key] = value } }
      var keep: (@Sendable (Record) -> Bool)? = nil
      if case .string(let property)? = step["keep"]?["property"], let equals = step["keep"]?["equals"] {
        keep = { record in record[property] == equals }
      }
      orphans = OrphanDeletion(
        model: name, where: scope, onlyTopLevel: rule["scope"] == .string("top"), keep: keep)
    }
    let result: ImportResult
    if let options = step["options"], step["keep"] == nil {
      // the options object as C and Python give it (unknown members included), as the command line does
      result = try context.import(model, parsing: (step["input"] ?? .null).serialized(), options: options)
    } else {
      result = try context.import(model, step["input"] ?? .null, root: root, deleteOrphans: orphans)
    }
    if let expected = step["records"] {
      let keys = JSON.array(result.records.map(\.key))
      #expect(sameJSON(keys, expected), "\(label): records \(keys), expected \(expected)")
    }
    for (name, actual) in [
      ("created", result.created), ("updated", result.updated), ("unchanged", result.unchanged),
      ("deleted", result.deleted),
    ] {
      if let expected = step[name] { #expect(actual == counts(expected), "\(label): \(name) \(actual)") }
    }
    if case .array(let paths)? = step["warnings"] {
      let actual = result.warnings.map { JSON.string($0.path) }
      #expect(actual == paths, "\(label): warnings \(result.warnings)")
    }
    if let expected = step["metadata"] {
      let actual = result.metadata?.dictionary ?? .null
      #expect(sameJSON(actual, expected), "\(label): metadata \(actual)")
    }
  } else if case .string(let model)? = step["delete"] {
    guard let record = try context.get(model, key: step["key"] ?? .null) else {
      throw StrataError([
        ErrorDetail(path: "", code: .argument, message: "no \(model) \(step["key"] ?? .null) to delete")
      ])
    }
    try context.delete(record)
  } else if case .string(let read)? = step["read"] {
    if read == "begin" { try context.beginReading() } else { try context.endReading() }
  } else if case .string(let model)? = step["get"] {
    let record = try context.get(model, key: step["key"] ?? .null)
    if case .bool(let stub)? = step["stub"] {
      #expect(record?.isStub == stub, "\(label): isStub is not \(stub)")
    }
    if let expected = step["dictionary"] {
      let actual = record?.model.dictionary ?? .null
      #expect(sameJSON(actual, expected), "\(label): \(actual)")
    }
  } else if case .string(let model)? = step["nested"] {
    let record = try context.get(model, key: step["key"] ?? .null)
    var actual: JSON = .null
    if let record {
      if case .int(let levels)? = step["depth"] {
        actual = try record.dictionary(levels: Int(levels))
      } else {
        actual = try record.dictionary
      }
    }
    #expect(sameJSON(actual, step["dictionary"] ?? .null), "\(label): nested \(actual)")
  } else if case .string(let model)? = step["count"] {
    let stubs = step["stubs"] != .bool(false)
    let actual = try context.count(model, stubs: stubs)
    #expect(JSON.int(Int64(actual)) == step["is"], "\(label): count \(actual)")
    #expect(try context.all(model, stubs: stubs).count == actual, "\(label): all differs from count")
  } else if case .string(let model)? = step["query"] {
    // the query object as C gives it: the step's where, order_by, limit, offset, stubs
    var members: [(String, JSON)] = []
    for name in ["where", "order_by", "limit", "offset", "stubs"] {
      if let member = step[name] { members.append((name, member)) }
    }
    let query = JSON.object(JSONObject(members))
    let records = try context.query(model, query)
    let keys = JSON.array(records.map(\.key))
    #expect(keys == step["records"], "\(label): query gave \(keys)")
    #expect(try context.count(model, query: query) == records.count, "\(label): count(query:)")
    if step["limit"] == nil && step["offset"] == nil && step["order_by"] == nil, let condition = step["where"]
    {
      let stubs = step["stubs"] != .bool(false)
      let named = try context.query(model, where: condition, stubs: stubs)
      #expect(named.map(\.key) == records.map(\.key), "\(label): query(where:) differs")
      #expect(
        try context.count(model, where: condition, stubs: stubs) == records.count, "\(label): count(where:)")
    }
  } else if case .string(let url)? = step["fetchHeaders"] {
    let headers = JSON.array(
      try context.fetchHeaders(url).map { .array([.string($0.name), .string($0.value)]) })
    #expect(headers == step["headers"], "\(label): fetch headers \(headers)")
  } else if case .string(let model)? = step["fetchPage"], case .string(let url)? = step["url"],
    case .int(let status)? = step["status"], case .string(let body)? = step["body"]
  {
    var headers: [FetchHeader] = []
    if case .array(let pairs)? = step["headers"] {
      for pair in pairs {
        if case .array(let parts) = pair, parts.count == 2, case .string(let name) = parts[0],
          case .string(let value) = parts[1]
        {
          headers.append(FetchHeader(name, value))
        }
      }
    }
    let page = try context.fetchPage(
      model, url: url, response: FetchResponse(status: Int(status), headers: headers, body: Array(body.utf8)),
      cache: step["cache"] != .bool(false))
    if let expected = step["records"] {
      let keys = JSON.array(page.records.map(\.key))
      #expect(sameJSON(keys, expected), "\(label): page records \(keys), expected \(expected)")
    }
    if let expected = step["next"] {
      #expect(
        (page.next.map(JSON.string) ?? .null) == expected, "\(label): next \(String(describing: page.next))")
    }
    if let expected = step["cached"] {
      #expect(JSON.bool(page.cached) == expected, "\(label): cached \(page.cached)")
    }
  } else if case .string(let sql)? = step["sql"] {
    // the steps' SQL is SQLite's: PostgresGraphTests reads PostgreSQL's tables
    if let path, PostgresURL.isPostgres(path) { return }
    guard let path else {
      Issue.record("\(label): an sql step needs a case with \"file\": true")
      return
    }
    let reader = try SQLiteConnection(path: path, mode: .readOnly)
    defer { reader.close() }
    var rows: [JSON] = []
    try reader.withStatement(sql) { (statement) throws(StrataError) in
      while try statement.step() {
        rows.append(
          .array(
            (0..<statement.columnCount).map { column in
              switch statement.cell(column) {
              case .null: return .null
              case .integer(let value): return .int(value)
              case .real(let value): return .double(value)
              case .text(let text): return .string(text)
              case .blob(let bytes):
                let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
                return ["blob": .string(hex)]
              }
            }))
      }
    }
    #expect(sameJSON(.array(rows), step["rows"] ?? .null), "\(label): \(sql) gave \(JSON.array(rows))")
  } else if step["reopen"] == .bool(true) {
    context.close()
    context = try openGraph(schema, path, cache: cache)
  } else if case .object(let models)? = step["expect"] {
    for (model, expected) in models {
      let actual = JSON.array(try context.all(model).map(\.model.dictionary))
      #expect(sameJSON(actual, expected), "\(label): \(model) is \(actual)")
    }
  } else {
    Issue.record("\(label): unknown step \(step)")
  }
}
