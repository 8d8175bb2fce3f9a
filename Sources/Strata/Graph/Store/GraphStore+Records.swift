import CSQLite

/// Reading and writing records: by key, by model in key order, and batches
/// of upserts and deletes applied in one transaction.
extension GraphStore {
  /// One change of a `write`: the record of `model` under `key` gets `body`,
  /// or is deleted when `body` is nil. The values are borrowed for the call.
  package struct Change {
    /// The model's name.
    package var model: String
    /// The record's primary key (any JSON value; stored canonically).
    package var key: JPtr
    /// The record's new body, or nil to delete the record.
    package var body: JPtr?

    /// A change from its parts.
    package init(model: String, key: JPtr, body: JPtr?) {
      self.model = model
      self.key = key
      self.body = body
    }
  }

  /// A record read from the store; it owns its key and body (new references,
  /// released when the record goes).
  package final class StoredRecord {
    /// The canonical JSON text of the key, as stored (what records are ordered by).
    package let keyText: String
    /// The key.
    package let key: JPtr
    /// The body.
    package let body: JPtr

    /// Takes ownership of one reference to `key` and to `body`.
    init(keyText: String, key: JPtr, body: JPtr) {
      self.keyText = keyText
      self.key = key
      self.body = body
    }

    deinit {
      JValue.release(key)
      JValue.release(body)
    }
  }

  // MARK: reading

  /// The body of the record of `model` under `key` (borrowed), as a new
  /// reference; nil when there is none.
  package func get(model: String, key: JPtr) throws(StrataError) -> JPtr? {
    let keyText = try CanonicalJSON.text(key, what: "the key")
    return try connection.withStatement("SELECT body FROM records WHERE model = ? AND key = ?") {
      (statement) throws(StrataError) -> JPtr? in
      try statement.bind(1, text: model)
      try statement.bind(2, text: keyText)
      guard try statement.step() else { return nil }
      return try parseColumn(statement, 0, what: "the body of \(model) \(keyText)")
    }
  }

  /// The number of records of `model`.
  package func count(model: String) throws(StrataError) -> Int {
    try connection.withStatement("SELECT count(*) FROM records WHERE model = ?") {
      (statement) throws(StrataError) -> Int in
      try statement.bind(1, text: model)
      return try statement.step() ? Int(truncatingIfNeeded: statement.int64(0)) : 0
    }
  }

  /// Calls `body` with the key and body of every record of `model`, in key
  /// order: the byte order of the canonical key text (so the integer key 10
  /// comes before 9, and every number before every string). The values are
  /// borrowed for the call. Calling other reads of the store from `body` is
  /// allowed; writing is not (the iteration would see a moving table).
  package func forEach(
    model: String, _ body: (_ key: JPtr, _ body: JPtr) throws(StrataError) -> Void
  ) throws(StrataError) {
    try connection.withStatement("SELECT key, body FROM records WHERE model = ? ORDER BY key") {
      (statement) throws(StrataError) in
      try statement.bind(1, text: model)
      while try statement.step() {
        let key = try parseColumn(statement, 0, what: "a key of \(model)")
        defer { JValue.release(key) }
        let value = try parseColumn(statement, 1, what: "a body of \(model)")
        defer { JValue.release(value) }
        try body(key, value)
      }
    }
  }

  /// Every record of `model`, in key order (as `forEach`).
  package func loadAll(model: String) throws(StrataError) -> [StoredRecord] {
    var records: [StoredRecord] = []
    try connection.withStatement("SELECT key, body FROM records WHERE model = ? ORDER BY key") {
      (statement) throws(StrataError) in
      try statement.bind(1, text: model)
      while try statement.step() {
        let keyText = statement.text(0) ?? ""
        let key = try parseColumn(statement, 0, what: "a key of \(model)")
        let value: JPtr
        do throws(StrataError) {
          value = try parseColumn(statement, 1, what: "a body of \(model)")
        } catch {
          JValue.release(key)
          throw error
        }
        records.append(StoredRecord(keyText: keyText, key: key, body: value))
      }
    }
    return records
  }

