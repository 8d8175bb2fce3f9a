import Foundation
import Strata
import Testing

/// The helper executable built beside this test binary (Tests/graph-crash-helper).
private func crashHelper() throws -> URL {
  let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
  let helper = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(
    "graph-crash-helper")
  guard FileManager.default.isExecutableFile(atPath: helper.path) else {
    throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: helper.path])
  }
  return helper
}

/// A process killed with SIGKILL in the middle of a big write transaction,
/// after uncommitted pages reached the WAL file, leaves the file exactly as
/// it was: the parent reopens it and finds the old records, no new ones.
@Test func aWriterKilledMidTransactionLeavesTheOldContent() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("graph.sqlite")
  let store = try GraphStore(path: path, schemaVersion: 1)
  try seed(store)
  let before = try contents(store)
  store.close()

  let child = Process()
  child.executableURL = try crashHelper()
  child.arguments = [path, "20000"]
  let output = Pipe()
  child.standardOutput = output
  try child.run()

  // Wait for "mid": the child is half-way through its transaction and still writing.
  var said = ""
  let deadline = Date().addingTimeInterval(60)
  while !said.contains("mid\n") && !said.contains("error") && Date() < deadline {
    let data = output.fileHandleForReading.availableData
    if data.isEmpty { break }
    said += String(decoding: data, as: UTF8.self)
  }
  kill(child.processIdentifier, SIGKILL)
  child.waitUntilExit()
  #expect(said.contains("mid\n"), "the child said: \(said)")
  #expect(!said.contains("committed"))
  #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL)

  // Uncommitted pages reached the disk before the kill (SQLite's cache is smaller
  // than the transaction): the test is about a log holding half a transaction.
  let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
  #expect(walSize > 1_000_000, "WAL size \(walSize)")

  let reopened = try GraphStore(path: path, schemaVersion: 1)
  defer { reopened.close() }
  #expect(same(try contents(reopened), before))
  #expect(try reopened.count(model: "Big") == 0)
  #expect(try reopened.count(model: "Old") == 50)
  // The file is sound and writable again.
  try reopened.write([put("Big", 1, ["id": 1])])
  #expect(try reopened.count(model: "Big") == 1)
  let check = try sqlText(reopened.connection, "PRAGMA integrity_check")
  #expect(check == "ok")
}
