import Foundation
import Strata
import StrataGraph
import Testing

/// `count` posts by 50 authors with tags from a pool of 30, as JSON text:
/// more records than `ReleaseAside.from`, so closing lets go of them aside.
private func manyPosts(_ count: Int, from first: Int = 1) -> String {
  let posts = (first..<first + count).map { id in
    #"{"id": \#(id), "title": "t\#(id)", "author": {"id": \#(id % 50), "name": "u\#(id % 50)"}, "#
      + #""tags": ["a\#(id % 30)", "b\#(id % 7)"]}"#
  }
  return "[" + posts.joined(separator: ",") + "]"
}

/// Waits (up to 30 s) until every one of `records`' graph records is freed,
/// which the helper thread does once a large graph is closed.
private func waitUntilFreed(_ records: [WeakRecord]) -> Bool {
  for _ in 0..<3000 {
    if records.allSatisfy({ $0.record == nil }) { return true }
    usleep(10_000)
  }
  return false
}

/// A weak reference to a record's graph record.
private struct WeakRecord {
  weak var record: (any RecordIdentity)?
}

/// Closing (or dropping) a context of many records hands its graph to a
/// helper thread to free: every record handle the host holds still reads
/// as it did before the close, follows no relationship (the context is
/// closed), and the graph records themselves are freed (nothing leaks).
@Test(arguments: [false, true])
func aLargeGraphLetGoOfAsideKeepsHeldHandlesReadable(inFile: Bool) throws {
  let directory = try TemporaryDirectory()
  let schema = try Schema(parsing: blogSchemaText)
  var weak: [WeakRecord] = []
  var held: [Record] = []
  var before: [JSON] = []
  do {
    let context = try Context(schema: schema, path: inFile ? directory.path("many.db") : nil)
    let result = try context.import("Post", parsing: manyPosts(5000))
    #expect(result.created == ["Post": 5000, "User": 50, "Tag": 37])
    // every tenth post held by the host, with its values as they are now
    for (index, record) in result.records.enumerated() where index % 10 == 0 {
      held.append(record)
      before.append(try record.model.json)
    }
    weak = result.records.map { WeakRecord(record: $0.model.object.recordTie?.record) }
    #expect(weak.allSatisfy { $0.record != nil })
    context.close()
    // read at once, while the helper frees the graph
    for (record, json) in zip(held, before) { #expect(try record.model.json == json) }
  }
  let freed = waitUntilFreed(weak)
  #expect(freed, "the graph of a closed context was not freed")
  for (record, json) in zip(held, before) {
    #expect(try record.model.json == json)
    #expect(throws: StrataError.self) { try record.related("tags") }
  }
}

/// Several large contexts closed and dropped at once, from several
/// threads, past the helpers' limit (`ReleaseAside.most`): the graphs left
/// in place and those let go of aside are all freed, and the handles kept
/// read as before.
@Test func manyLargeGraphsLetGoOfAtOnceAreAllFreed() throws {
  let schema = try Schema(parsing: blogSchemaText)
  let text = manyPosts(4500)
  final class Outcome: @unchecked Sendable {
    let lock = NSLock()
    var weak: [WeakRecord] = []
    var held: [(Record, JSON)] = []
    var failures: [String] = []
  }
  let outcome = Outcome()
  DispatchQueue.concurrentPerform(iterations: 5) { round in
    do {
      let context = try Context(schema: schema)
      let records = try context.import("Post", parsing: text).records
      let weak = records.map { WeakRecord(record: $0.model.object.recordTie?.record) }
      outcome.lock.lock()
      outcome.weak += weak
      outcome.lock.unlock()
      // odd rounds close and keep a handle; even rounds only drop the
      // context (a handle would keep it open)
      if round % 2 == 1 {
        let kept = records[round * 10]
        outcome.lock.lock()
        outcome.held.append((kept, try kept.model.json))
        outcome.lock.unlock()
        context.close()
      }
    } catch {
      outcome.lock.lock()
      outcome.failures.append("\(error)")
      outcome.lock.unlock()
    }
  }
  #expect(outcome.failures.isEmpty, "\(outcome.failures)")
  let freed = waitUntilFreed(outcome.weak)
  #expect(freed, "a graph let go of was not freed")
  for (record, json) in outcome.held { #expect(try record.model.json == json) }
}
