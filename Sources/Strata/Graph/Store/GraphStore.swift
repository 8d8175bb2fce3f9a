import CSQLite
import Glibc

/// The persistent format of the object graph: records of models, each stored
/// under its model's name and the canonical JSON of its primary key, in one
/// SQLite file (or in memory).
///
/// Format 1 has two tables:
///
/// ```text
/// strata_meta(key TEXT PRIMARY KEY, value)      'format' -> 1, 'version' -> the schema's version
/// records(model TEXT, key TEXT, body TEXT,
///         PRIMARY KEY(model, key)) WITHOUT ROWID
/// ```
///
/// `key` is the canonical JSON text (`CanonicalJSON`) of the record's primary
/// key and `body` the compact JSON text of the record (members in their own order). The store knows
/// nothing of schemas, uniquing or relationships: the graph above it decides
/// what a key and a body are; the store keeps them, atomically.
///
/// A store belongs to one thread at a time, like its `SQLiteConnection`;
/// several stores (threads, processes) may open the same file, and one may
/// read while another writes (WAL).
package final class GraphStore {
  /// The number of this file format, kept in `strata_meta` under `format`.
  package static let format: Int64 = 1

  /// The connection to the file.
  package let connection: SQLiteConnection
  /// The schema version the store was opened for.
  package let schemaVersion: Int64
  /// The schema version recorded in the file when it was opened (equal to
  /// `schemaVersion` for a new file; lower when the caller must migrate the
  /// records and then call `setVersion`). Updated by `setVersion`.
  package private(set) var storedVersion: Int64

  /// The file as given.
  package var path: String { connection.path }
  /// True when the file holds records of an older schema version.
  package var needsMigration: Bool { storedVersion < schemaVersion }
  /// True when the file was opened read only (asked for, or forced by the file).
  package var isReadOnly: Bool { connection.isReadOnly }

  /// Opens (creating when missing, unless `readOnly`) the store at `path`, a
  /// file or `":memory:"`, for a schema of version `schemaVersion`.
  ///
  /// A new or empty database gets the tables and records `schemaVersion`. A
  /// file written for a newer schema version, or by a newer format, is
  /// refused with an `argument` error; an older version is reported in
  /// `storedVersion` (`needsMigration`). A file that is not SQLite, or an
  /// SQLite file with other tables and no `strata_meta`, is refused (`io`,
  /// `argument`). `busyTimeout` as for `SQLiteConnection`.
  package init(
    path: String, schemaVersion: Int64, readOnly: Bool = false, busyTimeout: Int32 = 5000
  ) throws(StrataError) {
    connection = try SQLiteConnection(
      path: path, mode: readOnly ? .readOnly : Self.openMode(path), busyTimeout: busyTimeout)
    self.schemaVersion = schemaVersion
    storedVersion = schemaVersion
    do {
      storedVersion = try Self.prepareFile(connection, schemaVersion: schemaVersion)
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

  /// Opens a store: the same as `init(path:schemaVersion:readOnly:busyTimeout:)`.
  package static func open(
    path: String, schemaVersion: Int64, readOnly: Bool = false, busyTimeout: Int32 = 5000
  ) throws(StrataError) -> GraphStore {
    try GraphStore(path: path, schemaVersion: schemaVersion, readOnly: readOnly, busyTimeout: busyTimeout)
  }

  /// Closes the file (idempotent); every later call is an `argument` error.
  package func close() { connection.close() }

  /// Records `version` as the file's schema version (after a migration), in
  /// its own transaction.
  package func setVersion(_ version: Int64) throws(StrataError) {
    try connection.writeTransaction { () throws(StrataError) in
      try Self.setMeta(connection, "version", version)
    }
    storedVersion = version
  }

  /// Checks, after another connection wrote the file, that it still holds
  /// records of the schema version it was opened at: a file another process
  /// migrated to a newer version is an `argument` error.
  package func checkVersionUnchanged() throws(StrataError) {
    let version = try Self.readMeta(connection)
    if version > schemaVersion {
      throw SQLiteError.store(
        .argument,
        "another process migrated the graph file to schema version \(version), newer than this schema's "
          + "version \(schemaVersion): open it with the newer schema",
        path: path)
    }
    storedVersion = version
  }

  // MARK: the tables

  /// Creates the tables in a new database, or checks an existing one;
  /// returns the stored schema version.
  private static func prepareFile(_ connection: SQLiteConnection, schemaVersion: Int64) throws(StrataError)
    -> Int64
  {
    if try hasTable(connection, "strata_meta") { return try readMeta(connection) }
    if try tableCount(connection) > 0 {
      throw SQLiteError.store(
        .argument, "the SQLite file is not a Strata graph store (it has tables but no strata_meta)",
        path: connection.path)
    }
    if connection.isReadOnly {
      throw SQLiteError.store(
        .io, "cannot create the graph store's tables in a read-only file", path: connection.path)
    }
    // Another process may create the tables between the check and the write
    // lock: look again inside the transaction.
    return try connection.writeTransaction { () throws(StrataError) -> Int64 in
      if try hasTable(connection, "strata_meta") { return try readMeta(connection) }
      try connection.execute("CREATE TABLE strata_meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID")
      try connection.execute(
        "CREATE TABLE records(model TEXT NOT NULL, key TEXT NOT NULL, body TEXT NOT NULL, "
          + "PRIMARY KEY(model, key)) WITHOUT ROWID")
      try setMeta(connection, "format", format)
      try setMeta(connection, "version", schemaVersion)
      return schemaVersion
    }
  }

  /// Reads and checks `format` and `version` from `strata_meta`.
  private static func readMeta(_ connection: SQLiteConnection) throws(StrataError) -> Int64 {
    guard let fileFormat = try meta(connection, "format") else {
      throw SQLiteError.store(
        .io, "the graph file has no format number (it is damaged)", path: connection.path)
    }
    if fileFormat > format {
      throw SQLiteError.store(
        .argument, "the graph file has format \(fileFormat); this Strata reads format \(format) only",
        path: connection.path)
    }
    let hasRecords = try hasTable(connection, "records")
    if fileFormat < 1 || !hasRecords {
      throw SQLiteError.store(
        .io, "the graph file is damaged (format \(fileFormat), no records table)",
        path: connection.path)
    }
    guard let version = try meta(connection, "version") else {
      throw SQLiteError.store(
        .io, "the graph file has no schema version (it is damaged)", path: connection.path)
    }
    return version
  }

  /// The integer under `key` in `strata_meta`, nil when absent; a value that
  /// is not an integer is an `io` error (the file is damaged).
  private static func meta(_ connection: SQLiteConnection, _ key: String) throws(StrataError) -> Int64? {
    try connection.withStatement("SELECT value FROM strata_meta WHERE key = ?") {
      (statement) throws(StrataError) -> Int64? in
      try statement.bind(1, text: key)
      guard try statement.step() else { return nil }
      guard statement.columnType(0) == SQLITE_INTEGER else {
        throw SQLiteError.store(
          .io, "the graph file's '\(key)' is not an integer (the file is damaged)", path: connection.path)
      }
      return statement.int64(0)
    }
  }

  /// Sets the integer `value` under `key` in `strata_meta`.
  private static func setMeta(_ connection: SQLiteConnection, _ key: String, _ value: Int64)
    throws(StrataError)
  {
    try connection.withStatement(
      "INSERT INTO strata_meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
    ) { (statement) throws(StrataError) in
      try statement.bind(1, text: key)
      try statement.bind(2, int: value)
      try statement.run()
    }
  }

  /// True when the database has a table `name`.
  private static func hasTable(_ connection: SQLiteConnection, _ name: String) throws(StrataError) -> Bool {
    try connection.withStatement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?") {
      (statement) throws(StrataError) -> Bool in
      try statement.bind(1, text: name)
      return try statement.step()
    }
  }

  /// The number of tables, indexes, views and triggers of the database.
  private static func tableCount(_ connection: SQLiteConnection) throws(StrataError) -> Int64 {
    try connection.withStatement("SELECT count(*) FROM sqlite_master") {
      (statement) throws(StrataError) -> Int64 in
      try statement.step() ? statement.int64(0) : 0
    }
  }
}
