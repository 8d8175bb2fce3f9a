import Foundation
import Strata
import StrataGraph
import Testing

/// Notes of about 1 KB each: 6,000 of them make a log of about 1,500
/// pages, past `WALCheckpointer.pages`.
private let noteSchemaText = #"""
  {"strata": 1, "models": {"Note": {"primaryKey": "id", "properties": {
    "id": {"type": "int"}, "text": {"type": "string"}}}}}
  """#

private func notes(_ count: Int, from first: Int, round: Int) -> String {
  let text = String(repeating: "note \(round) ", count: 120)
  return "[" + (first..<first + count).map { #"{"id": \#($0), "text": "\#(text)"}"# }.joined(separator: ",")
    + "]"
}

private func size(_ path: String) -> Int {
  ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}

/// A large import's log is copied back into the file by the context's
/// checkpointer (a helper thread), while the context stays open and
/// without another import; after many such imports the log is no longer
/// than two imports' worth (each import writes it from its start again),
/// and the file reopens with every note.
@Test func aLongLogIsCopiedBackAsideAndStaysBounded() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("notes.db")
  let schema = try Schema(parsing: noteSchemaText)
  let context = try Context(schema: schema, path: path)
  _ = try context.import("Note", parsing: notes(6000, from: 0, round: 0))
  // the notes are in the log; the file itself holds them once the copy ran
  var copied = false
  for _ in 0..<3000 where !copied {
    copied = size(path) >= 4_000_000
    if !copied { usleep(10_000) }
  }
  #expect(copied, "the log was not copied into the file (file \(size(path)) bytes)")
  let firstLog = size(path + "-wal")
  #expect(firstLog >= 4_000_000)
  for round in 1...8 {
    _ = try context.import("Note", parsing: notes(6000, from: 0, round: round))
  }
  let lastLog = size(path + "-wal")
  #expect(lastLog <= 2 * firstLog, "the log grew to \(lastLog) bytes (one import: \(firstLog))")
  context.close()
  #expect(size(path + "-wal") == 0, "the log is left after the last close")
  let reopened = try Context(schema: schema, path: path)
  #expect(try reopened.count("Note") == 6000)
  #expect(try reopened.get("Note", key: 5999)?["text"] == .string(String(repeating: "note 8 ", count: 120)))
  reopened.close()
}
