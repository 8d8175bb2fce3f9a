import Foundation
import Strata
import StrataGraph
import Testing

/// The graph on PostgreSQL through the public `Context` (the server as for
/// `PostgresConnectionTests`; graph.json runs there too, GraphConformance).
@Suite(
  .enabled(
    if: serverURL != nil || serverRequired,
    "no PostgreSQL server for these tests: run scripts/pg-server start DIR and export what it prints (scripts/test does)"
  ))
struct PostgresGraphTests {
  static let schema = """
    {"strata": 1, "models": {
      "User": {"primaryKey": "id", "properties": {
        "id": {"type": "int"}, "login": {"type": "string"},
        "posts": {"type": "[Post]", "inverse": "author", "json": false}}},
      "Post": {"primaryKey": "id", "properties": {
        "id": {"type": "int"}, "title": {"type": "string"}, "author": {"type": "User?", "inverse": "posts"}}}}}
    """

  /// Posts `ids`, each by user `user`.
  static func posts(_ ids: ClosedRange<Int>, by user: Int) -> String {
    "["
      + ids.map {
        #"{"id": \#($0), "title": "post \#($0)", "author": {"id": \#(user), "login": "u\#(user)"}}"#
      }
      .joined(separator: ",") + "]"
  }

  /// The store connection of a context on PostgreSQL.
  static func postgres(_ context: Context) -> PostgresStoreConnection? {
    context.engine.store?.connection as? PostgresStoreConnection
  }

