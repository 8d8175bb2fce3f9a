// Exercises the public Swift API the way an app does: Codable structs through
// the schema, Encodable values back to models, Date and URL through
// StrataFoundation, the one family of names, and the object graph (module
// StrataGraph) in memory and on a file. Prints one line per check
// and a closing "N passed, N failed"; exits 1 when a check fails.
import Foundation
import Strata
import StrataFoundation
import StrataGraph

let schemaText = """
  {"strata": 1, "models": {
    "GHIssue": {"keys": "snake_case", "properties": {
      "number": {"type": "int", "required": true},
      "title": {"type": "string", "required": true},
      "state": {"type": "string", "enum": {"open": "OPEN", "closed": "CLOSED"}},
      "reporterLogin": {"type": "string?", "json": "user.login"},
      "labels": {"type": "[GHLabel]", "default": []},
      "createdAt": {"type": "date"},
      "htmlURL": {"type": "url?"},
      "score": {"type": "int?", "validate": {"min": 0, "max": 10}}}},
    "GHLabel": {"properties": {"name": {"type": "string", "required": true}}}}}
  """

enum State: String, Codable { case open = "OPEN", closed = "CLOSED" }
struct GHLabel: Codable, Equatable { var name: String }
struct GHIssue: Codable {
  var number: Int
  var title: String
  var state: State?
  var reporterLogin: String?
  var labels: [GHLabel]
  var createdAt: Date?
  var htmlURL: URL?
  var score: Int?
}

let issueJSON: JSON = [
  "number": 7, "title": "Crash", "state": "open", "user": ["login": "mona"], "labels": [["name": "bug"]],
  "created_at": "2024-06-19T16:02:11+02:00", "html_url": "https://github.com/o/r/issues/7",
]

var passed = 0
var failed = 0
@MainActor func check(_ condition: @autoclosure () throws -> Bool, _ what: String) {
  do {
    if try condition() {
      passed += 1
      print("ok    \(what)")
      return
    }
    print("FAIL  \(what)")
  } catch {
    print("FAIL  \(what): \(error)")
  }
  failed += 1
}
func errors(_ body: () throws -> Void) -> [ErrorDetail] {
  do {
    try body()
    return []
  } catch let error as StrataError {
    return error.errors
  } catch {
    return [ErrorDetail(path: "", code: .io, message: "\(error)")]
  }
}

