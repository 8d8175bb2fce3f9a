import CSQLite
import Foundation
import Strata
import StrataGraph
import Testing

/// The server of these tests: `scripts/pg-server start DIR` prints the
/// variables (scripts/test starts one and exports them, with
/// STRATA_TEST_POSTGRES_REQUIRED=1 so that CI never skips these tests).
let environment = ProcessInfo.processInfo.environment
let serverURL = environment["STRATA_TEST_POSTGRES_URL"]
let passwordURL = environment["STRATA_TEST_POSTGRES_PASSWORD_URL"]
let serverRequired = environment["STRATA_TEST_POSTGRES_REQUIRED"] == "1"

/// The server's URL with a schema of the test's own (dropped by `dropSchema`).
func testURL() throws -> (url: String, schema: String) {
  guard let serverURL else {
    throw MissingServer("STRATA_TEST_POSTGRES_URL is not set")
  }
  let schema = "strata_test_\(UUID().uuidString.prefix(8).lowercased())"
  return (serverURL + (serverURL.contains("?") ? "&" : "?") + "schema=" + schema, schema)
}

func dropSchema(_ schema: String) throws {
  guard let serverURL else { return }
  let connection = try PostgresConnection(url: serverURL)
  try connection.execute("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
}

/// A test of the suite found no server to run against (it fails: the suite
/// runs only when a server is given, or required).
struct MissingServer: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// The message of the StrataError `body` throws (a failure when it throws none).
func strataError(_ body: () throws -> Void) -> StrataError? {
  do {
    try body()
  } catch let error as StrataError {
    return error
  } catch {
    Issue.record("expected a StrataError, got \(error)")
    return nil
  }
  Issue.record("expected an error, got none")
  return nil
}

@Suite(
  .enabled(
    if: serverURL != nil || serverRequired,
    "no PostgreSQL server for these tests: run scripts/pg-server start DIR and export what it prints (scripts/test does)"
  ))
struct PostgresConnectionTests {
  init() {
    if serverRequired && serverURL == nil {
      Issue.record(
        "STRATA_TEST_POSTGRES_REQUIRED is set but STRATA_TEST_POSTGRES_URL is not: no server to test")
    }
  }

  @Test func readsBackEveryKindOfValueItWrote() throws {
    let (url, schema) = try testURL()
    defer { try? dropSchema(schema) }
    let connection = try PostgresConnection(url: url)
    try connection.execute(
      "CREATE TABLE kinds(i bigint, r double precision, s text, b bytea, f boolean, n numeric, z text)")
    let text = "Ann's \"✓\" 日本語 '); DROP TABLE kinds; --"
    try connection.execute(
      "INSERT INTO kinds VALUES($1, $2, $3, $4, $5, $6, $7)",
      [
        .integer(-9_007_199_254_740_993), .real(0.1), .text(text), .blob([0, 255, 16]), .integer(1),
        .real(2.5), .null,
      ])
    let read = try connection.execute("SELECT i, r, s, b, f, n, z FROM kinds")
    #expect(read.columns == ["i", "r", "s", "b", "f", "n", "z"])
    #expect(
      read.rows == [
        [
          .integer(-9_007_199_254_740_993), .real(0.1), .text(text), .blob([0, 255, 16]), .integer(1),
          .real(2.5), .null,
        ]
      ])
    // the parameter stayed a value: the table is there
    #expect(try connection.execute("SELECT count(*) FROM kinds").rows == [[.integer(1)]])
  }

  @Test func integersAndTextGoAsTheServerReadsThem() throws {
    let (url, schema) = try testURL()
    defer { try? dropSchema(schema) }
    let connection = try PostgresConnection(url: url)
    let values: [Int64] = [0, 7, -1, 10, -10, 1_234_567_890_123, .max, .min]
    let read = try connection.execute(
      "SELECT " + (1...values.count).map { "CAST($\($0) AS bigint)" }.joined(separator: ", ")
        + ", $9::text, $10::text",
      values.map(SQLCell.integer) + [.text(""), .text("a\u{1F600}b")])
    #expect(read.rows == [values.map(SQLCell.integer) + [.text(""), .text("a\u{1F600}b")]])
    // NUL cannot be sent: an argument error naming the parameter, nothing sent
    do {
      _ = try connection.execute("SELECT $1::text, $2::text", [.text("ok"), .text("a\u{0}b")])
      Issue.record("a NUL was sent")
    } catch {
      #expect(error.code == .argument)
      #expect(error.description.contains("$2"))
    }
    #expect(try connection.execute("SELECT 1").rows == [[.integer(1)]])
  }

  @Test func aTransactionThatFailsLeavesNothing() throws {
    let (url, schema) = try testURL()
    defer { try? dropSchema(schema) }
    let connection = try PostgresConnection(url: url)
    try connection.execute("CREATE TABLE t(id bigint PRIMARY KEY)")
    let error = strataError {
      try connection.transaction { () throws(StrataError) in
        try connection.execute("INSERT INTO t VALUES($1)", [.integer(1)])
        try connection.execute("INSERT INTO t VALUES($1)", [.integer(1)])  // a duplicate key
      }
    }
    #expect(error?.errors.first?.code == .argument)
    #expect(error?.errors.first?.message.contains("SQLSTATE 23505") == true)
    #expect(!connection.inTransaction)
    #expect(try connection.execute("SELECT count(*) FROM t").rows == [[.integer(0)]])
    try connection.transaction { () throws(StrataError) in
      try connection.execute("INSERT INTO t VALUES($1)", [.integer(2)])
    }
    #expect(try connection.execute("SELECT id FROM t").rows == [[.integer(2)]])
  }

  @Test func theSchemaOfTheURLHoldsTheTables() throws {
    let (url, schema) = try testURL()
    defer { try? dropSchema(schema) }
    let first = try PostgresConnection(url: url)
    try first.execute("CREATE TABLE shared(id bigint)")
    try first.execute("INSERT INTO shared VALUES(7)")
    let second = try PostgresConnection(url: url)  // the schema exists now: used as it is
    #expect(try second.execute("SELECT id FROM shared").rows == [[.integer(7)]])
    let listed = try second.execute(
      "SELECT table_schema FROM information_schema.tables WHERE table_name = 'shared'")
    #expect(listed.rows == [[.text(schema)]])
  }

  @Test func aWrongStatementIsAnArgumentErrorWithItsSQLState() throws {
    let (url, schema) = try testURL()
    defer { try? dropSchema(schema) }
    let connection = try PostgresConnection(url: url)
    let error = strataError { try connection.execute("SELEC 1") }
    #expect(error?.errors.first?.code == .argument)
    #expect(connection.lastSQLState == "42601")
    #expect(try connection.execute("SELECT 1").rows == [[.integer(1)]])
    #expect(connection.lastSQLState == nil)
  }

  @Test func aConnectionTheServerDroppedIsOpenedAgain() throws {
    let (url, schema) = try testURL()
    defer { try? dropSchema(schema) }
    let connection = try PostgresConnection(url: url)
    try connection.execute("CREATE TABLE t(id bigint)")
    guard case .integer(let pid) = try connection.execute("SELECT pg_backend_pid()").rows[0][0] else {
      Issue.record("no backend pid")
      return
    }
    let other = try PostgresConnection(url: url)
    try other.execute("SELECT pg_terminate_backend($1::integer)", [.integer(pid)])
    let lost = strataError { try connection.execute("INSERT INTO t VALUES(1)") }
    #expect(lost?.errors.first?.code == .io)
    // usable again, in the URL's schema again
    try connection.execute("INSERT INTO t VALUES(2)")
    #expect(try connection.execute("SELECT id FROM t").rows == [[.integer(2)]])
  }

  @Test func aServerThatIsNotThereIsAnIOErrorNamingIt() throws {
    // a port nobody listens on: bound, then closed
    let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &length) }
    }
    let port = Int(UInt16(bigEndian: address.sin_port))
    close(probe)
    let url = "postgresql://strata:secret@127.0.0.1:\(port)/strata?connect_timeout=5"
    let error = strataError { _ = try PostgresConnection(url: url) }
    #expect(error?.errors.first?.code == .io)
    let message = error?.errors.first?.message ?? ""
    #expect(message.contains("postgresql://strata:***@127.0.0.1:\(port)/strata"), "\(message)")
    #expect(message.contains("cannot connect"), "\(message)")
    #expect(!message.contains("secret"), "\(message)")
  }

  @Test func aRefusedPasswordIsAnIOError() throws {
    guard let passwordURL else { throw MissingServer("STRATA_TEST_POSTGRES_PASSWORD_URL is not set") }
    let wrong = passwordURL.replacingOccurrences(of: "guarded@", with: "guarded:wrong-password@")
    let error = strataError { _ = try PostgresConnection(url: wrong) }
    #expect(error?.errors.first?.code == .io)
    let message = error?.errors.first?.message ?? ""
    #expect(message.contains("password"), "\(message)")
    #expect(!message.contains("wrong-password"), "\(message)")
  }
}

