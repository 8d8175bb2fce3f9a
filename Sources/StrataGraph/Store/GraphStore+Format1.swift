import Strata

/// Reading a file of format 1: one table `records(model, key, body)`, the
/// key's canonical JSON text and the body's JSON text per record. Such a
/// file is read as it is, and converted to format 2 (`rewrite`) when a
/// context that may write opens it.
extension GraphStore {
  /// The body of `model`'s record under `key`, from format 1.
  func format1Get(model: String, key: JPtr) throws(StrataError) -> JPtr? {
    let keyText = try CanonicalJSON.text(key, what: "the key")
    return try connection.withStatement("SELECT body FROM records WHERE model = ? AND key = ?") {
      (statement) throws(StrataError) -> JPtr? in
      try statement.bind(1, text: model)
      try statement.bind(2, text: keyText)
      guard try statement.step() else { return nil }
      return try format1Column(statement, 0, what: "the body of \(model) \(keyText)")
    }
  }

  /// The number of `model`'s records, from format 1.
  func format1Count(model: String) throws(StrataError) -> Int {
    try connection.withStatement("SELECT count(*) FROM records WHERE model = ?") {
      (statement) throws(StrataError) -> Int in
      try statement.bind(1, text: model)
      return try statement.step() ? Int(truncatingIfNeeded: statement.int64(0)) : 0
    }
  }

  /// The models with records, from format 1, in byte order.
  func format1Models() throws(StrataError) -> [String] {
    try connection.withStatement("SELECT DISTINCT model FROM records ORDER BY model") {
      (statement) throws(StrataError) -> [String] in
      var names: [String] = []
      while try statement.step() { names.append(statement.text(0) ?? "") }
      return names
    }
  }

  /// Every record of `model`, from format 1, in key order (`RecordKey`'s).
  func format1LoadAll(model: String) throws(StrataError) -> [StoredRecord] {
    var records: [(RecordKey?, StoredRecord)] = []
    try connection.withStatement("SELECT key, body FROM records WHERE model = ?") {
      (statement) throws(StrataError) in
      try statement.bind(1, text: model)
      while try statement.step() {
        let keyText = statement.text(0) ?? ""
        let key = try format1Column(statement, 0, what: "a key of \(model)")
        let value: JPtr
        do throws(StrataError) {
          value = try format1Column(statement, 1, what: "a body of \(model)")
        } catch {
          JValue.release(key)
          throw error
        }
        records.append((RecordKey(json: key), StoredRecord(keyText: keyText, key: key, body: value)))
      }
    }
    return records.sorted { a, b in
      switch (a.0, b.0) {
      case (let x?, let y?): return x < y
      case (nil, let y): return y != nil
      default: return false
      }
    }.map(\.1)
  }

  /// Parses the JSON text of a column (a new reference); anything else in the
  /// column means a damaged file: an `io` error.
  private func format1Column(_ statement: any StoreStatement, _ column: Int32, what: String)
    throws(StrataError)
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
}
