import Foundation
import Strata
import StrataGraph
import Testing

// Several contexts on one file: each sees what the others committed, and a
// change builds on it (the file's write lock is held from the moment a
// context brings its memory up to date until it commits).

@Test func aContextSeesWhatAnotherCommitted() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("blog.db")
  let schema = try Schema(parsing: blogSchemaText)
  let first = try Context(schema: schema, path: path)
  let second = try Context(schema: schema, path: path)
  _ = try first.import("Post", parsing: #"{"id": 1, "title": "a", "author": {"id": 7, "name": "Ann"}}"#)
  #expect(try second.count("Post") == 1)
  let ann = try #require(try second.get("User", key: 7))
  _ = try first.import("Post", parsing: #"{"id": 2, "title": "b", "author": 7}"#)
  // the handle taken before follows the record as it is now
  #expect(try ann.related("posts").map(\.key) == [1, 2])
  #expect(try second.get("Post", key: 2)?["title"] == "b")
  try first.delete(try #require(try first.get("Post", key: 1)))
  #expect(try second.get("Post", key: 1) == nil)
  #expect(try ann.related("posts").map(\.key) == [2])
  try second.check()
}

@Test func twoContextsImportingByTurnsLoseNothing() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("blog.db")
  let schema = try Schema(parsing: blogSchemaText)
  let first = try Context(schema: schema, path: path)
  let second = try Context(schema: schema, path: path)
  for id in 1...40 {
    let context = id % 2 == 0 ? first : second
    _ = try context.import("Post", parsing: #"{"id": \#(id), "author": {"id": 7, "name": "Ann"}}"#)
  }
  // the crash of the first report: one deletes, the other imports by the same author
  try first.delete(try #require(try first.get("Post", key: 1)))
  _ = try second.import("Post", parsing: #"{"id": 41, "author": 7}"#)
  first.close()
  second.close()
  let reopened = try Context(schema: schema, path: path)
  try reopened.check()
  #expect(try reopened.count("Post") == 40)
  #expect(
    try reopened.get("User", key: 7)?.related("posts").map(\.key) == (2...41).map { JSON.int(Int64($0)) })
}

@Test func threadsWithTheirOwnContextsOnOneFileLoseNothing() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("blog.db")
  let schema = try Schema(parsing: blogSchemaText)
  _ = try Context(schema: schema, path: path)  // makes the file
  let failures = Failures()
  DispatchQueue.concurrentPerform(iterations: 4) { worker in
    do {
      let context = try Context(schema: schema, path: path)
      for round in 0..<25 {
        let id = worker * 100 + round
        _ = try context.import(
          "Post", parsing: #"{"id": \#(id), "author": {"id": 7}, "tags": ["t\#(round % 3)"]}"#)
      }
      context.close()
    } catch {
      failures.add("\(error)")
    }
  }
  #expect(failures.all.isEmpty, "\(failures.all)")
  let reopened = try Context(schema: schema, path: path)
  try reopened.check()
  #expect(try reopened.count("Post") == 100)
  #expect(try reopened.get("User", key: 7)?.related("posts").count == 100)
}

/// Errors collected from several threads.
private final class Failures: @unchecked Sendable {
  private let lock = NSLock()
  private var list: [String] = []
  func add(_ failure: String) { lock.withLock { list.append(failure) } }
  var all: [String] { lock.withLock { list } }
}