struct PostgresAddressTests {
  @Test func theSchemaMemberIsStrataSAndTheRestGoesToLibpq() throws {
    let url = try PostgresURL(
      "postgresql://ann:pw@db.example:5432/app?sslmode=disable&schema=my%20graph&application_name=x")
    #expect(url.schema == "my graph")
    #expect(url.quotedSchema == "\"my graph\"")
    #expect(
      url.connectionString == "postgresql://ann:pw@db.example:5432/app?sslmode=disable&application_name=x")
    #expect(
      url.shown
        == "postgresql://ann:***@db.example:5432/app?sslmode=disable&schema=my%20graph&application_name=x")
    let plain = try PostgresURL("postgres://db/app")
    #expect(
      plain.schema == nil && plain.connectionString == "postgres://db/app"
        && plain.shown == "postgres://db/app")
    #expect(try PostgresURL("postgresql://h/d?schema=a%22b").quotedSchema == "\"a\"\"b\"")
    #expect(PostgresURL.isPostgres("postgresql://h/d") && !PostgresURL.isPostgres("graph.db"))
  }

  @Test func aWrongURLIsAnArgumentError() {
    for text in ["graph.db", "postgresql://h/d?schema=", "http://h/d"] {
      let error = strataError { _ = try PostgresURL(text) }
      #expect(error?.errors.first?.code == .argument, "\(text)")
    }
  }

  @Test func aMissingLibpqNamesWhatToInstall() {
    guard case .failure(let error) = LibPQ.load("/nonexistent/libpq.so.5") else {
      Issue.record("a missing file loaded")
      return
    }
    #expect(error.errors.first?.code == .io)
    #expect(error.errors.first?.message.contains("apt install libpq5") == true)
    #expect(error.errors.first?.message.contains("/nonexistent/libpq.so.5") == true)
  }

  @Test func parametersAndCellsKeepTheirValues() {
    #expect(PostgresConnection.blob(hexText: "\\x00ff10") == [0, 255, 16])
    #expect(PostgresConnection.blob(hexText: "\\x0") == nil)
    #expect(PostgresConnection.cell("t", type: 16) == .integer(1))
    #expect(PostgresConnection.cell("12345678901", type: 20) == .integer(12_345_678_901))
    #expect(PostgresConnection.cell("1.5", type: 701) == .real(1.5))
    #expect(PostgresConnection.cell("x", type: 25) == .text("x"))
  }
}

