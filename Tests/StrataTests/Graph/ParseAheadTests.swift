import Strata
import StrataGraph
import Testing

/// A page of posts as JSON text: repeated authors (objects, with changing
/// names, or bare keys), tags as names; `broken` puts a post with a key of
/// the wrong type somewhere, `cut` ends the text early.
func randomPostsText(_ random: inout SeededRandom, count: Int, broken: Bool, cut: Bool) -> String {
  let wrong = broken ? Int.random(in: 0..<max(count, 1), using: &random) : -1
  var posts: [String] = []
  for index in 0..<count {
    let id = index == wrong ? #""x""# : String(Int.random(in: 1...3000, using: &random))
    let user = Int.random(in: 1...40, using: &random)
    let author =
      Bool.random(using: &random)
      ? String(user) : #"{"id": \#(user), "name": "u\#(user)-\#(Int.random(in: 0...2, using: &random))"}"#
    let tags = (0..<Int.random(in: 0...3, using: &random)).map { _ in
      #""t\#(Int.random(in: 0...9, using: &random))""#
    }
    posts.append(
      #"{"id": \#(id), "title": "p\#(Int.random(in: 0...5, using: &random))", "author": \#(author), "tags": [\#(tags.joined(separator: ", "))]}"#
    )
  }
  let text = "[" + posts.joined(separator: ",\n") + "]"
  guard cut, text.utf8.count > 2 else { return text }
  return String(
    decoding: text.utf8.prefix(Int.random(in: 1..<text.utf8.count, using: &random)), as: UTF8.self)
}

/// Every record of `models` in `context` (whether a stub, and its values
/// with relationships as keys), in key order.
func graphDump(_ context: Context, _ models: [String]) throws -> [String: [String]] {
  var dump: [String: [String]] = [:]
  for model in models { dump[model] = try context.all(model).map { "\($0.isStub) \(try $0.dictionary)" } }
  return dump
}

/// A long page is parsed on a helper thread, windows of 256 elements ahead
/// of its import (`GraphContext.parseAheadBytes`). The invariant: every
/// page gives the graph (or the error) it gives parsed in place, element
/// by element, into memory and into files whose cache reads ahead.
@Test(arguments: 0..<4)
func pagesParsedAheadOnAHelperThreadEndAsParsedInPlace(seed: UInt64) throws {
  let schema = try Schema(parsing: blogSchemaText)
  let directory = try TemporaryDirectory()
  let inPlace = try Context(schema: schema)
  inPlace.engine.parseAheadBytes = Int.max
  let ahead = try Context(schema: schema)
  ahead.engine.parseAheadBytes = 0
  let filePath = directory.path("ahead.db")
  let file = try Context(schema: schema, path: filePath)
  file.engine.parseAheadBytes = 0
  try file.setCacheLimit(3)  // reads the records of each window ahead
  file.engine.store?.writeOverlapFrom = 0  // and makes its rows while writing them
  let others = [ahead, file]
  var random = SeededRandom(seed: seed)
  for _ in 0..<8 {
    let count = [0, 1, 255, 256, 257, 700].randomElement(using: &random) ?? 1
    let text = randomPostsText(
      &random, count: count, broken: Int.random(in: 0..<5, using: &random) == 0,
      cut: Int.random(in: 0..<6, using: &random) == 0)
    var want: StrataError? = nil
    do { _ = try inPlace.import("Post", parsing: text) } catch { want = error }
    for context in others {
      do {
        _ = try context.import("Post", parsing: text)
        #expect(want == nil, "seed \(seed): parsed ahead, the page imported where in place it failed")
      } catch {
        #expect(want?.errors.map(\.code) == error.errors.map(\.code), "seed \(seed)")
        #expect(want?.errors.map(\.path) == error.errors.map(\.path), "seed \(seed)")
      }
    }
  }
  let models = ["User", "Post", "Tag"]
  let expected = try graphDump(inPlace, models)
  #expect((expected["Post"]?.count ?? 0) > 256)
  for context in others {
    #expect(try graphDump(context, models) == expected, "seed \(seed)")
    try context.check()
  }
  file.close()
  let reopened = try Context(schema: schema, path: filePath)
  #expect(try graphDump(reopened, models) == expected, "seed \(seed)")
}