do {
  let schema = try Schema(parsing: schemaText)
  check(
    try Schema(parsing: Array(schemaText.utf8)).modelNames == schema.modelNames,
    "Schema(parsing:) text and bytes")

  // Typed: decode through the schema.
  let issue = try schema.decode(GHIssue.self, from: issueJSON)
  check(issue.state == .open && issue.reporterLogin == "mona", "decode(_:from:): enum and key path")
  check(issue.labels == [GHLabel(name: "bug")], "decode(_:from:): nested models in an array")
  check(
    issue.createdAt == Date(timeIntervalSince1970: 1_718_805_731),
    "StrataFoundation: Date from a date property")
  check(issue.htmlURL?.host == "github.com", "StrataFoundation: URL from a url property")
  let viaText = try schema.decode(GHIssue.self, parsing: issueJSON.description)
  check(viaText.number == 7, "decode(_:parsing:)")
  let many = try schema.decodeMany(GHIssue.self, from: [issueJSON, issueJSON])
  check(many.count == 2, "decodeMany(_:from:)")
  let model = try schema.map("GHIssue", from: issueJSON)
  check(try model.decode(GHIssue.self).title == "Crash", "model.decode(_:)")
  check(model.date("createdAt") == issue.createdAt, "model.date(_:)")

  // Errors keep their paths into the JSON.
  struct WrongLogin: Decodable { var reporterLogin: Int }
  let wrong = errors { _ = try schema.decode(WrongLogin.self, model: "GHIssue", from: issueJSON) }
  check(
    wrong.first?.path == "/user/login" && wrong.first?.code == .type, "a Swift type mismatch at its JSON path"
  )
  let bad = errors { _ = try schema.decode(GHIssue.self, from: ["number": "7", "labels": [[:]]]) }
  check(Set(bad.map(\.path)) == ["/number", "/title", "/labels/0/name"], "schema errors at their JSON paths")

  // Encodable values become models, validated as canonical input.
  var edited = issue
  edited.title = "Crash on launch"
  edited.createdAt = Date(timeIntervalSince1970: 0)
  let back = try schema.model(from: edited)
  check(back["createdAt"] == "1970-01-01T00:00:00Z", "model(from:): Date written as the canonical string")
  check(try back.json["user"] == ["login": "mona"], "model(from:) serializes through the schema")
  edited.score = 11
  let invalid = errors { _ = try schema.model("GHIssue", from: edited) }
  check(invalid.map(\.code) == [.validation] && invalid.first?.path == "/score", "model(_:from:) validates")

  // The one family of names, and the dynamic Model API.
  var dynamic = try schema.map("GHIssue", parsing: #"{"number": 1, "title": "t"}"#)
  try dynamic.update(from: ["title": "u"])
  check(dynamic["title"] == "u", "map(_:parsing:), update(from:)")
  check(try schema.unarchive(from: dynamic.archive()) == dynamic, "unarchive(from:)")
  check(try schema.mapMany("GHIssue", from: [["number": 1, "title": "t"]]).count == 1, "mapMany(_:from:)")
  check(
    try schema.mapResponse("GHIssue", from: [["number": 1, "title": "t"]]).count == 1, "mapResponse(_:from:)")
  check(try JSON(parsing: Array("[1]".utf8)) == [1], "JSON(parsing:) bytes")
  check(try Timestamp(parsing: "1970-01-01T00:00:01Z") == Timestamp(seconds: 1), "Timestamp(parsing:)")
} catch {
  print("FAIL  unexpected error: \(error)")
  failed += 1
}

// The object graph: its own module, in the same library product.
let graphSchemaText = """
  {"strata": 1, "models": {
    "User": {"primaryKey": "id", "properties": {
      "id": {"type": "int"}, "login": {"type": "string"},
      "posts": {"type": "[Post]", "inverse": "author", "json": false}}},
    "Post": {"primaryKey": "id", "root": "data.posts", "properties": {
      "id": {"type": "int"}, "title": {"type": "string"},
      "author": {"type": "User?", "inverse": "posts"}}}}}
  """
do {
  let schema = try Schema(parsing: graphSchemaText)
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swift-consumer-\(getpid())")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  let path = folder.appendingPathComponent("graph.db").path
  for context in [try Context(schema: schema), try Context(schema: schema, path: path)] {
    let posts = #"[{"id": 1, "title": "a", "author": {"id": 7, "login": "ann"}}, {"id": 2, "author": 7}]"#
    let result = try context.import("Post", parsing: #"{"data": {"posts": "# + posts + "}}")
    check(result.created == ["Post": 2, "User": 1], "Context.import(_:parsing:) created")
    let ann = try result.records[1].one("author")
    check(try ann?.related("posts").map(\.key) == [1, 2], "Record.one, Record.related")
    let newest = try context.query("Post", where: ["author.login": "ann"], orderBy: ["-id"])
    check(newest.map(\.key) == [2, 1], "query(_:where:orderBy:)")
    check(try context.count("Post", where: ["id": [">=": 2]]) == 1, "count(_:where:)")
  }
  // the file holds the graph: a new context reads it back
  check(try Context(schema: schema, path: path).count("User") == 1, "Context(schema:path:) reopened")
} catch {
  print("FAIL  unexpected graph error: \(error)")
  failed += 1
}

print("swift-consumer: \(passed) passed, \(failed) failed")
if failed > 0 { exit(1) }
