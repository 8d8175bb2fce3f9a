import Foundation
import Strata
import StrataGraph
import Testing

// A read call on a file leaves its read transaction open for the next call
// (GraphContext's lingering read, LingeringReads). Two invariants: a read
// never shows the file older than its last commit, whoever made it (another
// context, another program, the context itself); and an idle context holds
// no read transaction for long, so other connections' checkpoints can fold
// the log back.

/// Each post's title and author, and each user's posts, as `context` reads
/// them now.
private func snapshot(_ context: Context, posts: ClosedRange<Int>, users: ClosedRange<Int>) throws -> [String]
{
  var seen: [String] = []
  for id in posts {
    if let post = try context.get("Post", key: .int(Int64(id))) {
      let author = try post.one("author")?.key.description ?? "-"
      seen.append("post \(id): \(post["title"]?.description ?? "-") by \(author)")
    } else {
      seen.append("post \(id): none")
    }
  }
  for id in users {
    let posts = try context.get("User", key: .int(Int64(id)))?.related("posts").map(\.key.description)
    seen.append("user \(id): \(posts?.joined(separator: ",") ?? "none")")
  }
  return seen
}

@Test(arguments: 0..<4)
func aReadLeftOpenNeverHidesACommit(seed: UInt64) throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("blog.db")
  let schema = try Schema(parsing: blogSchemaText)
  let reader = try Context(schema: schema, path: path)
  let writer = try Context(schema: schema, path: path)
  var random = SeededRandom(seed: seed)
  _ = try writer.import("Post", parsing: #"[{"id": 1, "title": "t0", "author": {"id": 1, "name": "u1"}}]"#)
  var lingered = 0
  for step in 0..<120 {
    switch Int.random(in: 0..<10, using: &random) {
    case 0...2:
      // another context commits
      let id = Int.random(in: 1...8, using: &random)
      let author = Int.random(in: 1...3, using: &random)
      _ = try writer.import(
        "Post",
        parsing: #"{"id": \#(id), "title": "t\#(step)", "author": {"id": \#(author), "name": "u\#(author)"}}"#
      )
    case 3:
      // another program commits
      let sqlite = try SQLiteConnection(path: path)
      try sqlite.execute(#"UPDATE "Post" SET "title" = 'p\#(step)' WHERE "id" = 1"#)
      sqlite.close()
    case 4:
      // the reader itself commits
      let id = Int.random(in: 1...8, using: &random)
      _ = try reader.import("Post", parsing: #"{"id": \#(id), "title": "r\#(step)", "author": 2}"#)
    case 5:
      // past the idle time: the helper ends the open read
      Thread.sleep(forTimeInterval: 0.012)
    case 6:
      if let post = try writer.get("Post", key: .int(Int64(Int.random(in: 1...8, using: &random)))) {
        try writer.delete(post)
      }
    default:
      break
    }
    if reader.engine.holdsLingeringRead { lingered += 1 }
    // what the reader shows is what a context opened now shows
    let fresh = try Context(schema: schema, path: path)
    let expected = try snapshot(fresh, posts: 1...8, users: 1...3)
    fresh.close()
    #expect(try snapshot(reader, posts: 1...8, users: 1...3) == expected, "step \(step)")
    #expect(
      try reader.count("Post") == expected.filter { $0.hasPrefix("post") && !$0.hasSuffix("none") }.count)
  }
  // the reads did linger between calls (else this test tests nothing new)
  #expect(lingered > 0)
  try reader.check()
}

@Test func anIdleContextHoldsNoReadTransaction() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("blog.db")
  let schema = try Schema(parsing: blogSchemaText)
  try writeOnePost(schema, path)
  let reader = try Context(schema: schema, path: path)
  let writer = try Context(schema: schema, path: path)
  #expect(try reader.get("Post", key: 1)?["title"] == "a")
  // a commit of another connection; then nothing is called on the reader
  _ = try writer.import("Post", parsing: #"{"id": 2, "title": "b", "author": 7}"#)
  // within a few idle times, a checkpoint that must wait for every reader
  // (TRUNCATE: the whole log folded back and emptied) gets through
  var folded = false
  for _ in 0..<400 where !folded {
    folded = try !truncatingCheckpointIsBusy(path)
    if !folded { Thread.sleep(forTimeInterval: 0.005) }
  }
  #expect(folded)
  #expect(!reader.engine.holdsLingeringRead)
  // and the reader then reads the file as it is
  #expect(try reader.get("Post", key: 2)?["title"] == "b")
  reader.close()
  writer.close()
}

@Test func closingOrChangingEndsTheReadLeftOpen() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("blog.db")
  let schema = try Schema(parsing: blogSchemaText)
  try writeOnePost(schema, path)
  let reader = try Context(schema: schema, path: path)
  _ = try reader.get("Post", key: 1)
  // an import right after a read: its write transaction starts after the read ended
  _ = try reader.import("Post", parsing: #"{"id": 2, "title": "b", "author": 7}"#)
  #expect(!reader.engine.holdsLingeringRead)
  _ = try reader.get("User", key: 7)
  let counted = try reader.reading { () throws -> Int in
    #expect(!reader.engine.holdsLingeringRead)
    return try reader.count("Post")
  }
  #expect(counted == 2)
  _ = try reader.query("Post", JSON.object(["where": .object(["title": .string("b")])]))
  reader.close()
  #expect(!reader.engine.holdsLingeringRead)
  #expect(try !truncatingCheckpointIsBusy(path))
}

/// Writes one post by user 7 into a new file at `path`, and closes it.
private func writeOnePost(_ schema: Schema, _ path: String) throws {
  let context = try Context(schema: schema, path: path)
  _ = try context.import("Post", parsing: #"{"id": 1, "title": "a", "author": {"id": 7, "name": "Ann"}}"#)
  context.close()
}

/// True when a checkpoint that must wait for every reader (TRUNCATE: the
/// whole log folded back and emptied), run from a connection of its own
/// that waits for nobody, finds a reader in the way.
private func truncatingCheckpointIsBusy(_ path: String) throws -> Bool {
  let sqlite = try SQLiteConnection(path: path, busyTimeout: 0)
  defer { sqlite.close() }
  return try sqlite.withStatement("PRAGMA wal_checkpoint(TRUNCATE)") { (statement) throws(StrataError) in
    try statement.step() ? statement.int64(0) : 1
  } != 0
}
