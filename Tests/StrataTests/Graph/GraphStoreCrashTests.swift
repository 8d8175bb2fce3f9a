import Foundation
import Strata
import StrataGraph
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
  let store = try openStore(path)
  try seed(store)
  let before = try contents(store)
  store.close()

  // posix_spawn, not Foundation's Process: the child's stdout is a pipe we
  // read ourselves, and nothing is left behind for LeakSanitizer.
  var pipeEnds: [Int32] = [-1, -1]
  #expect(pipe(&pipeEnds) == 0)
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
  posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
  let helper = try crashHelper().path
  let arguments: [UnsafeMutablePointer<CChar>?] =
    [helper, path, "20000"].map { (text: String) in strdup(text) } + [nil]
  defer { for argument in arguments { free(argument) } }
  var child: pid_t = 0
  let spawned = posix_spawn(&child, helper, &actions, nil, arguments, environ)
  close(pipeEnds[1])
  defer { close(pipeEnds[0]) }
  #expect(spawned == 0)
  guard spawned == 0 else { return }

  // Wait for "mid": the child is half-way through its transaction and still writing.
  var said = ""
  var buffer = [UInt8](repeating: 0, count: 256)
  while !said.contains("mid\n") && !said.contains("error") {
    var ready = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
    guard poll(&ready, 1, 30_000) > 0 else { break }
    let count = read(pipeEnds[0], &buffer, buffer.count)
    if count <= 0 { break }
    said += String(decoding: buffer[0..<count], as: UTF8.self)
  }
  kill(child, SIGKILL)
  var status: Int32 = 0
  waitpid(child, &status, 0)
  #expect(said.contains("mid\n"), "the child said: \(said)")
  #expect(!said.contains("committed"))
  // Killed by SIGKILL (WIFSIGNALED and WTERMSIG, macros Swift cannot call).
  #expect(status & 0x7F == SIGKILL, "wait status \(status)")

  // Uncommitted pages reached the disk before the kill (SQLite's cache is smaller
  // than the transaction): the test is about a log holding half a transaction.
  let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
  #expect(walSize > 1_000_000, "WAL size \(walSize)")

  let reopened = try openStore(path)
  defer { reopened.close() }
  #expect(same(try contents(reopened), before))
  #expect(try reopened.count(model: "Big") == 0)
  #expect(try reopened.count(model: "Old") == 50)
  // The file is sound and writable again.
  try reopened.write([put("Big", 1, ["id": 1])])
  #expect(try reopened.count(model: "Big") == 1)
  let check = try sqlText(reopened.sqlite!, "PRAGMA integrity_check")
  #expect(check == "ok")
}