  @Test func aGraphOnPostgresImportsReadsQueriesAndReopens() throws {
    let (url, name) = try testURL()
    defer { try? dropSchema(name) }
    let schema = try Schema(JSON(parsing: Self.schema))
    let context = try Context(schema: schema, url: url)
    let result = try context.import("Post", parsing: Self.posts(1...3, by: 7))
    #expect(result.created == ["Post": 3, "User": 1])
    #expect(try context.get("User", key: 7)?.related("posts").map(\.key) == [1, 2, 3])
    #expect(
      try context.query("Post", where: ["title": ["prefix": "post "]], orderBy: ["-id"]).map(\.key) == [
        3, 2, 1,
      ])
    // another context sees the first's records, and the first sees the other's commit
    let other = try Context(schema: schema, url: url)
    #expect(try other.count("Post") == 3)
    _ = try other.import("Post", parsing: Self.posts(4...4, by: 7))
    #expect(try context.get("User", key: 7)?.related("posts").map(\.key) == [1, 2, 3, 4])
    try context.check()
    context.close()
    other.close()
    let reopened = try Context(schema: schema, url: url)
    #expect(try reopened.count("Post") == 4)
    try reopened.check()
    reopened.close()
  }

  /// Long pages parsed ahead and written while their rows are made (both
  /// helper threads forced on) end on the server as in memory.
  @Test func pagesParsedAheadAndWrittenOverlappedEndAsInMemory() throws {
    let (url, name) = try testURL()
    defer { try? dropSchema(name) }
    let schema = try Schema(parsing: blogSchemaText)
    let memory = try Context(schema: schema)
    let server = try Context(schema: schema, url: url)
    server.engine.parseAheadBytes = 0
    server.engine.store?.writeOverlapFrom = 0
    var random = SeededRandom(seed: 11)
    for _ in 0..<5 {
      let text = randomPostsText(
        &random, count: Int.random(in: 200...900, using: &random), broken: Bool.random(using: &random),
        cut: false)
      let want = (try? memory.import("Post", parsing: text)) == nil
      let got = (try? server.import("Post", parsing: text)) == nil
      #expect(got == want)
    }
    let models = ["User", "Post", "Tag"]
    #expect(try graphDump(server, models) == graphDump(memory, models))
    try server.check()
    server.close()
  }

  @Test func aTransactionTheServerGaveUpRunsAgainOnceAndWarns() throws {
    let (url, name) = try testURL()
    defer { try? dropSchema(name) }
    let schema = try Schema(JSON(parsing: Self.schema))
    let context = try Context(schema: schema, url: url)
    _ = try context.import("Post", parsing: Self.posts(1...2, by: 7))
    let connection = try #require(Self.postgres(context))
    connection.givenUpTransactions = 2
    let result = try context.import("Post", parsing: Self.posts(3...4, by: 7))
    #expect(connection.lastRetries == 2)
    #expect(result.created == ["Post": 2])
    #expect(result.warnings.count == 1)
    #expect(result.warnings.first?.message.contains("gave up the import's transaction 2 time(s)") == true)
    // the import landed once: every inverse whole
    #expect(try context.get("User", key: 7)?.related("posts").map(\.key) == [1, 2, 3, 4])
    try context.check()
    // a transaction given up every time: an io error, nothing written, the context usable
    connection.givenUpTransactions = PostgresConnection.writeAttempts
    let error = strataError { _ = try context.import("Post", parsing: Self.posts(5...5, by: 7)) }
    #expect(error?.errors.first?.code == .io)
    #expect(error?.errors.first?.message.contains("40001") == true)
    #expect(try context.count("Post") == 4)
    _ = try context.import("Post", parsing: Self.posts(5...5, by: 7))
    #expect(try context.count("Post") == 5)
    try context.check()
    context.close()
  }

  @Test func aConnectionKilledInTheMiddleOfAnImportLeavesNothingAndComesBack() throws {
    let (url, name) = try testURL()
    defer { try? dropSchema(name) }
    // the context's server process, killed by a key injector (which runs in the middle of the import)
    let victim = LockedPID()
    let schema = try Schema(
      JSON(parsing: Self.schema),
      keyInjectors: [
        "User": { value, _ in
          if let pid = victim.take() {
            _ = try? PostgresConnection(url: url).execute("SELECT pg_terminate_backend($1)", [.integer(pid)])
          }
          return value["login"].map { _ in .int(99) } ?? .null
        }
      ])
    let context = try Context(schema: schema, url: url)
    _ = try context.import("Post", parsing: Self.posts(1...2, by: 7))
    let connection = try #require(Self.postgres(context))
    let pid = try connection.connection.execute("SELECT pg_backend_pid()").rows.first?.first
    guard case .integer(let number)? = pid else {
      Issue.record("no backend pid")
      return
    }
    victim.set(number)
    let error = strataError {
      _ = try context.import(
        "Post", parsing: #"[{"id": 3, "title": "three", "author": {"login": "nobody"}}]"#)
    }
    #expect(error?.errors.first?.code == .io)
    #expect(error?.description.contains("connection") == true)
    // nothing of it was written, and the next call connects again
    #expect(try context.count("Post") == 2)
    #expect(try context.get("User", key: 99) == nil)
    _ = try context.import("Post", parsing: Self.posts(3...3, by: 7))
    #expect(try context.get("User", key: 7)?.related("posts").map(\.key) == [1, 2, 3])
    try context.check()
    context.close()
  }

  @Test func recordsWithoutKeysAnswerQueriesAsOnSQLite() throws {
    let (url, name) = try testURL()
    defer { try? dropSchema(name) }
    let schema = try Schema(JSON(parsing: Self.schema))
    let postgres = try Context(schema: schema, url: url)
    let sqlite = try Context(schema: schema)
    // users with keys and without (Strata makes those: {"$id": N}), mixed
    let page = """
      [{"id": 1, "title": "a", "author": {"id": 0, "login": "zero"}},
       {"id": 2, "title": "b", "author": {"login": "anon"}},
       {"id": 3, "title": "c", "author": {"id": 5, "login": "five"}},
       {"id": 4, "title": "d", "author": {"login": "other"}},
       {"id": 5, "title": "e"}]
      """
    for context in [postgres, sqlite] {
      let result = try context.import("Post", parsing: page)
      #expect(result.warnings.count == 2)
    }
    let queries: [(String, JSON)] = [
      ("User", ["order_by": ["id"]]),
      ("User", ["order_by": ["-id"]]),
      ("User", ["where": ["id": 0]]),
      ("User", ["where": ["id": ["null": true]]]),
      ("User", ["where": ["id": [">": -1]]]),
      ("User", ["where": ["not": ["id": ["<": 3]]]]),
      ("Post", ["order_by": ["author", "id"]]),
      ("Post", ["order_by": ["-author"]]),
      ("Post", ["where": ["author.id": ["null": true]]]),
      ("Post", ["where": ["author.id": 0]]),
      ("Post", ["where": ["author": ["==": ["$id": 2]]]]),
      ("Post", ["where": ["author": [">": 0]]]),
      ("Post", ["where": ["author.login": ["prefix": "o"]], "order_by": ["-author.id"]]),
    ]
    for (model, query) in queries {
      let want = try sqlite.query(model, query).map(\.key)
      #expect(try postgres.query(model, query).map(\.key) == want, "\(model) \(query)")
    }
    #expect(try postgres.get("User", key: ["$id": 2])?["login"] == "other")
    #expect(try postgres.get("User", key: ["$id": 1])?.related("posts").map(\.key) == [2])
    // another context on the same graph goes on from the largest number made
    let other = try Context(schema: schema, url: url)
    _ = try other.import("Post", parsing: #"[{"id": 6, "author": {"login": "new"}}]"#)
    #expect(try other.get("Post", key: 6)?["author"] == ["$id": 3])
    try postgres.check()
    for context in [postgres, sqlite, other] { context.close() }
  }

  @Test func aWrongURLOrPasswordIsAnIOErrorThatHidesThePassword() throws {
    let schema = try Schema(JSON(parsing: Self.schema))
    let error = strataError {
      _ = try Context(schema: schema, url: "postgresql://ann:s3cret@127.0.0.1:1/none?schema=x")
    }
    #expect(error?.errors.first?.code == .io)
    #expect(error?.description.contains("s3cret") == false)
    #expect(error?.description.contains("***") == true)
    if let passwordURL {
      let refused = strataError { _ = try Context(schema: schema, url: passwordURL + "?schema=x") }
      #expect(refused?.errors.first?.code == .io)
    }
  }
}

/// A process id set once and taken once, from any thread.
final class LockedPID: @unchecked Sendable {
  private let lock = NSLock()
  private var pid: Int64?
  func set(_ value: Int64) { lock.withLock { pid = value } }
  func take() -> Int64? {
    lock.withLock {
      defer { pid = nil }
      return pid
    }
  }
}
