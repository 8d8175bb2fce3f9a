import CSQLite
import Foundation
import Strata
import StrataGraph
import Testing

/// A fresh directory for one test's files, removed when the test ends.
final class TemporaryDirectory {
  /// The directory.
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-graph-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  /// The path of `name` inside the directory.
  func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// The schema of the store tests: models of every key kind.
let storeSchemaText = #"""
  {"strata": 1, "version": VERSION, "models": {
    "Old": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "text": {"type": "string?"}}},
    "New": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "fill": {"type": "string?"}}},
    "Big": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "fill": {"type": "string?"}}},
    "Tag": {"primaryKey": "name", "properties": {"name": {"type": "string"}, "score": {"type": "double?"},
            "on": {"type": "bool?"}, "extra": {"type": "json?"}, "tags": {"type": "[Tag]?"}}},
    "Member": {"primaryKey": ["org", "login"], "properties": {"org": {"type": "string"},
               "login": {"type": "string"}, "role": {"type": "string?"}, "best": {"type": "Tag?"}}}
  }}
  """#

/// The store tests' schema at `version`.
func storeSchema(version: Int64 = 1) throws(StrataError) -> Schema {
  var text = storeSchemaText
  text.replace("VERSION", with: String(version))
  return try Schema(parsing: text)
}

/// Opens a store of the test schema at `version`.
func openStore(_ path: String, version: Int64 = 1, readOnly: Bool = false, busyTimeout: Int32 = 5000)
  throws(StrataError) -> GraphStore
{
  try GraphStore(
    path: path, schema: try storeSchema(version: version), readOnly: readOnly, busyTimeout: busyTimeout)
}

/// An upsert of a record of `model` with `values`.
func put(_ model: String, _ key: JSON, _ values: JSON) -> GraphStore.JSONChange {
  GraphStore.JSONChange(model: model, key: key, body: ["model": .string(model), "values": values])
}

/// A delete.
func remove(_ model: String, _ key: JSON) -> GraphStore.JSONChange {
  GraphStore.JSONChange(model: model, key: key, body: nil)
}

/// The values of the record of `model` under `key`, or nil.
func values(_ store: GraphStore, _ model: String, _ key: JSON) throws -> JSON? {
  try store.get(model: model, key: key)?["values"]
}

/// Everything in the store, model by model, in key order: keys and values.
func contents(_ store: GraphStore) throws -> [String: [(key: JSON, body: JSON)]] {
  var all: [String: [(key: JSON, body: JSON)]] = [:]
  for model in try store.models() {
    all[model] = try store.all(model: model).map { ($0.key, $0.body["values"] ?? nil) }
  }
  return all
}

/// True when two `contents` are the same, keys and bodies in the same order.
func same(_ a: [String: [(key: JSON, body: JSON)]], _ b: [String: [(key: JSON, body: JSON)]]) -> Bool {
  guard a.keys.sorted() == b.keys.sorted() else { return false }
  for (model, records) in a {
    guard let other = b[model], other.count == records.count else { return false }
    for (x, y) in zip(records, other) where x.key != y.key || x.body != y.body { return false }
  }
  return true
}

/// The error code thrown by `body`, or nil when it did not throw.
func errorCode(_ body: () throws -> Void) -> ErrorCode? {
  do {
    try body()
    return nil
  } catch let error as StrataError {
    return error.code
  } catch {
    return nil
  }
}

/// The first message thrown by `body`, or "".
func errorMessage(_ body: () throws -> Void) -> String {
  do {
    try body()
    return ""
  } catch let error as StrataError {
    return error.errors.first?.message ?? ""
  } catch {
    return "\(error)"
  }
}

/// The text in the first column of the first row of `sql`, or nil.
func sqlText(_ connection: SQLiteConnection, _ sql: String) throws -> String? {
  try connection.withStatement(sql) { (statement) throws(StrataError) -> String? in
    try statement.step() ? statement.text(0) : nil
  }
}

/// The integer in the first column of the first row of `sql`, or 0.
func sqlInt(_ connection: SQLiteConnection, _ sql: String) throws -> Int64 {
  try connection.withStatement(sql) { (statement) throws(StrataError) -> Int64 in
    try statement.step() ? statement.int64(0) : 0
  }
}

/// The 50 `Old` records the file tests start from.
func seed(_ store: GraphStore) throws {
  try store.write(
    (0..<50).map { key in put("Old", .int(Int64(key)), ["id": .int(Int64(key)), "text": "original"]) })
}

@Test func recordsRoundTripThroughAFile() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("graph.sqlite")
  let store = try openStore(path, version: 2)
  #expect(store.storedVersion == 2 && !store.needsMigration && !store.isReadOnly && !store.needsRewrite)
  try store.write([
    put("Tag", "sun", ["name": "sun", "score": 2.5, "on": true, "extra": ["z": nil, "a": [true, false]]]),
    put("Tag", "sea", ["name": "sea", "score": nil, "tags": ["sun", "sea", "sun"]]),
    put("Tag", "x", ["name": "x", "tags": nil]),
    put("Member", ["acme", "mona"], ["org": "acme", "login": "mona", "role": "admin", "best": "sun"]),
    put("Old", 5, ["id": 5, "text": "five"]),
  ])
  store.close()

  let reopened = try openStore(path, version: 2)
  defer { reopened.close() }
  #expect(
    try values(reopened, "Tag", "sun") == [
      "name": "sun", "score": 2.5, "on": true, "extra": ["z": nil, "a": [true, false]],
    ])
  // absent stays absent, null stays null, a to-many keeps its order and repeats
  #expect(
    try values(reopened, "Tag", "sea") == ["name": "sea", "score": nil, "tags": ["sun", "sea", "sun"]])
  #expect(try values(reopened, "Tag", "x") == ["name": "x", "tags": nil])
  #expect(
    try values(reopened, "Member", ["acme", "mona"]) == [
      "org": "acme", "login": "mona", "role": "admin", "best": "sun",
    ])
  #expect(try values(reopened, "Old", 5) == ["id": 5, "text": "five"])
  // A number key and a string key are two records; a key of the wrong kind finds none.
  #expect(try values(reopened, "Old", "5") == nil)
  #expect(try values(reopened, "Tag", "nobody") == nil)
  #expect(try reopened.get(model: "Nobody", key: 1) == nil)
  #expect(try reopened.count(model: "Tag") == 3)
  #expect(try reopened.models() == ["Member", "Old", "Tag"])

  // The tables are plain SQL: typed columns, a link table with positions.
  #expect(
    try sqlText(reopened.sqlite!, "SELECT role FROM Member WHERE org = 'acme' AND login = 'mona'")
      == "admin")
  #expect(try sqlInt(reopened.sqlite!, "SELECT \"on\" FROM Tag WHERE name = 'sun'") == 1)
  #expect(try sqlText(reopened.sqlite!, "SELECT typeof(score) FROM Tag WHERE name = 'sun'") == "real")
  #expect(
    try sqlText(
      reopened.sqlite!,
      "SELECT group_concat(target, ',') FROM (SELECT target FROM \"Tag.tags\" WHERE owner = 'sea' ORDER BY position)"
    )
      == "sun,sea,sun")
  #expect(try sqlText(reopened.sqlite!, "SELECT best FROM Member") == "sun")
  #expect(
    try sqlText(reopened.sqlite!, "SELECT extra FROM Tag WHERE name = 'sun'")
      == #"{"z":null,"a":[true,false]}"#)
  #expect(try sqlInt(reopened.sqlite!, "SELECT value FROM strata_meta WHERE key = 'format'") == 2)
}

@Test func anInMemoryStoreWorksTheSame() throws {
  let store = try openStore(":memory:")
  defer { store.close() }
  try store.write([put("Tag", "sun", ["name": "sun"]), put("Tag", "sea", ["name": "sea"])])
  #expect(try store.all(model: "Tag").map(\.key) == ["sea", "sun"])
  try store.write([remove("Tag", "sun")])
  #expect(try store.count(model: "Tag") == 1)
}

@Test func recordsComeBackInKeyOrder() throws {
  let store = try openStore(":memory:")
  defer { store.close() }
  let numbers: [Int64] = [10, 9, -1, 100, 0]
  try store.write(numbers.map { put("Old", .int($0), ["id": .int($0)]) })
  #expect(try store.all(model: "Old").map(\.key) == [-1, 0, 9, 10, 100])
  let names = ["b", "a", "B", "é", "aa"]
  try store.write(names.map { put("Tag", .string($0), ["name": .string($0)]) })
  #expect(try store.all(model: "Tag").map(\.key) == ["B", "a", "aa", "b", "é"])
  try store.write([
    put("Member", ["b", "a"], [:]), put("Member", ["a", "z"], [:]), put("Member", ["a", "b"], [:]),
  ])
  #expect(try store.all(model: "Member").map(\.key) == [["a", "b"], ["a", "z"], ["b", "a"]])
  // A key Strata made (a record that had none) is a blob in the key column.
  try store.write([put("Member", ["$id": 3], ["role": "ghost"])])
  #expect(try values(store, "Member", ["$id": 3]) == ["role": "ghost"])
  #expect(
    try sqlText(store.sqlite!, "SELECT typeof(org) || typeof(login) FROM Member WHERE role = 'ghost'")
      == "blobblob")
  // So it is in an integer key column: the column takes a blob (a table
  // whose key is SQLite's rowid would refuse it: Benchmarks/README.md,
  // "Rowid tables").
  try store.write([put("Old", ["$id": 4], ["text": "made"])])
  #expect(try values(store, "Old", ["$id": 4]) == ["text": "made"])
  #expect(try sqlText(store.sqlite!, "SELECT typeof(id) FROM Old WHERE text = 'made'") == "blob")
  // Reads nest inside an iteration (the same SQL runs on a second statement).
  var inner = 0
  try store.forEach(model: "Old") { (_, _) throws(StrataError) in
    try store.forEach(model: "Old") { _, _ in inner += 1 }
  }
  #expect(inner == (numbers.count + 1) * (numbers.count + 1))
}

@Test func valuesTheColumnsCannotHoldAreKept() throws {
  let store = try openStore(":memory:")
  defer { store.close() }
  // a string where an int column is, a to-many of strange elements, a member no property has
  try store.write([
    put("Old", 1, ["id": 1, "text": 12, "$unknown": ["x": 1]]),
    put("Tag", "t", ["name": "t", "tags": [1, [2]]]),
  ])
  #expect(try values(store, "Old", 1) == ["id": 1, "text": 12, "$unknown": ["x": 1]])
  #expect(try values(store, "Tag", "t") == ["name": "t", "tags": [1, [2]]])
  // a model the file has no table for, a key of the wrong shape: errors before anything is written
  #expect(errorCode { try store.write([put("Nobody", 1, [:])]) } == .argument)
  #expect(errorCode { try store.write([put("Member", "one", [:])]) } == .argument)
  #expect(try store.count(model: "Old") == 1)
}

@Test func writesUpsertAndDeleteInOrder() throws {
  let store = try openStore(":memory:")
  defer { store.close() }
  try store.write([put("Old", 1, ["text": "1"]), put("Old", 2, ["text": "2"]), put("Old", 3, ["text": "3"])])
  try store.write([
    put("Old", 1, ["text": "10"]),  // update
    remove("Old", 2),  // delete
    remove("Old", 99),  // deleting nothing is no error
    put("Old", 4, ["text": "4"]), remove("Old", 4),  // created then deleted in one batch
    remove("Old", 3), put("Old", 3, ["text": "30"]),  // deleted then created
  ])
  #expect(try store.all(model: "Old").map { $0.body["values"] } == [["text": "10"], ["text": "30"]])
  #expect(try store.get(model: "Old", key: 2) == nil)
  // a to-many is rewritten with its owner, and goes with it
  try store.write([
    put("Tag", "a", ["name": "a", "tags": ["a", "b"]]), put("Tag", "a", ["name": "a", "tags": ["b"]]),
  ])
  #expect(try sqlInt(store.sqlite!, "SELECT count(*) FROM \"Tag.tags\"") == 1)
  try store.write([remove("Tag", "a")])
  #expect(try sqlInt(store.sqlite!, "SELECT count(*) FROM \"Tag.tags\"") == 0)
}

@Test func aFailingWriteLeavesTheFileUnchanged() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("graph.sqlite")
  let store = try openStore(path)
  try seed(store)
  let before = try contents(store)

  // A value that cannot be written fails before the transaction; its path is its index.
  var deep: JSON = 1
  for _ in 0..<600 { deep = [deep] }
  do {
    try store.write([put("Old", 1, ["text": "changed"]), put("Old", 2, ["text": deep])])
    Issue.record("a too deep body was written")
  } catch {
    #expect(error.code == .depth && error.errors.first?.path == "/1")
  }
  #expect(errorCode { try store.write([put("", 1, [:])]) } == .argument)

  // The disk fills up half-way through: SQLITE_FULL is an io error, and the
  // updates and deletes done before it are rolled back.
  let pages = try sqlInt(store.sqlite!, "PRAGMA page_count")
  try store.connection.execute("PRAGMA max_page_count = \(pages + 3)")
  var changes = (0..<50).map { remove("Old", .int(Int64($0))) }
  changes += (0..<2000).map {
    put("New", .int(Int64($0)), ["fill": .string(String(repeating: "y", count: 300))])
  }
  let message = errorMessage { try store.write(changes) }
  #expect(message.contains("SQLITE_FULL") && message.contains(path))
  #expect(errorCode { try store.write(changes) } == .io)
  #expect(!store.connection.inTransaction)
  #expect(same(try contents(store), before))
  store.close()

  let reopened = try openStore(path)
  defer { reopened.close() }
  #expect(same(try contents(reopened), before))
  // And the store still writes once there is room.
  try reopened.write([put("Old", 1, ["text": "changed"])])
  #expect(try values(reopened, "Old", 1) == ["text": "changed"])
}

@Test func aNewerSchemaVersionIsRefusedAnOlderOneReported() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("graph.sqlite")
  let store = try openStore(path, version: 3)
  try seed(store)
  store.close()

  let message = errorMessage { _ = try openStore(path, version: 2) }
  #expect(message.contains("schema version 3") && message.contains(path))
  #expect(errorCode { _ = try openStore(path, version: 2) } == .argument)

  let newer = try openStore(path, version: 5)
  #expect(newer.storedVersion == 3 && newer.schemaVersion == 5 && newer.needsMigration)
  #expect(try newer.count(model: "Old") == 50)
  try newer.rewrite([])
  #expect(newer.storedVersion == 5 && !newer.needsMigration && !newer.needsRewrite)
  newer.close()
  #expect(try openStore(path, version: 5).storedVersion == 5)
  #expect(errorCode { _ = try openStore(path, version: 4) } == .argument)

  // A file of a newer format is refused too.
  let tampered = try SQLiteConnection(path: path)
  try tampered.execute("UPDATE strata_meta SET value = 3 WHERE key = 'format'")
  tampered.close()
  #expect(errorMessage { _ = try openStore(path, version: 5) }.contains("format 3"))
}

@Test func aReadOnlyStoreReadsAndRefusesWrites() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("graph.sqlite")
  let store = try openStore(path)
  try seed(store)
  let before = try contents(store)
  store.close()

  let reader = try openStore(path, readOnly: true)
  defer { reader.close() }
  #expect(reader.isReadOnly)
  #expect(same(try contents(reader), before))
  let message = errorMessage { try reader.write([put("Old", 1, ["text": "changed"])]) }
  #expect(message.contains("SQLITE_READONLY") && message.contains(path))
  #expect(errorCode { try reader.write([remove("Old", 1)]) } == .io)
  #expect(errorCode { try reader.rewrite([]) } == .io)
  #expect(same(try contents(reader), before))
  // A read-only store cannot create a file.
  #expect(
    errorCode { _ = try openStore(directory.path("missing.sqlite"), readOnly: true) }
      == .io)
}

@Test(.enabled(if: geteuid() != 0, "root writes files whatever their mode"))
func aReadOnlyFileIsAnIOErrorAndStaysIntact() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("graph.sqlite")
  let store = try openStore(path)
  try seed(store)
  let before = try contents(store)
  store.close()
  try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
  defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path) }

  do {
    let opened = try openStore(path)
    defer { opened.close() }
    #expect(errorCode { try opened.write([remove("Old", 1)]) } == .io)
  } catch {
    #expect(error.code == .io)
  }
  try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
  let reopened = try openStore(path)
  defer { reopened.close() }
  #expect(same(try contents(reopened), before))
}

@Test func filesThatAreNotGraphStoresAreRefused() throws {
  let directory = try TemporaryDirectory()
  let text = directory.path("notes.txt")
  try String(repeating: "this is not an SQLite database\n", count: 200).write(
    toFile: text, atomically: true, encoding: .utf8)
  let message = errorMessage { _ = try openStore(text) }
  #expect(message.contains("SQLITE_NOTADB") && message.contains(text))
  #expect(errorCode { _ = try openStore(text) } == .io)
  #expect(try String(contentsOfFile: text, encoding: .utf8).hasPrefix("this is not"))

  let other = directory.path("other.sqlite")
  let connection = try SQLiteConnection(path: other)
  try connection.execute("CREATE TABLE people(name TEXT)")
  connection.close()
  #expect(errorCode { _ = try openStore(other) } == .argument)

  #expect(
    errorCode { _ = try openStore(directory.path("no/such/dir/graph.sqlite")) }
      == .io)
  #expect(errorCode { _ = try openStore("") } == .argument)
  #expect(errorCode { _ = try openStore("a\u{0}b") } == .argument)
}

@Test func aClosedStoreAndEscapedStatementsAreErrorsNotCrashes() throws {
  let store = try openStore(":memory:")
  var escaped: SQLiteStatement? = nil
  try store.sqlite!.withStatement("SELECT 1") { escaped = $0 }
  store.close()
  store.close()
  #expect(errorCode { _ = try store.get(model: "Old", key: 1) } == .argument)
  #expect(errorCode { try store.write([put("Old", 1, [:])]) } == .argument)
  #expect(errorCode { _ = try escaped?.step() } == .argument)
  #expect(escaped?.text(0) == nil && escaped?.int64(3) == 0)
}

@Test func sqlErrorsAreArgumentErrors() throws {
  let connection = try SQLiteConnection(path: ":memory:")
  defer { connection.close() }
  #expect(errorCode { try connection.execute("SELEKT nothing") } == .argument)
  #expect(errorCode { try connection.execute("SELECT * FROM missing") } == .argument)
  try connection.withStatement("SELECT ?") { statement in
    #expect(errorCode { try statement.bind(5, int: 1) } == .argument)
    #expect(statement.text(7) == nil)
  }
}

@Test func aReaderReadsWhileAWriterHoldsItsTransaction() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("graph.sqlite")
  let writer = try openStore(path)
  defer { writer.close() }
  try seed(writer)
  let reader = try openStore(path, busyTimeout: 50)
  defer { reader.close() }
  let mode = try sqlText(writer.sqlite!, "PRAGMA journal_mode")
  #expect(mode == "wal")

  var checked = false
  var readerError: ErrorCode? = nil
  var secondWriterError: ErrorCode? = nil
  var seen: [Int] = []
  var seenBody: JSON? = nil
  let changes =
    [remove("Old", 0), put("Old", 1, ["text": "new"])] + (0..<100).map { put("New", .int(Int64($0)), [:]) }
  try writer.write(changes) { applied in
    guard applied == 50 else { return }
    // The reader sees the last committed state, without waiting.
    readerError = errorCode {
      seen = [try reader.count(model: "Old"), try reader.count(model: "New")]
      seenBody = try values(reader, "Old", 1)
    }
    // A second writer waits for the lock, then gives up with an io error.
    secondWriterError = errorCode { try reader.write([put("Old", 2, [:])]) }
    checked = true
  }
  #expect(checked && readerError == nil && secondWriterError == .io)
  #expect(seen == [50, 0] && seenBody == ["id": 1, "text": "original"])
  #expect(try reader.count(model: "Old") == 49)
  #expect(try reader.count(model: "New") == 100)
  #expect(try values(reader, "Old", 1) == ["text": "new"])
}

/// A connection finds the statements of the texts it ran last by the
/// address of their bytes (`SQLiteConnection.recent`). The invariant: every
/// text runs its own statement, whether it is the same `String` again, an
/// equal one made anew, one of more texts than are kept, or a variable
/// changed in place after it ran.
@Test func everyTextRunsItsOwnStatement() throws {
  let connection = try SQLiteConnection(path: ":memory:")
  defer { connection.close() }
  func value(_ sql: String, _ parameter: Int64) throws -> Int64 {
    try connection.withStatement(sql) { (statement) throws(StrataError) -> Int64 in
      try statement.bind(1, int: parameter)
      return try statement.step() ? statement.int64(0) : -1
    }
  }
  let kept = (0..<12).map { "SELECT \($0) + ? AS a_long_enough_name" }
  for round in 0..<3 {
    for number in 0..<12 {
      // the same String, and an equal one made anew
      #expect(try value(kept[number], Int64(round)) == Int64(number + round))
      #expect(try value("SELECT \(number) + ? AS a_long_enough_name", 100) == Int64(number + 100))
    }
  }
  var text = "SELECT 10 + ? AS a_long_enough_name"
  text.reserveCapacity(200)
  #expect(try value(text, 0) == 10)
  let ten = text.range(of: "10")
  if let ten { text.replaceSubrange(ten, with: "20") }
  #expect(try value(text, 0) == 20)
  text += " -- and a comment"
  #expect(try value(text, 1) == 21)
  #expect(try value("SELECT ?", 5) == 5)  // a short text: found by the dictionary alone
}
