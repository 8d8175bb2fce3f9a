import Foundation
import Testing

/// docs/architecture.md, "Which folder uses which": the engine's folders and
/// the folders each one may use (a type declared at the top level of a file
/// in one folder, named in a file of another). The table is the map: an
/// arrow the code adds without a line here fails, and so does a line here
/// that the code no longer needs, so the map stays true both ways.
///
/// The graph (`Graph/`: all of `Sources/StrataGraph`, its own module) is the
/// top of the engine: no other folder names its types (module Strata cannot:
/// it does not depend on StrataGraph). A model shows a record through `RecordIdentity` (Model/) and the
/// mapper sets relationship values aside through `RelationHolder`
/// (Mapping/); the graph's types conform to both.
private let allowedUses: [String: Set<String>] = [
  "Runtime": [],
  "JSON": ["Errors"],
  "Errors": ["JSON", "Schema"],  // an error's path names the model type it is in (ErrorPath)
  "Dates": ["JSON"],
  "Schema": [
    "Archives", "Changes", "Dates", "Errors", "JSON", "Mapping", "Model", "Parse", "Responses",
    "Serialization",
  ],
  "Mapping": ["Dates", "Errors", "JSON", "Model", "Parse", "Runtime", "Schema"],
  "Model": ["Dates", "Errors", "JSON", "Mapping", "Schema", "Serialization"],
  "Serialization": ["Dates", "Errors", "JSON", "Mapping", "Model", "Schema"],
  "Changes": ["Errors", "JSON", "Mapping", "Model", "Runtime", "Schema", "Serialization"],
  "Archives": ["Changes", "Errors", "JSON", "Mapping", "Model", "Schema"],
  "Parse": ["Dates", "Errors", "JSON", "Mapping", "Model", "Responses", "Runtime", "Schema"],
  "Responses": ["Errors", "JSON", "Mapping", "Model", "Parse", "Schema"],
  "Lines": ["Errors", "JSON", "Mapping", "Model", "Parse", "Schema"],
  "Codable": ["Dates", "Errors", "JSON", "Model", "Runtime", "Schema"],
  "Graph": [
    "Archives", "Changes", "Dates", "Errors", "JSON", "Mapping", "Model", "Parse", "Responses", "Runtime",
    "Schema", "Serialization",
  ],
]

/// The repository's root, from this file's path.
private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The Swift files under `folder`, with their text.
private func swiftFiles(in folder: URL) throws -> [(path: String, text: String)] {
  let names = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
  return try names.filter { $0.hasSuffix(".swift") }.sorted().map { name in
    (name, try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
  }
}

/// The text without comments and string literals (so a name in a doc
/// comment or a message is not a use).
private func code(_ text: String) -> String {
  var out = ""
  for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
    var kept = line[...]
    if let comment = kept.range(of: "//") { kept = kept[..<comment.lowerBound] }
    out += kept.replacingOccurrences(of: #""(?:\\.|[^"\\])*""#, with: "\"\"", options: .regularExpression)
    out += "\n"
  }
  return out
}

/// The names of the types a file declares at its top level.
private func declaredTypes(_ text: String) -> [String] {
  let pattern =
    #"(?m)^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|indirect|nonisolated)\s+)*(?:struct|class|enum|protocol|typealias|actor)\s+([A-Z]\w*)"#
  guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
  let range = NSRange(text.startIndex..., in: text)
  return regex.matches(in: text, range: range).compactMap { match in
    Range(match.range(at: 1), in: text).map { String(text[$0]) }
  }
}

/// The capitalized names a file uses that are not members (`.Name`).
private func usedNames(_ text: String) -> Set<String> {
  guard let regex = try? NSRegularExpression(pattern: #"(?<![.\w])[A-Z]\w*\b"#) else { return [] }
  let range = NSRange(text.startIndex..., in: text)
  return Set(
    regex.matches(in: text, range: range).compactMap { match in
      Range(match.range, in: text).map { String(text[$0]) }
    })
}

/// The engine's folders by name: those of `Sources/Strata` (the mapping
/// engine, module Strata) and `Graph`, the whole of `Sources/StrataGraph`
/// (module StrataGraph, built on Strata, which cannot name its types).
private func engineFolders() throws -> [String: URL] {
  let sources = repositoryRoot.appendingPathComponent("Sources/Strata")
  var folders: [String: URL] = ["Graph": repositoryRoot.appendingPathComponent("Sources/StrataGraph")]
  for name in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
    var isFolder: ObjCBool = false
    let url = sources.appendingPathComponent(name)
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder.boolValue {
      folders[name] = url
    }
  }
  return folders
}

@Test func eachEngineFolderUsesOnlyTheFoldersTheMapAllows() throws {
  let locations = try engineFolders()
  let folders = locations.keys.sorted()
  #expect(Set(folders) == Set(allowedUses.keys), "the engine's folders and the map differ")
  var owner: [String: String] = [:]
  var files: [(folder: String, path: String, code: String)] = []
  for folder in folders {
    for file in try swiftFiles(in: locations[folder]!) {
      let stripped = code(file.text)
      files.append((folder, "\(folder)/\(file.path)", stripped))
      for name in declaredTypes(stripped) {
        if let other = owner[name], other != folder {
          Issue.record("\(name) is declared in both \(other)/ and \(folder)/")
        }
        owner[name] = folder
      }
    }
  }
  #expect(owner.count > 100, "found only \(owner.count) type declarations: the scan is broken")
  var used: [String: Set<String>] = [:]
  for file in files {
    for name in usedNames(file.code) {
      guard let target = owner[name], target != file.folder else { continue }
      used[file.folder, default: []].insert(target)
      if !(allowedUses[file.folder] ?? []).contains(target) {
        let message =
          "\(file.path) uses \(name) of \(target)/: \(file.folder)/ may not use \(target)/ "
          + "(docs/architecture.md, which folder uses which)"
        Issue.record(Comment(rawValue: message))
      }
    }
  }
  for (folder, allowed) in allowedUses {
    let stale = allowed.subtracting(used[folder] ?? [])
    #expect(
      stale.isEmpty,
      "the map lets \(folder)/ use \(stale.sorted()), which it no longer does: remove the arrows")
  }
}

@Test func testFoldersFollowTheSourceFolders() throws {
  let sources = try engineFolders().keys
  let tests = try FileManager.default.contentsOfDirectory(
    atPath: repositoryRoot.appendingPathComponent("Tests/StrataTests").path)
  // Conformance/ runs the language-neutral cases, Architecture/ these rules
  let extra = Set(tests).subtracting(sources).subtracting(["Conformance", "Architecture"])
  #expect(extra.isEmpty, "test folders without a source folder: \(extra.sorted())")
}
