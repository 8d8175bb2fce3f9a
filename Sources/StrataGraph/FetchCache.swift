import Strata

/// What a graph keeps of the pages it fetched (docs/graph.md, "Fetching
/// pages"): per URL, the validators the server gave (`ETag`,
/// `Last-Modified`), a digest of the body, the next page, and the keys of
/// the records the page gave; in the table `strata_fetch` of a database (the
/// same on SQLite and PostgreSQL), in memory for a context in memory.
enum FetchCache {
  /// One URL's page.
  struct Entry: Equatable {
    /// The model of the page's records.
    var model: String
    /// The response's `ETag`, sent back as `If-None-Match`.
    var etag: String?
    /// The response's `Last-Modified`, sent back as `If-Modified-Since`.
    var modified: String?
    /// `digest(body)`: an unchanged body is not imported again.
    var digest: String
    /// The next page's URL, or nil.
    var next: String?
    /// The keys of the page's records, in order, as JSON text (an array).
    var keys: String
  }

  /// The table, made by the first page a database keeps.
  static let table =
    "CREATE TABLE IF NOT EXISTS strata_fetch(url TEXT PRIMARY KEY, model TEXT NOT NULL, etag TEXT, modified TEXT, "
    + "digest TEXT NOT NULL, next TEXT, keys TEXT NOT NULL)"

  /// The entry of `url` in `store`, or nil.
  static func entry(_ url: String, in store: GraphStore) throws(StrataError) -> Entry? {
    guard try store.connection.hasTable("strata_fetch") else { return nil }
    return try store.connection.withStatement(
      "SELECT model, etag, modified, digest, next, keys FROM strata_fetch WHERE url = ?"
    ) { (statement) throws(StrataError) -> Entry? in
      try statement.bind(1, text: url)
      guard try statement.step(), let model = statement.text(0), let digest = statement.text(3),
        let keys = statement.text(5)
      else { return nil }
      return Entry(
        model: model, etag: statement.text(1), modified: statement.text(2), digest: digest,
        next: statement.text(4), keys: keys)
    }
  }

  /// Keeps `entry` for `url` in `store` (inside the caller's write transaction).
  static func keep(_ entry: Entry, for url: String, in store: GraphStore) throws(StrataError) {
    try store.connection.execute(table)
    try store.connection.withStatement(
      "INSERT INTO strata_fetch(url, model, etag, modified, digest, next, keys) VALUES(?, ?, ?, ?, ?, ?, ?) "
        + "ON CONFLICT(url) DO UPDATE SET model = excluded.model, etag = excluded.etag, "
        + "modified = excluded.modified, digest = excluded.digest, next = excluded.next, keys = excluded.keys"
    ) { (statement) throws(StrataError) in
      try statement.bind(
        1,
        cells: [
          .text(url), .text(entry.model), entry.etag.map(SQLCell.text) ?? .null,
          entry.modified.map(SQLCell.text) ?? .null, .text(entry.digest),
          entry.next.map(SQLCell.text) ?? .null,
          .text(entry.keys),
        ])
      try statement.run()
    }
  }

  /// A digest of a body: its length and two 64-bit FNV-1a hashes (of the
  /// bytes, and of the bytes read from the end), in hex. Not a defence
  /// against an adversary: it tells an unchanged page from a changed one.
  static func digest(_ body: UnsafeBufferPointer<UInt8>) -> String {
    var forward: UInt64 = 0xcbf2_9ce4_8422_2325
    var backward: UInt64 = 0x8422_2325_cbf2_9ce4
    for byte in body {
      forward = (forward ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    for byte in body.reversed() {
      backward = (backward ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    return "\(body.count):" + SQLDialect.hex(forward) + SQLDialect.hex(backward)
  }
}
