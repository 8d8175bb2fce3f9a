import Strata
import StrataGraph
import Testing

/// A small seeded generator (SplitMix64), so a failing seed can be replayed.
struct SeededRandom: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

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
