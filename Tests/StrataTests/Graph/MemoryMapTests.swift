import Foundation
import Strata
import StrataGraph
import Testing

// A context may read its file through a memory map (`setMemoryMap`, SQLite's
// mmap_size). The invariant: what a mapped context reads is what a context
// reading with pread reads, after every step, while the file grows past the
// map and while SQLite itself cuts it short (a VACUUM by another program).

/// Every post's title and author, and every user's posts, as `context` reads them.
private func everything(_ context: Context) throws -> [String] {
  let posts = try context.all("Post").map { post in
    "post \(post.key): \(post["title"]?.description ?? "-") by \(try post.one("author")?.key.description ?? "-")"
  }
  let users = try context.all("User").map { user in
    "user \(user.key): \(try user.related("posts").map(\.key.description).joined(separator: ","))"
  }
  return posts + users
}

@Test func theMemoryMapIsAskedReadAndTurnedOff() throws {
  let directory = try TemporaryDirectory()
  let schema = try Schema(parsing: blogSchemaText)
  let context = try Context(schema: schema, path: directory.path("blog.db"))
  #expect(try context.memoryMap() == 0)
  try context.setMemoryMap(1 << 26)
  #expect(try context.memoryMap() == 1 << 26)
  _ = try context.import("Post", parsing: #"{"id": 1, "title": "a", "author": {"id": 1, "name": "u"}}"#)
  #expect(try context.get("Post", key: 1)?["title"] == "a")
  try context.setMemoryMap(0)
  #expect(try context.memoryMap() == 0)
  #expect(throws: StrataError.self) { try context.setMemoryMap(-1) }
  // inside a read block the snapshot holds pages of the map: refused
  try context.beginReading()
  let refused = #expect(throws: StrataError.self) { try context.setMemoryMap(1 << 20) }
  #expect(refused?.code == .argument)
  #expect(refused?.description.contains("read block") == true)
  try context.endReading()
  try context.setMemoryMap(1 << 20)
  #expect(try context.memoryMap() == 1 << 20)
  context.close()
  #expect(throws: StrataError.self) { try context.setMemoryMap(1 << 20) }
  #expect(throws: StrataError.self) { try context.memoryMap() }
  // in memory nothing is mapped
  let memory = try Context(schema: schema)
  try memory.setMemoryMap(1 << 20)
  #expect(try memory.memoryMap() == 0)
}

@Test(arguments: 0..<3)
func aMappedContextReadsWhatPreadReads(seed: UInt64) throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("blog.db")
  let schema = try Schema(parsing: blogSchemaText)
  let writer = try Context(schema: schema, path: path)
  let mapped = try Context(schema: schema, path: path)
  // a map smaller than the file will be: pages past it are read with pread
  try mapped.setMemoryMap(64 * 1024)
  try mapped.setCacheLimit(seed % 2 == 0 ? 0 : 20)  // every read from the file, or a few cached
  var random = SeededRandom(seed: seed)
  let filler = String(repeating: "x", count: 300)
  var shortened = 0
  func size() throws -> Int { try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 }
  for step in 0..<60 {
    switch Int.random(in: 0..<10, using: &random) {
    case 0...4:
      // the file grows: a page of posts with long titles
      let first = Int.random(in: 1...400, using: &random)
      let posts = (first..<first + 40).map { id in
        let author = Int.random(in: 1...6, using: &random)
        return
          #"{"id": \#(id), "title": "\#(filler) \#(step)", "author": {"id": \#(author), "name": "u\#(author)"}}"#
      }
      _ = try writer.import("Post", parsing: "[" + posts.joined(separator: ",") + "]")
    case 5:
      // the mapped context writes
      let id = Int.random(in: 1...400, using: &random)
      _ = try mapped.import("Post", parsing: #"{"id": \#(id), "title": "m\#(step)", "author": 3}"#)
    case 6:
      if let post = try writer.get("Post", key: .int(Int64(Int.random(in: 1...400, using: &random)))) {
        try writer.delete(post)
      }
    case 7:
      // another program shortens every title and has SQLite cut the file short
      Thread.sleep(forTimeInterval: 0.012)  // the contexts' open reads end
      let sqlite = try SQLiteConnection(path: path)
      try sqlite.execute("PRAGMA wal_checkpoint(TRUNCATE)")
      let before = try size()
      try sqlite.execute(#"UPDATE "Post" SET "title" = substr("title", 1, 3)"#)
      try sqlite.execute("VACUUM")
      try sqlite.execute("PRAGMA wal_checkpoint(TRUNCATE)")
      sqlite.close()
      if try size() < before { shortened += 1 }
    case 8:
      // the log's pages are copied into the file, where the map reads them
      Thread.sleep(forTimeInterval: 0.012)
      let sqlite = try SQLiteConnection(path: path)
      try sqlite.execute("PRAGMA wal_checkpoint(TRUNCATE)")
      sqlite.close()
    default:
      break
    }
    let plain = try Context(schema: schema, path: path)
    let expected = try everything(plain)
    plain.close()
    #expect(try everything(mapped) == expected, "step \(step)")
    try mapped.check()
  }
  #expect(try mapped.memoryMap() == 64 * 1024)
  #expect(shortened > 0, "the file was never cut short under the map")
}