  /// Every record of every model, by model name (names in byte order,
  /// records in key order), read in one read transaction: one snapshot of
  /// the file, even while another connection commits.
  package func loadEverything() throws(StrataError) -> [(model: String, records: [StoredRecord])] {
    try connection.readTransaction { () throws(StrataError) -> [(model: String, records: [StoredRecord])] in
      var everything: [(model: String, records: [StoredRecord])] = []
      for name in try models() { everything.append((name, try loadAll(model: name))) }
      return everything
    }
  }

  /// The names of the models that have records, in byte order.
  package func models() throws(StrataError) -> [String] {
    try connection.withStatement("SELECT DISTINCT model FROM records ORDER BY model") {
      (statement) throws(StrataError) -> [String] in
      var names: [String] = []
      while try statement.step() { names.append(statement.text(0) ?? "") }
      return names
    }
  }

  /// Parses the JSON text of a column (a new reference); anything else in the
  /// column means a damaged file: an `io` error.
  private func parseColumn(_ statement: SQLiteStatement, _ column: Int32, what: String) throws(StrataError)
    -> JPtr
  {
    let path = self.path
    return try statement.withText(column) { (bytes) throws(StrataError) -> JPtr in
      guard let bytes else {
        throw SQLiteError.store(.io, "\(what) is not text (the file is damaged)", path: path)
      }
      do throws(StrataError) {
        return try CanonicalJSON.parse(bytes, what: what)
      } catch {
        throw SQLiteError.store(.io, error.description, path: path)
      }
    }
  }

  // MARK: writing

  /// Applies `changes` in order, in ONE transaction: every upsert and delete
  /// lands, or none does and the file is exactly as before (`BEGIN
  /// IMMEDIATE` ... `COMMIT`, `ROLLBACK` on any failure: a full disk, a
  /// read-only file, a key that cannot be written, a process killed half-way).
  ///
  /// Keys and bodies are turned into canonical text before the transaction
  /// starts, so a bad value (nested too deep, an empty model name) fails
  /// before anything is written; its error's path is `/N`, the change's index.
  /// `progress`, when given, is called inside the transaction after each
  /// change is applied with the number applied so far (for progress reports;
  /// the crash test uses it to know it is half-way).
  package func write(_ changes: [Change], progress: ((Int) -> Void)? = nil) throws(StrataError) {
    var prepared: [(model: String, key: String, body: String?)] = []
    prepared.reserveCapacity(changes.count)
    for (index, change) in changes.enumerated() {
      do throws(StrataError) {
        if change.model.isEmpty {
          throw StrataError(code: .argument, message: "a record's model name must not be empty")
        }
        let key = try CanonicalJSON.text(change.key, what: "the key")
        let body = try change.body.map { (value) throws(StrataError) in
          try CanonicalJSON.text(value, what: "the body", sortKeys: false)
        }
        prepared.append((change.model, key, body))
      } catch {
        throw StrataError(
          error.errors.map { detail in
            var located = detail
            located.path = "/\(index)"
            return located
          })
      }
    }
    try connection.writeTransaction { () throws(StrataError) in
      for (index, change) in prepared.enumerated() {
        if let body = change.body {
          try connection.withStatement(
            "INSERT INTO records(model, key, body) VALUES(?, ?, ?) "
              + "ON CONFLICT(model, key) DO UPDATE SET body = excluded.body"
          ) { (statement) throws(StrataError) in
            try statement.bind(1, text: change.model)
            try statement.bind(2, text: change.key)
            try statement.bind(3, text: body)
            try statement.run()
          }
        } else {
          try connection.withStatement("DELETE FROM records WHERE model = ? AND key = ?") {
            (statement) throws(StrataError) in
            try statement.bind(1, text: change.model)
            try statement.bind(2, text: change.key)
            try statement.run()
          }
        }
        progress?(index + 1)
      }
    }
  }
}
