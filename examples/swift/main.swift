// Maps the bundled GitHub issues response with the Swift API and prints the
// models back. Run from the repository root: swift run swift-example
import Glibc
import Strata
import StrataGraph

/// The typed way: Codable structs read by property name (the schema does the
/// JSON keys, key paths, enums and dates).
struct GHLabel: Codable {
  var name: String
}

struct GHIssue: Codable {
  var number: Int
  var title: String
  var state: String?
  var reporterLogin: String?
  var labels: [GHLabel]
  var createdAt: Timestamp?
}

let arguments = CommandLine.arguments
let schemaPath = arguments.count > 1 ? arguments[1] : "examples/github/schema.json"
let issuesPath = arguments.count > 2 ? arguments[2] : "examples/github/issues.json"

do {
  let schema = try Schema(contentsOfFile: schemaPath)
  print("schema \(schemaPath): models \(schema.modelNames.joined(separator: ", "))")

  // The response is an array of issues: decode them all at once as structs.
  let response = try JSON(parsing: try readFile(issuesPath))
  for issue in try schema.decodeMany(GHIssue.self, from: response) {
    let labels = issue.labels.map(\.name).joined(separator: ", ")
    print("#\(issue.number) \(issue.title) [\(labels)] opened \(issue.createdAt.map { "\($0)" } ?? "-")")
  }

  // Or as models, read by property name.
  let issues = try schema.mapMany("GHIssue", from: response)
  for issue in issues {
    let number = issue["number"] ?? .null
    let title = issue["title"] ?? .null
    let state = issue["state"] ?? .null
    let reporter = issue["reporterLogin"] ?? .null
    print("#\(number) [\(state)] \(title) (by \(reporter))")
  }
  if let first = issues.first {
    print("\ncanonical dictionary of the first issue:")
    print(first.dictionary.serialized(indent: 2))
    print("\nserialized back to JSON:")
    print(try first.json.serialized(indent: 2))
  }

  // Bad input: every error is reported, each naming its place.
  print("\nmapping a broken issue:")
  do {
    _ = try schema.map(
      "GHIssue", from: ["number": "12", "title": nil, "html_url": "not a url", "labels": [["id": 1]]])
  } catch {
    for detail in error.errors { print("  \(detail)") }
  }
} catch {
  print("error: \(error)")
}

/// The bytes of a file, read without Foundation.
func readFile(_ path: String) throws(StrataError) -> [UInt8] {
  guard let file = fopen(path, "rb") else {
    throw StrataError([ErrorDetail(path: "", code: .io, message: "cannot open \(path)")])
  }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
    bytes += chunk[0..<count]
    if count < chunk.count { break }
  }
  return bytes
}
