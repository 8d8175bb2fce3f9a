import CSQLite
import Glibc
import Strata

/// The persistent format of the object graph: the records of a schema's
/// models in one SQLite file (or in memory), in tables anyone can read.
///
/// Format 2 (TableLayout, RecordRows; docs/graph.md, "The file's tables"):
///
/// ```text
/// strata_meta(key TEXT PRIMARY KEY, value)   'format' -> 2, 'version' -> the schema's
///                                            version, 'layout' -> the tables, as JSON
/// "<Model>"(<key columns>, strata_type, strata_stub, strata_extra, <property columns>,
///           PRIMARY KEY(<key columns>)) WITHOUT ROWID      one per key space
/// "<Model>.<relationship>"(owner..., position, target...,
///           PRIMARY KEY(owner..., position)) WITHOUT ROWID  one per to-many
/// ```
///
/// Format 1 (one table `records(model, key, body)` of JSON text) is read,
/// and converted once when a writer opens it (`needsRewrite`).
///
/// The store takes records as the graph stores them: a model (the key
/// space's), a key, and a body `{"model", "stub"?, "values"}` of canonical
/// values with relationships as keys; it keeps them atomically. It knows
/// nothing of uniquing or inverses: the graph above it does.
///
/// A store belongs to one thread at a time, like its `SQLiteConnection`;
/// several stores (threads, processes) may open the same file, and one may
/// read while another writes (WAL).
package final class GraphStore {
  /// The number of the file format this store writes, kept in `strata_meta` under `format`.
  package static let format: Int64 = 2

  /// The connection to the database: an SQLite file (or memory), or a
  /// PostgreSQL database.
  package let connection: any StoreConnection
  /// The connection when the database is SQLite.
  package var sqlite: SQLiteConnection? { connection as? SQLiteConnection }
  /// The schema version the store was opened for.
  package let schemaVersion: Int64
  /// The tables records are written to (the schema's).
  package let layout: TableLayout
  /// The schema version recorded in the file when it was opened (equal to
  /// `schemaVersion` for a new file; lower when the caller must migrate the
  /// records and then call `rewrite`). Updated by `rewrite` and `reloadMeta`.
  package internal(set) var storedVersion: Int64
  /// The format of the file (1 until it is rewritten).
  package internal(set) var fileFormat: Int64
  /// The tables of the file as they are (nil for format 1).
  package internal(set) var fileLayout: TableLayout? {
    didSet {
      guard fileLayout != oldValue else { return }
      statements.forgetReadings()
      hasOwnLayout = fileLayout == layout
    }
  }
  /// True when the file's tables are the schema's (`fileLayout == layout`,
  /// kept so that each call does not compare the layouts again).
  package private(set) var hasOwnLayout = true
  /// A write of at least this many changes makes its rows on a helper
  /// thread while the rows made before are written (`writeOverlapped`);
  /// tests set 0 (always) or `Int.max` (never).
  package var writeOverlapFrom = GraphStore.writeOverlapDefault
  /// Cached SQL of each table (built on first use).
  var statements = StoreStatements()

  /// The file as given (a URL with its password hidden).
  package var path: String { connection.path }
  /// The SQL dialect of the database.
  package var dialect: SQLDialect { connection.dialect }
  /// True when the file holds records of an older schema version.
  package var needsMigration: Bool { storedVersion < schemaVersion }
  /// True when the file must be rewritten before records are written to it:
  /// it is of format 1, its tables were made for another schema, or it
  /// holds records of an older schema version.
  package var needsRewrite: Bool { fileFormat < Self.format || !hasOwnLayout || needsMigration }
  /// True when the file was opened read only (asked for, or forced by the file).
  package var isReadOnly: Bool { connection.isReadOnly }

  /// Opens (creating when missing, unless `readOnly`) the store at `path`, a
  /// file or `":memory:"`, for records laid out as `layout` at schema
  /// version `schemaVersion`.
  ///
  /// A new or empty database gets the tables and records `schemaVersion`. A
  /// file written for a newer schema version, or by a newer format, is
  /// refused with an `argument` error; an older version is reported in
  /// `storedVersion` (`needsMigration`). A file that is not SQLite, or an
  /// SQLite file with other tables and no `strata_meta`, is refused (`io`,
  /// `argument`). `busyTimeout` as for `SQLiteConnection`.
  package init(
    path: String, layout: TableLayout, schemaVersion: Int64, readOnly: Bool = false, busyTimeout: Int32 = 5000
  ) throws(StrataError) {
    if PostgresURL.isPostgres(path) {
      connection = try PostgresStoreConnection(url: path)
    } else {
      connection = try SQLiteConnection(
        path: path, mode: readOnly ? .readOnly : Self.openMode(path), busyTimeout: busyTimeout)
    }
    self.schemaVersion = schemaVersion
    self.layout = layout
    statements.dialect = connection.dialect
    storedVersion = schemaVersion
    fileFormat = Self.format
    fileLayout = layout
    do {
      try prepareFile()
    } catch {
      connection.close()
      throw error
    }
    if storedVersion > schemaVersion {
      connection.close()
      throw SQLiteError.store(
        .argument,
        "the graph file was written by schema version \(storedVersion), newer than this schema's "
          + "version \(schemaVersion)", path: path)
    }
  }

  /// Opens a store for `schema`'s records: its layout and version.
  package convenience init(
    path: String, schema: Schema, readOnly: Bool = false, busyTimeout: Int32 = 5000
  ) throws(StrataError) {
    try self.init(
      path: path,
      layout: try TableLayout(schema: schema, dialect: PostgresURL.isPostgres(path) ? .postgres : .sqlite),
      schemaVersion: schema.version, readOnly: readOnly,
      busyTimeout: busyTimeout)
  }

  /// How to open a file asked to be written: read and write (created when
  /// missing), unless this process cannot write it or its folder (a
  /// read-only file, folder or filesystem, another user's file). Then read
  /// only: through its write-ahead log when it has one, else as immutable,
  /// so that nothing is made beside it (no `-wal` or `-shm` a later writer
  /// could not open) and a read-only folder or filesystem opens at all.
  static func openMode(_ path: String) -> SQLiteConnection.Mode {
    guard path != ":memory:", access(path, F_OK) == 0 else { return .readWriteCreate }
    let folder: String
    if let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) {
      folder = slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    } else {
      folder = "."
    }
    if access(path, W_OK) == 0 && access(folder, W_OK) == 0 { return .readWriteCreate }
    var log = stat()
    let hasLog = stat(path + "-wal", &log) == 0 && log.st_size > 0
    return hasLog ? .readOnly : .readOnlyImmutable
  }

  /// Closes the file (idempotent); every later call is an `argument` error.
  package func close() { connection.close() }

  /// Reads `format`, `version` and `layout` again, after another connection
  /// wrote the file (or before rewriting it, under the write lock): a file
  /// another process migrated to a newer version is an `argument` error.
  package func reloadMeta() throws(StrataError) {
    let (format, version, fileTables) = try Self.readMeta(connection)
    if version > schemaVersion {
      throw SQLiteError.store(
        .argument,
        "another process migrated the graph file to schema version \(version), newer than this schema's "
          + "version \(schemaVersion): open it with the newer schema",
        path: path)
    }
    fileFormat = format
    storedVersion = version
    fileLayout = fileTables
  }

  // MARK: the tables

  /// Creates the tables in a new database, or reads what an existing one is.
  private func prepareFile() throws(StrataError) {
    // both looks in one snapshot: another process may create the tables in between
    let (hasMeta, objects) = try connection.readTransaction { () throws(StrataError) -> (Bool, Int64) in
      (try connection.hasTable("strata_meta"), try connection.objectCount())
    }
    if hasMeta {
      try readFileMeta()
      return
    }
    if objects > 0 {
      throw SQLiteError.store(
        .argument,
        connection.dialect == .sqlite
          ? "the SQLite file is not a Strata graph store (it has tables but no strata_meta)"
          : "the PostgreSQL schema is not a Strata graph store (it has tables but no strata_meta): name another with schema=",
        path: connection.path)
    }
    if connection.isReadOnly {
      throw SQLiteError.store(
        .io, "cannot create the graph store's tables in a read-only file", path: connection.path)
    }
    // Another process may create the tables between the check and the write
    // lock: look again inside the transaction.
    try connection.writeTransaction { () throws(StrataError) in
      if try connection.hasTable("strata_meta") {
        try readFileMeta()
        return
      }
      try connection.execute(connection.dialect.metaTable)
      try createTables(layout)
      try Self.setMeta(connection, "format", Self.format)
      try Self.setMeta(connection, "version", schemaVersion)
      try Self.setMeta(connection, "layout", text: layout.json.serialized())
      if connection.dialect == .postgres { try Self.setMeta(connection, "changes", 0) }
    }
  }

  /// Sets `fileFormat`, `storedVersion` and `fileLayout` from the file.
  private func readFileMeta() throws(StrataError) {
    (fileFormat, storedVersion, fileLayout) = try Self.readMeta(connection)
  }

  /// Reads and checks `format`, `version` and `layout` from `strata_meta`.
  private static func readMeta(_ connection: any StoreConnection) throws(StrataError) -> (
    Int64, Int64, TableLayout?
  ) {
    guard let fileFormat = try meta(connection, "format") else {
      throw SQLiteError.store(
        .io, "the graph file has no format number (it is damaged)", path: connection.path)
    }
    if fileFormat > format {
      throw SQLiteError.store(
        .argument, "the graph file has format \(fileFormat); this Strata reads formats 1 and \(format)",
        path: connection.path)
    }
    guard let version = try meta(connection, "version") else {
      throw SQLiteError.store(
        .io, "the graph file has no schema version (it is damaged)", path: connection.path)
    }
    if fileFormat == 1 {
      guard try connection.hasTable("records") else {
        throw SQLiteError.store(
          .io, "the graph file is damaged (format 1, no records table)", path: connection.path)
      }
      return (fileFormat, version, nil)
    }
    guard fileFormat == format, let text = try metaText(connection, "layout") else {
      throw SQLiteError.store(
        .io, "the graph file is damaged (format \(fileFormat), no table layout)", path: connection.path)
    }
    do throws(StrataError) {
      return (fileFormat, version, try TableLayout(json: try JSON(parsing: text)))
    } catch {
      throw SQLiteError.store(.io, error.description, path: connection.path)
    }
  }

  /// The integer under `key` in `strata_meta`, nil when absent; a value that
  /// is not an integer is an `io` error (the file is damaged).
  static func meta(_ connection: any StoreConnection, _ key: String) throws(StrataError) -> Int64? {
    try connection.withStatement("SELECT value FROM strata_meta WHERE key = ?") {
      (statement) throws(StrataError) -> Int64? in
      try statement.bind(1, text: key)
      guard try statement.step() else { return nil }
      switch statement.cell(0) {
      case .integer(let value): return value
      // PostgreSQL's strata_meta holds text
      case .text(let text) where connection.dialect == .postgres: if let value = Int64(text) { return value }
      default: break
      }
      throw SQLiteError.store(
        .io, "the graph file's '\(key)' is not an integer (the file is damaged)", path: connection.path)
    }
  }

  /// Sets the integer `value` under `key` in `strata_meta`.
  static func setMeta(_ connection: any StoreConnection, _ key: String, _ value: Int64) throws(StrataError) {
    try setMeta(connection, key, cell: .integer(value))
  }

  /// The text under `key` in `strata_meta`, nil when absent or not text.
  static func metaText(_ connection: any StoreConnection, _ key: String) throws(StrataError) -> String? {
    try connection.withStatement("SELECT value FROM strata_meta WHERE key = ?") {
      (statement) throws(StrataError) -> String? in
      try statement.bind(1, text: key)
      return try statement.step() ? statement.text(0) : nil
    }
  }

  /// Sets the text `value` under `key` in `strata_meta`.
  static func setMeta(_ connection: any StoreConnection, _ key: String, text value: String)
    throws(StrataError)
  {
    try setMeta(connection, key, cell: .text(value))
  }

  /// Sets `cell` under `key` in `strata_meta`.
  private static func setMeta(_ connection: any StoreConnection, _ key: String, cell: SQLCell)
    throws(StrataError)
  {
    try connection.withStatement(
      "INSERT INTO strata_meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
    ) { (statement) throws(StrataError) in
      try statement.bind(1, text: key)
      try statement.bind(2, cell: cell)
      try statement.run()
    }
  }
}
