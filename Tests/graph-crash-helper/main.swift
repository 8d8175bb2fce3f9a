// The child process of GraphStoreCrashTests (Tests/StrataTests/Graph): it opens
// the graph store at PATH and writes one big transaction through GraphStore's
// own write path - updates and deletes of the `Old` records, then COUNT new
// `Big` records of about 600 bytes each, more than SQLite's page cache holds,
// so uncommitted pages reach the WAL file. Half-way it prints "mid" on
// stdout; at 90% it stops and waits, so the parent's SIGKILL always lands
// inside the transaction, never after the commit.
//
// usage: graph-crash-helper PATH COUNT
import Glibc
import Strata
import StrataGraph

/// Writes a line to stdout at once (no buffering: the parent waits for it).
func say(_ line: String) {
  var text = line + "\n"
  text.withUTF8 { bytes in _ = Glibc.write(1, bytes.baseAddress, bytes.count) }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]), count > 0 else {
  say("usage: graph-crash-helper PATH COUNT")
  exit(2)
}

do {
  // the models of the store tests' schema (GraphStoreTests.swift) it writes
  let schema = try Schema(
    parsing: #"""
      {"strata": 1, "version": 1, "models": {
        "Old": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "text": {"type": "string?"}}},
        "New": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "fill": {"type": "string?"}}},
        "Big": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "fill": {"type": "string?"}}},
        "Tag": {"primaryKey": "name", "properties": {"name": {"type": "string"}, "score": {"type": "double?"},
                "on": {"type": "bool?"}, "extra": {"type": "json?"}, "tags": {"type": "[Tag]?"}}},
        "Member": {"primaryKey": ["org", "login"], "properties": {"org": {"type": "string"},
                   "login": {"type": "string"}, "role": {"type": "string?"}, "best": {"type": "Tag?"}}}
      }}
      """#)
  let store = try GraphStore(path: arguments[1], schema: schema)
  // SQLite's page cache smaller than the transaction (2 MiB, SQLite's own
  // default; Strata sets 16 MiB), so uncommitted pages reach the WAL file
  try store.connection.execute("PRAGMA cache_size=-2000")
  var changes: [GraphStore.JSONChange] = []
  for key in 0..<50 {
    let body: JSON? =
      key.isMultiple(of: 2)
      ? nil : ["model": "Old", "values": ["id": .int(Int64(key)), "text": "rewritten"]]
    changes.append(GraphStore.JSONChange(model: "Old", key: .int(Int64(key)), body: body))
  }
  let filler = JSON.string(String(repeating: "x", count: 560))
  for key in 0..<count {
    changes.append(
      GraphStore.JSONChange(
        model: "Big", key: .int(Int64(key)),
        body: ["model": "Big", "values": ["id": .int(Int64(key)), "fill": filler]]))
  }
  let total = changes.count
  try store.write(changes) { applied in
    if applied == total / 2 { say("mid") }
    if applied == total * 9 / 10 {
      say("waiting")
      while true { sleep(60) }
    }
  }
  say("committed")
} catch {
  say("error: \(error)")
  exit(1)
}
