import CSQLite
import Foundation
import Strata
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

/// An upsert.
func put(_ model: String, _ key: JSON, _ body: JSON) -> GraphStore.JSONChange {
  GraphStore.JSONChange(model: model, key: key, body: body)
}

/// A delete.
func remove(_ model: String, _ key: JSON) -> GraphStore.JSONChange {
  GraphStore.JSONChange(model: model, key: key, body: nil)
}

/// Everything in the store, model by model, in key order.
func contents(_ store: GraphStore) throws -> [String: [(key: JSON, body: JSON)]] {
  var all: [String: [(key: JSON, body: JSON)]] = [:]
  for model in try store.models() { all[model] = try store.all(model: model) }
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
  let store = try GraphStore(path: path, schemaVersion: 2)
  #expect(store.storedVersion == 2 && !store.needsMigration && !store.isReadOnly)
  try store.write([
    put("User", "u1", ["login": "mona", "id": 1, "tags": ["a", "b"]]),
    put("User", 5, ["login": "five"]),
    put("User", "5", ["login": "string five"]),
    put("Membership", ["org": "acme", "login": "mona"], ["role": "admin", "since": 2.5]),
    put("Counts", ["post": 7], ["likes": 3, "nested": ["z": nil, "a": [true, false]]]),
  ])
  store.close()

  let reopened = try GraphStore(path: path, schemaVersion: 2)
  defer { reopened.close() }
  #expect(try reopened.get(model: "User", key: "u1") == ["login": "mona", "id": 1, "tags": ["a", "b"]])
  // A number key and a string key are two records.
  #expect(try reopened.get(model: "User", key: 5) == ["login": "five"])
  #expect(try reopened.get(model: "User", key: "5") == ["login": "string five"])
  // Object keys are canonical: any member order finds the record.
  #expect(try reopened.get(model: "Membership", key: ["login": "mona", "org": "acme"]) != nil)
  #expect(
    try reopened.get(model: "Counts", key: ["post": 7]) == [
      "likes": 3, "nested": ["z": nil, "a": [true, false]],
    ])
  #expect(try reopened.get(model: "User", key: "nobody") == nil)
  #expect(try reopened.get(model: "Nobody", key: 1) == nil)
  #expect(try reopened.count(model: "User") == 3)
  #expect(try reopened.models() == ["Counts", "Membership", "User"])

  // Keys are canonical text (compact, keys sorted); bodies compact, members in their order.
  let keys = try reopened.loadAll(model: "Membership").map(\.keyText)
  #expect(keys == [#"{"login":"mona","org":"acme"}"#])
  let body = try sqlText(reopened.connection, "SELECT body FROM records WHERE model = 'Counts'")
  #expect(body == #"{"likes":3,"nested":{"z":null,"a":[true,false]}}"#)
}

@Test func anInMemoryStoreWorksTheSame() throws {
  let store = try GraphStore(path: ":memory:", schemaVersion: 1)
  defer { store.close() }
  try store.write([put("Tag", "sun", ["name": "sun"]), put("Tag", "sea", ["name": "sea"])])
  #expect(try store.all(model: "Tag").map(\.key) == ["sea", "sun"])
  try store.write([remove("Tag", "sun")])
  #expect(try store.count(model: "Tag") == 1)
}

@Test func recordsComeBackInKeyOrder() throws {
  let store = try GraphStore(path: ":memory:", schemaVersion: 1)
  defer { store.close() }
  let keys: [JSON] = ["b", 10, "a", 9, -1, ["x": 1], [2, 1], "B", 1.5, true, nil]
  try store.write(keys.map { put("M", $0, ["k": $0]) })
  let stored = try store.loadAll(model: "M")
  // The byte order of the canonical key text.
  let texts = stored.map(\.keyText)
  #expect(texts == texts.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
  #expect(texts == [#""B""#, #""a""#, #""b""#, "-1", "1.5", "10", "9", "[2,1]", "null", "true", #"{"x":1}"#])
  let viaForEach = try store.all(model: "M").map(\.key)
  #expect(viaForEach.count == keys.count)
  #expect(try store.all(model: "M").allSatisfy { $0.body == ["k": $0.key] })
  // Reads nest inside an iteration (the same SQL runs on a second statement).
  var inner = 0
  try store.forEach(model: "M") { (_, _) throws(StrataError) in
    try store.forEach(model: "M") { _, _ in inner += 1 }
  }
  #expect(inner == keys.count * keys.count)
}