/// A page under a response's root is read element by element too
/// (`PrunedParser.forEachElement(root:)`), the other members skipped. The
/// invariant: every response gives the records and errors (codes and
/// paths) of the same response imported as a JSON value (the whole-text
/// path), whatever surrounds the array: members before and after it, a key
/// written with escapes, the root's key given twice (the last wins), null,
/// a single object or nothing there, a cut text.
@Test(arguments: 0..<4)
func pagesUnderARootEndAsTheWholeResponseGives(seed: UInt64) throws {
  let schema = try Schema(parsing: blogSchemaText)
  let streamed = try Context(schema: schema)
  streamed.engine.parseAheadBytes = seed % 2 == 0 ? 0 : Int.max
  let whole = try Context(schema: schema)
  var random = SeededRandom(seed: seed)
  let roots: [(root: String, keys: [String])] = [
    ("data.posts", ["data", "posts"]), ("posts", ["posts"]), ("/a.b/c", ["a.b", "c"]),
  ]
  func junk() -> String {
    [#"1"#, #""x\"y""#, #"{"posts": [1, 2], "data": {"posts": null}}"#, #"[[], {}, "\u00e9"]"#, "null"]
      .randomElement(using: &random) ?? "1"
  }
  for round in 0..<40 {
    let (root, keys) = roots.randomElement(using: &random) ?? roots[0]
    let posts = randomPostsText(
      &random, count: [0, 1, 3, 40, 300].randomElement(using: &random) ?? 1,
      broken: Int.random(in: 0..<6, using: &random) == 0, cut: false)
    var value: String
    switch Int.random(in: 0..<10, using: &random) {
    case 0: value = "null"
    case 1: value = #"{"id": 5, "title": "single"}"#
    default: value = posts
    }
    for (level, key) in keys.enumerated().reversed() {
      let spelled = key == "posts" && Bool.random(using: &random) ? #"p\u006fsts"# : key
      var members = [#""\#(spelled)": \#(value)"#]
      for _ in 0..<Int.random(in: 0...2, using: &random) {
        members.insert(#""k\#(Int.random(in: 0...9, using: &random))": \#(junk())"#, at: 0)
      }
      for _ in 0..<Int.random(in: 0...2, using: &random) { members.append(#""z": \#(junk())"#) }
      if level == keys.count - 1 && Int.random(in: 0..<8, using: &random) == 0 {
        members.append(#""\#(key)": [{"id": 77, "title": "last wins"}]"#)  // given twice
      }
      if Int.random(in: 0..<12, using: &random) == 0 { members.removeAll { $0.contains(#""\#(spelled)""#) } }
      value = "{" + members.joined(separator: ", ") + "}"
    }
    var text = value
    if Int.random(in: 0..<10, using: &random) == 0 {
      text = String(
        decoding: text.utf8.prefix(Int.random(in: 1..<text.utf8.count, using: &random)), as: UTF8.self)
    }
    var want: [String] = []
    var wantRecords: [JSON] = []
    do {
      let parsed = try JSON(parsing: text)
      wantRecords = try whole.import("Post", parsed, root: root).records.map(\.key)
    } catch {
      want = error.errors.map { "\($0.code) \($0.path)" }
    }
    do {
      let got = try streamed.import("Post", parsing: text, root: root).records.map(\.key)
      #expect(want.isEmpty, "seed \(seed) round \(round): imported where the whole response fails: \(text)")
      #expect(got == wantRecords, "seed \(seed) round \(round): \(text)")
    } catch {
      if want.first?.hasPrefix("syntax") == true {
        #expect(error.errors.first?.code == .syntax, "seed \(seed) round \(round)")
      } else {
        #expect(error.errors.map { "\($0.code) \($0.path)" } == want, "seed \(seed) round \(round): \(text)")
      }
    }
  }
  let models = ["User", "Post", "Tag"]
  #expect(try graphDump(streamed, models) == graphDump(whole, models), "seed \(seed)")
  try streamed.check()
}
