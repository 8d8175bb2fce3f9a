import CJansson
import Strata
import StrataGraph
import Testing

/// A record read from a file for a get keeps its links as its targets'
/// keys until something follows them (`GraphRecord.unmadeLinks`): the get
/// makes no record for its author or its tags. The invariant: a context
/// read that way answers exactly what a context in memory given the same
/// imports answers (gets, relationships followed, counts), its graph
/// checks after every step (`check()`: each cached record's object shows
/// what its links hold, and the file's links), and changes made after a
/// get keep every inverse true. The generator mixes gets, relationships
/// followed both ways, imports that move posts and retag them, and
/// deletes, over caches of every size.
private let unmadeSchema = #"""
  {"strata": 1, "models": {
    "User": {"primaryKey": "id", "properties": {
      "id": {"type": "int"}, "login": {"type": "string"},
      "posts": {"type": "[Post]", "inverse": "author", "json": false}}},
    "Tag": {"primaryKey": "name", "properties": {
      "name": {"type": "string"},
      "posts": {"type": "[Post]", "inverse": "tags", "json": false}}},
    "Post": {"primaryKey": "id", "properties": {
      "id": {"type": "int"}, "title": {"type": "string"},
      "author": {"type": "User?", "inverse": "posts"}, "tags": {"type": "[Tag]", "inverse": "posts"}}}}}
  """#

@Test(arguments: 0..<8)
func aRecordReadForAGetAnswersWhatOneInMemoryAnswers(seed: UInt64) throws {
  let schema = try Schema(parsing: unmadeSchema)
  let directory = try TemporaryDirectory()
  let path = directory.path("unmade.db")
  var random = SeededRandom(seed: seed)
  func post(_ id: Int) -> String {
    let author = Int.random(in: 0..<5, using: &random)
    let tags = (0..<Int.random(in: 0...4, using: &random)).map { _ in
      #""t\#(Int.random(in: 0..<4, using: &random))""#
    }
    let authorText = author == 0 ? "null" : #"{"id": \#(author), "login": "u\#(author)"}"#
    return
      #"{"id": \#(id), "title": "p\#(id)", "author": \#(authorText), "tags": [\#(tags.joined(separator: ", "))]}"#
  }
  let first = "[" + (1...12).map { post($0) }.joined(separator: ", ") + "]"
  let reference = try Context(schema: schema)
  _ = try reference.import("Post", parsing: first)
  do {
    let writer = try Context(schema: schema, path: path)
    _ = try writer.import("Post", parsing: first)
    writer.close()
  }
  let cold = try Context(schema: schema, path: path)
  defer { cold.close() }
  try cold.setCacheLimit([0, 1, 3, 1000][Int(seed % 4)])

  // the record's own values, relationships as keys (a nested dictionary
  // would follow them, making the links this test wants left as keys)
  func text(_ record: Record?) -> String { record.map { "\($0.model)" } ?? "none" }
  func keys(_ records: [Record]) -> [String] { records.map { "\($0.key)" } }
  func randomKey(_ model: String) -> JSON {
    switch model {
    case "User": return JSON.int(Int64(Int.random(in: 1..<5, using: &random)))
    case "Tag": return JSON.string("t\(Int.random(in: 0..<4, using: &random))")
    default: return JSON.int(Int64(Int.random(in: 1...14, using: &random)))
    }
  }
  let relations = ["Post": ["author", "tags"], "User": ["posts"], "Tag": ["posts"]]
  for step in 0..<80 {
    let model = ["Post", "User", "Tag"].randomElement(using: &random) ?? "Post"
    let key = randomKey(model)
    let place = "seed \(seed) step \(step): \(model) \(key)"
    switch Int.random(in: 0..<10, using: &random) {
    case 0..<4:
      #expect(text(try cold.get(model, key: key)) == text(try reference.get(model, key: key)), "\(place)")
    case 4..<7:
      // a relationship followed from a record got cold, and back
      let got = try cold.get(model, key: key)
      let expected = try reference.get(model, key: key)
      #expect(text(got) == text(expected), "\(place)")
      if let got, let expected, let property = relations[model]?.randomElement(using: &random) {
        let found = try got.related(property)
        #expect(keys(found) == keys(try expected.related(property)), "\(place) through \(property)")
        for target in found {
          let expectedTarget = try reference.get(target.name, key: target.key)
          #expect(text(target) == text(expectedTarget), "\(place) through \(property)")
        }
      }
    case 7..<9:
      // a change after gets: a post moves to another author and is retagged
      let changed = "[" + post(Int.random(in: 1...14, using: &random)) + "]"
      _ = try reference.import("Post", parsing: changed)
      _ = try cold.import("Post", parsing: changed)
    default:
      if let got = try cold.get(model, key: key), let expected = try reference.get(model, key: key) {
        try cold.delete(got)
        try reference.delete(expected)
      }
    }
    #expect(throws: Never.self, "\(place)") { try cold.check() }
    for name in ["Post", "User", "Tag"] {
      #expect(try cold.count(name) == reference.count(name), "\(place): the number of \(name)")
    }
  }
  for name in ["Post", "User", "Tag"] {
    #expect(try cold.all(name).map(text) == reference.all(name).map(text), "seed \(seed): every \(name)")
  }
}

/// A cold get of a post holds the post alone: no record is made for its
/// author or its tags until the relationship is followed.
@Test func aColdGetMakesNoRecordForWhatItLinksTo() throws {
  let schema = try Schema(parsing: unmadeSchema)
  let directory = try TemporaryDirectory()
  let path = directory.path("alone.db")
  do {
    let writer = try Context(schema: schema, path: path)
    _ = try writer.import(
      "Post", parsing: #"[{"id": 1, "title": "a", "author": {"id": 7, "login": "ann"}, "tags": ["x", "y"]}]"#)
    writer.close()
  }
  let cold = try Context(schema: schema, path: path)
  defer { cold.close() }
  let got = try #require(try cold.get("Post", key: .int(1)))
  #expect(got["author"] == .int(7))
  #expect(got["tags"] == .array([.string("x"), .string("y")]))
  #expect(cold.engine.cacheCounts.all == 1)
  #expect(cold.engine.cacheCounts.read == 1)
  // followed: the targets are read then
  #expect(try got.one("author")?["login"] == .string("ann"))
  #expect(try got.related("tags").map(\.key) == [.string("x"), .string("y")])
  #expect(cold.engine.cacheCounts.read == 4)
  try cold.check()
}
