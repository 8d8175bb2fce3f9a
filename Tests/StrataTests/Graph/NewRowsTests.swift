import Strata
import StrataGraph
import Testing

/// The keys of `model` the store holds, as text.
private func keys(_ store: GraphStore, _ model: String) throws -> Set<String> {
  Set(try store.all(model: model).map { "\($0.key)" })
}

/// Marks each upsert of `changes` whose key neither `store` holds nor an
/// earlier change of the same write names as new (`Change.isNew`), as a
/// graph's commit does for the records an import makes.
private func markingNew(_ changes: [GraphStore.JSONChange], in store: GraphStore) throws
  -> [GraphStore.JSONChange]
{
  var seen: [String: Set<String>] = [:]
  var marked: [GraphStore.JSONChange] = []
  for var change in changes {
    if seen[change.model] == nil { seen[change.model] = try keys(store, change.model) }
    let key = "\(change.key)"
    change.isNew = change.body != nil && !(seen[change.model]?.contains(key) ?? true)
    seen[change.model]?.insert(key)
    marked.append(change)
  }
  return marked
}

/// Rows of keys the file does not hold go several to a statement on SQLite
/// (`INSERT OR FAIL` of up to 32 rows, links up to 128, without the
/// statement journal an upsert of several rows needs). The invariant: a
/// write whose new keys are marked new leaves the file exactly as the same
/// write made of upserts one row at a time, for every count of rows
/// around the statements' sizes, new and old keys mixed, links included.
@Test(arguments: 0..<4)
func rowsOfNewKeysEndAsUpsertsOneByOne(seed: UInt64) throws {
  let directory = try TemporaryDirectory()
  let upserts = try openStore(directory.path("upserts.db"))
  let inserts = try openStore(directory.path("inserts.db"))
  defer {
    upserts.close()
    inserts.close()
  }
  var random = SeededRandom(seed: seed)
  for round in 0..<8 {
    let count = [1, 2, 3, 31, 32, 33, 64, 127, 129, 300, 700].randomElement(using: &random) ?? 1
    var changes = randomStoreChanges(&random, count: count)
    // long runs of new keys in one table: a statement's full size and the pieces after it
    let base = Int64(1000 + round * 1000)
    changes += (0..<Int64.random(in: 0...140, using: &random)).map { offset in
      put("Old", .int(base + offset), ["id": .int(base + offset), "text": .string("n\(offset)")])
    }
    changes += (0..<Int64.random(in: 0...40, using: &random)).map { offset in
      let tags = (0..<Int.random(in: 0...9, using: &random)).map { JSON.string("t\($0 * 7 + Int(offset))") }
      return put(
        "Tag", .string("new\(base + offset)"), ["name": .string("new\(base + offset)"), "tags": .array(tags)])
    }
    changes.shuffle(using: &random)
    try upserts.write(changes)
    let marked = try markingNew(changes, in: inserts)
    #expect(marked.contains { $0.isNew } || count < 3, "seed \(seed) round \(round): nothing was new")
    try inserts.write(marked)
    #expect(try storeText(inserts) == storeText(upserts), "seed \(seed) round \(round)")
  }
}

/// A row said to be new whose key the file holds after all fails the whole
/// write (the insert's primary key), and the file stays as it was: nothing
/// is half-written, though the statement that failed wrote rows before it.
@Test func aNewRowWhoseKeyTheFileHoldsFailsTheWholeWrite() throws {
  let directory = try TemporaryDirectory()
  let store = try openStore(directory.path("graph.db"))
  defer { store.close() }
  try store.write((0..<10).map { put("Old", .int($0), ["id": .int($0), "text": "old"]) })
  let before = try storeText(store)
  var changes = (100..<120).map { key in
    var change = put("Old", .int(Int64(key)), ["id": .int(Int64(key)), "text": "new"])
    change.isNew = true
    return change
  }
  // key 5 is in the file: an upsert would update it, an insert of a new key cannot
  changes.insert(
    GraphStore.JSONChange(
      model: "Old", key: 5, body: ["model": "Old", "values": ["id": 5, "text": "clash"]], isNew: true), at: 0)
  do {
    try store.write(changes)
    Issue.record("a new row whose key the file holds was written")
  } catch {
    // SQLite's constraint error, code `argument`, naming the file
    #expect(error.code == .argument && errorMessage { throw error }.contains("SQLITE_CONSTRAINT"), "\(error)")
  }
  #expect(!store.connection.inTransaction)
  #expect(try storeText(store) == before)
}