@Test func writesUpsertAndDeleteInOrder() throws {
  let store = try GraphStore(path: ":memory:", schemaVersion: 1)
  defer { store.close() }
  try store.write([put("U", 1, ["v": 1]), put("U", 2, ["v": 2]), put("U", 3, ["v": 3])])
  try store.write([
    put("U", 1, ["v": 10]),  // update
    remove("U", 2),  // delete
    remove("U", 99),  // deleting nothing is no error
    put("U", 4, ["v": 4]), remove("U", 4),  // created then deleted in one batch
    remove("U", 3), put("U", 3, ["v": 30]),  // deleted then created
  ])
  #expect(try store.all(model: "U").map(\.body) == [["v": 10], ["v": 30]])
  #expect(try store.get(model: "U", key: 2) == nil)
}

@Test func aFailingWriteLeavesTheFileUnchanged() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("graph.sqlite")
  let store = try GraphStore(path: path, schemaVersion: 1)
  try seed(store)
  let before = try contents(store)

  // A value that cannot be written fails before the transaction; its path is its index.
  var deep: JSON = 1
  for _ in 0..<600 { deep = [deep] }
  do {
    try store.write([put("Old", 1, ["text": "changed"]), put("Old", 2, deep)])
    Issue.record("a too deep body was written")
  } catch {
    #expect(error.code == .depth && error.errors.first?.path == "/1")
  }
  #expect(errorCode { try store.write([put("", 1, [:])]) } == .argument)

  // The disk fills up half-way through: SQLITE_FULL is an io error, and the
  // updates and deletes done before it are rolled back.
  let pages = try sqlInt(store.connection, "PRAGMA page_count")
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

  let reopened = try GraphStore(path: path, schemaVersion: 1)
  defer { reopened.close() }
  #expect(same(try contents(reopened), before))
  // And the store still writes once there is room.
  try reopened.write([put("Old", 1, ["text": "changed"])])
  #expect(try reopened.get(model: "Old", key: 1) == ["text": "changed"])
}

@Test func aNewerSchemaVersionIsRefusedAnOlderOneReported() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("graph.sqlite")
  let store = try GraphStore(path: path, schemaVersion: 3)
  try seed(store)
  store.close()

  let message = errorMessage { _ = try GraphStore(path: path, schemaVersion: 2) }
  #expect(message.contains("schema version 3") && message.contains(path))
  #expect(errorCode { _ = try GraphStore(path: path, schemaVersion: 2) } == .argument)

  let newer = try GraphStore(path: path, schemaVersion: 5)
  #expect(newer.storedVersion == 3 && newer.schemaVersion == 5 && newer.needsMigration)
  #expect(try newer.count(model: "Old") == 50)
  try newer.setVersion(5)
  #expect(newer.storedVersion == 5 && !newer.needsMigration)
  newer.close()
  #expect(try GraphStore(path: path, schemaVersion: 5).storedVersion == 5)
  #expect(errorCode { _ = try GraphStore(path: path, schemaVersion: 4) } == .argument)

  // A file of a newer format is refused too.
  let tampered = try SQLiteConnection(path: path)
  try tampered.execute("UPDATE strata_meta SET value = 2 WHERE key = 'format'")
  tampered.close()
  #expect(errorMessage { _ = try GraphStore(path: path, schemaVersion: 5) }.contains("format 2"))
}