/// A schema with every kind of column, key and table the layout makes: an
/// integer, a text and a composite key, a class cluster, to-one and to-many
/// relationships, declared indexes, JSON, dates, and names past
/// PostgreSQL's 63 bytes.
private let tablesSchemaText = #"""
  {"strata": 1, "models": {
    "Author": {"primaryKey": "id", "indexes": [["name"], ["joined", "name"]], "properties": {
      "id": {"type": "int"}, "name": {"type": "string"}, "joined": {"type": "date"},
      "score": {"type": "double?"}, "active": {"type": "bool"}, "extra": {"type": "json?"},
      "books": {"type": "[Book]", "inverse": "author"},
      "aPropertyWhoseNameIsLongEnoughThatItsLinkTableNameGoesPastTheLimit": {"type": "[Shelf]?"}}},
    "Book": {"primaryKey": "isbn", "properties": {
      "isbn": {"type": "string"}, "title": {"type": "string"}, "author": {"type": "Author?"}}},
    "Shelf": {"primaryKey": ["room", "row"], "properties": {
      "room": {"type": "string"}, "row": {"type": "int"}, "label": {"type": "string?"}}}
  }}
  """#

extension PostgresConnectionTests {
  @Test func theLayoutsTablesAreTheSameOnPostgreSQLAsOnSQLite() throws {
    let (url, schema) = try testURL()
    defer { try? dropSchema(schema) }
    let layout = try TableLayout(schema: try Schema(parsing: tablesSchemaText))
    let connection = try PostgresConnection(url: url)
    // created in one transaction; again, nothing changes (IF NOT EXISTS)
    for _ in 0..<2 {
      try connection.transaction { () throws(StrataError) in
        for statement in layout.creationStatements(.postgres) { try connection.execute(statement) }
      }
    }
    // the same tables and columns, in the same order, as SQLite's file
    let folder = try TemporaryDirectory()
    let sqlite = try SQLiteConnection(path: folder.path("tables.db"))
    for statement in layout.creationStatements(.sqlite) { try sqlite.execute(statement) }
    var sqliteTables: [String: [String]] = [:]
    try sqlite.withStatement("SELECT name FROM sqlite_master WHERE type = 'table'") {
      (tables) throws(StrataError) in
      while try tables.step() {
        let table = tables.text(0) ?? ""
        var columns: [String] = []
        try sqlite.withStatement("SELECT name FROM pragma_table_info(?) ORDER BY cid") {
          (info) throws(StrataError) in
          try info.bind(1, text: table)
          while try info.step() { columns.append(info.text(0) ?? "") }
        }
        sqliteTables[SQLDialect.postgres.identifier(table)] = columns
      }
    }
    let rows = try connection.execute(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 "
        + "ORDER BY table_name, ordinal_position", [.text(schema)])
    var postgresTables: [String: [String]] = [:]
    for row in rows.rows {
      guard case .text(let table) = row[0], case .text(let column) = row[1] else { continue }
      postgresTables[table, default: []].append(column)
    }
    // Author, Book, Shelf and the link tables Author.books and Author.aProperty...
    #expect(postgresTables.count == 5)
    #expect(postgresTables == sqliteTables.mapValues { $0.map { SQLDialect.postgres.identifier($0) } })
    // a long name is cut to 63 bytes, and stays distinct
    let long = "Author.aPropertyWhoseNameIsLongEnoughThatItsLinkTableNameGoesPastTheLimit"
    #expect(postgresTables[SQLDialect.postgres.identifier(long)] != nil)
    #expect(SQLDialect.postgres.identifier(long).utf8.count == 63)
    #expect(SQLDialect.postgres.identifier(long) != SQLDialect.postgres.identifier(long + "s"))
    // the types: bool as SMALLINT, int as BIGINT, double, text for dates and JSON
    let types = try connection.execute(
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'Author'"
        + " ORDER BY ordinal_position", [.text(schema)])
    #expect(
      types.rows == [
        [.text("id"), .text("bigint")], [.text("strata_type"), .text("text")],
        [.text("strata_stub"), .text("bigint")], [.text("strata_extra"), .text("text")],
        [.text("name"), .text("text")], [.text("joined"), .text("text")],
        [.text("score"), .text("double precision")], [.text("active"), .text("smallint")],
        [.text("extra"), .text("text")],
      ])
    // the indexes: declared ones, one per to-one relationship, one per link table's target
    let indexes = try connection.execute(
      "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname NOT LIKE '%_pkey' ORDER BY indexname",
      [.text(schema)])
    var sqliteIndexes: [SQLCell] = []
    try sqlite.withStatement(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
    ) { (statement) throws(StrataError) in
      while try statement.step() {
        sqliteIndexes.append(.text(SQLDialect.postgres.identifier(statement.text(0) ?? "")))
      }
    }
    #expect(indexes.rows.map { $0[0] } == sqliteIndexes)
    #expect(indexes.rows.count == 5)
  }
}

/// The store's statements, written once with `?` parameters, on both databases.
private func upsertAndRead(
  _ statement: (String, (any StoreStatement) throws(StrataError) -> Void) throws(StrataError) -> Void
) throws(StrataError) -> [[SQLCell]] {
  let upsert =
    "INSERT INTO \"t\"(\"k\", \"s\", \"r\", \"b\") VALUES(?, ?, ?, ?) ON CONFLICT(\"k\") DO UPDATE SET "
    + "\"s\" = excluded.\"s\", \"r\" = excluded.\"r\", \"b\" = excluded.\"b\""
  try statement(upsert) { (insert) throws(StrataError) in
    for (key, text) in [(Int64(2), "two"), (1, "one ? '?'"), (2, "two again")] {
      try insert.bind(
        1, cells: [.integer(key), .text(text), .real(Double(key) / 4), .blob([UInt8(key), 0])])
      try insert.run()
      insert.reset()
    }
    try insert.bind(1, cells: [.integer(3), .null, .null, .null])
    try insert.run()
  }
  var rows: [[SQLCell]] = []
  try statement("SELECT \"k\", \"s\", \"r\", \"b\" FROM \"t\" WHERE \"k\" >= ? AND '?' = '?' ORDER BY \"k\"")
  {
    (select) throws(StrataError) in
    try select.bind(1, int: 1)
    while try select.step() {
      rows.append((0..<select.columnCount).map { select.cell($0) })
      let hasText = try select.withText(1) { (bytes) throws(StrataError) in bytes != nil }
      #expect(hasText == (select.columnType(1) == SQLITE_TEXT))
    }
  }
  return rows
}

extension PostgresConnectionTests {
  @Test func theStoresStatementsRunTheSameOnBothDatabases() throws {
    let (url, schema) = try testURL()
    defer { try? dropSchema(schema) }
    let postgres = try PostgresConnection(url: url)
    try postgres.execute("CREATE TABLE t(k BIGINT PRIMARY KEY, s TEXT, r DOUBLE PRECISION, b BYTEA)")
    let folder = try TemporaryDirectory()
    let sqlite = try SQLiteConnection(path: folder.path("statements.db"))
    try sqlite.execute("CREATE TABLE t(k INTEGER PRIMARY KEY, s TEXT, r REAL, b BLOB)")
    let fromPostgres = try upsertAndRead { (sql, body) throws(StrataError) in
      try postgres.withStatement(sql) { (statement) throws(StrataError) in try body(statement) }
    }
    let fromSQLite = try upsertAndRead { (sql, body) throws(StrataError) in
      try sqlite.withStatement(sql) { (statement) throws(StrataError) in try body(statement) }
    }
    #expect(
      fromSQLite == [
        [.integer(1), .text("one ? '?'"), .real(0.25), .blob([1, 0])],
        [.integer(2), .text("two again"), .real(0.5), .blob([2, 0])],
        [.integer(3), .null, .null, .null],
      ])
    #expect(fromPostgres == fromSQLite)
  }
}

extension PostgresAddressTests {
  @Test func questionMarksBecomeNumberedParametersOutsideQuotesAndComments() {
    let (sql, count) = PostgresStatement.placeholders(
      "SELECT '?', 'it''s ?', \"a?b\", ? -- ? here\n, ? /* ? */, x = ?")
    #expect(sql == "SELECT '?', 'it''s ?', \"a?b\", $1 -- ? here\n, $2 /* ? */, x = $3")
    #expect(count == 3)
  }
}

extension PostgresConnectionTests {
  @Test func aWriteTransactionTheServerGaveUpRunsAgain() throws {
    let (url, schema) = try testURL()
    defer { try? dropSchema(schema) }
    let connection = try PostgresConnection(url: url)
    try connection.execute("CREATE TABLE t(id bigint PRIMARY KEY)")
    // the first two runs fail as a serialization failure and a deadlock would
    var runs = 0
    let (count, retries) = try connection.writeTransaction(lock: 7) { () throws(StrataError) -> Int in
      runs += 1
      try connection.execute("INSERT INTO t VALUES($1)", [.integer(Int64(runs))])
      if runs == 1 {
        try connection.execute("DO $$ BEGIN RAISE EXCEPTION 'try again' USING ERRCODE = '40001'; END $$")
      }
      if runs == 2 {
        try connection.execute("DO $$ BEGIN RAISE EXCEPTION 'try again' USING ERRCODE = '40P01'; END $$")
      }
      return runs
    }
    #expect(count == 3 && retries == 2)
    // only the run that committed left its row
    #expect(try connection.execute("SELECT id FROM t").rows == [[.integer(3)]])
    // a transaction that keeps failing: its error after writeAttempts runs
    runs = 0
    let error = strataError {
      _ = try connection.writeTransaction(lock: 7) { () throws(StrataError) in
        runs += 1
        try connection.execute("DO $$ BEGIN RAISE EXCEPTION 'never' USING ERRCODE = '40001'; END $$")
      }
    }
    #expect(runs == PostgresConnection.writeAttempts)
    #expect(error?.errors.first?.code == .io)
    #expect(error?.errors.first?.message.contains("SQLSTATE 40001") == true)
    // any other error at once
    runs = 0
    _ = strataError {
      _ = try connection.writeTransaction(lock: 7) { () throws(StrataError) in
        runs += 1
        try connection.execute("INSERT INTO t VALUES(3)")
      }
    }
    #expect(runs == 1)
  }

  @Test func statementsSentTogetherAreAnsweredAtTheFlushTheFirstFailureThrown() throws {
    let (url, schema) = try testURL()
    defer { try? dropSchema(schema) }
    let connection = try PostgresConnection(url: url)
    try connection.execute("CREATE TABLE t(id bigint PRIMARY KEY, name text)")
    // more statements than one flush holds, all committed together
    try connection.transaction { () throws(StrataError) in
      for id in 0..<(PostgresConnection.pipelineDepth * 2 + 7) {
        try connection.send("INSERT INTO t VALUES($1, $2)", [.integer(Int64(id)), .text("n\(id)")])
      }
      try connection.flush()
    }
    #expect(
      try connection.execute("SELECT count(*), max(name) FROM t WHERE name LIKE 'n%'").rows == [
        [.integer(Int64(PostgresConnection.pipelineDepth * 2 + 7)), .text("n999")]
      ])
    // the second of three fails: its error at the flush, the transaction rolled back
    let error = strataError {
      try connection.transaction { () throws(StrataError) in
        try connection.send("INSERT INTO t VALUES($1, $2)", [.integer(-1), .text("first")])
        try connection.send("INSERT INTO t VALUES($1, $2)", [.integer(0), .text("taken")])
        try connection.send("INSERT INTO t VALUES($1, $2)", [.integer(-2), .text("third")])
        // a statement that waits for its answer answers what was sent first
        _ = try connection.execute("SELECT 1")
      }
    }
    #expect(error?.errors.first?.code == .argument)
    #expect(error?.errors.first?.message.contains("23505") == true)
    #expect(try connection.execute("SELECT count(*) FROM t WHERE id < 0").rows == [[.integer(0)]])
    // and the connection goes on
    try connection.send("INSERT INTO t VALUES($1, $2)", [.integer(-3), .text("after")])
    try connection.flush()
    #expect(try connection.execute("SELECT name FROM t WHERE id = -3").rows == [[.text("after")]])
  }

  @Test func writersOfOneGraphTakeTurns() throws {
    let (url, schema) = try testURL()
    defer { try? dropSchema(schema) }
    let first = try PostgresConnection(url: url)
    try first.execute("CREATE TABLE t(id bigint)")
    let second = try PostgresConnection(url: url)
    // while the first holds the graph's lock, the second cannot take it
    try first.writeTransaction(lock: 42) { () throws(StrataError) in
      let taken = try second.execute("SELECT pg_try_advisory_lock($1)", [.integer(42)])
      #expect(taken.rows == [[.integer(0)]])
      // another graph's lock is free
      let other = try second.execute("SELECT pg_try_advisory_lock($1)", [.integer(43)])
      #expect(other.rows == [[.integer(1)]])
      try second.execute("SELECT pg_advisory_unlock($1)", [.integer(43)])
    }
    // released at the commit
    let after = try second.execute("SELECT pg_try_advisory_lock($1)", [.integer(42)])
    #expect(after.rows == [[.integer(1)]])
  }
}