@Test func aReadOnlyStoreReadsAndRefusesWrites() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("graph.sqlite")
  let store = try GraphStore(path: path, schemaVersion: 1)
  try seed(store)
  let before = try contents(store)
  store.close()

  let reader = try GraphStore(path: path, schemaVersion: 1, readOnly: true)
  defer { reader.close() }
  #expect(reader.isReadOnly)
  #expect(same(try contents(reader), before))
  let message = errorMessage { try reader.write([put("Old", 1, ["text": "changed"])]) }
  #expect(message.contains("SQLITE_READONLY") && message.contains(path))
  #expect(errorCode { try reader.write([remove("Old", 1)]) } == .io)
  #expect(errorCode { try reader.setVersion(2) } == .io)
  #expect(same(try contents(reader), before))
  // A read-only store cannot create a file.
  #expect(
    errorCode { _ = try GraphStore(path: directory.path("missing.sqlite"), schemaVersion: 1, readOnly: true) }
      == .io)
}

@Test(.enabled(if: geteuid() != 0, "root writes files whatever their mode"))
func aReadOnlyFileIsAnIOErrorAndStaysIntact() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("graph.sqlite")
  let store = try GraphStore(path: path, schemaVersion: 1)
  try seed(store)
  let before = try contents(store)
  store.close()
  try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
  defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path) }

  do {
    let opened = try GraphStore(path: path, schemaVersion: 1)
    defer { opened.close() }
    #expect(errorCode { try opened.write([remove("Old", 1)]) } == .io)
  } catch {
    #expect(error.code == .io)
  }
  try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
  let reopened = try GraphStore(path: path, schemaVersion: 1)
  defer { reopened.close() }
  #expect(same(try contents(reopened), before))
}

@Test func filesThatAreNotGraphStoresAreRefused() throws {
  let directory = try TemporaryDirectory()
  let text = directory.path("notes.txt")
  try String(repeating: "this is not an SQLite database\n", count: 200).write(
    toFile: text, atomically: true, encoding: .utf8)
  let message = errorMessage { _ = try GraphStore(path: text, schemaVersion: 1) }
  #expect(message.contains("SQLITE_NOTADB") && message.contains(text))
  #expect(errorCode { _ = try GraphStore(path: text, schemaVersion: 1) } == .io)
  #expect(try String(contentsOfFile: text, encoding: .utf8).hasPrefix("this is not"))

  let other = directory.path("other.sqlite")
  let connection = try SQLiteConnection(path: other)
  try connection.execute("CREATE TABLE people(name TEXT)")
  connection.close()
  #expect(errorCode { _ = try GraphStore(path: other, schemaVersion: 1) } == .argument)

  #expect(
    errorCode { _ = try GraphStore(path: directory.path("no/such/dir/graph.sqlite"), schemaVersion: 1) }
      == .io)
  #expect(errorCode { _ = try GraphStore(path: "", schemaVersion: 1) } == .argument)
  #expect(errorCode { _ = try GraphStore(path: "a\u{0}b", schemaVersion: 1) } == .argument)
}

@Test func aClosedStoreAndEscapedStatementsAreErrorsNotCrashes() throws {
  let store = try GraphStore(path: ":memory:", schemaVersion: 1)
  var escaped: SQLiteStatement? = nil
  try store.connection.withStatement("SELECT 1") { escaped = $0 }
  store.close()
  store.close()
  #expect(errorCode { _ = try store.get(model: "M", key: 1) } == .argument)
  #expect(errorCode { try store.write([put("M", 1, [:])]) } == .argument)
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
  let writer = try GraphStore(path: path, schemaVersion: 1)
  defer { writer.close() }
  try seed(writer)
  let reader = try GraphStore(path: path, schemaVersion: 1, busyTimeout: 50)
  defer { reader.close() }
  let mode = try sqlText(writer.connection, "PRAGMA journal_mode")
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
      seenBody = try reader.get(model: "Old", key: 1)
    }
    // A second writer waits for the lock, then gives up with an io error.
    secondWriterError = errorCode { try reader.write([put("Old", 2, [:])]) }
    checked = true
  }
  #expect(checked && readerError == nil && secondWriterError == .io)
  #expect(seen == [50, 0] && seenBody == ["id": 1, "text": "original"])
  #expect(try reader.count(model: "Old") == 49)
  #expect(try reader.count(model: "New") == 100)
  #expect(try reader.get(model: "Old", key: 1) == ["text": "new"])
}
