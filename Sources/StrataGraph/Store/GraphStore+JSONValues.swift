import Strata

/// The store's reads and writes with Swift `JSON` values instead of jansson
/// pointers: for tests, tools and callers that hold no `json_t`. Each call
/// converts its values and forwards to the `JPtr` form.
extension GraphStore {
  /// A change with `JSON` values: `body` nil deletes the record.
  package struct JSONChange: Sendable {
    /// The model's name.
    package var model: String
    /// The record's primary key.
    package var key: JSON
    /// The record's new body, or nil to delete the record.
    package var body: JSON?
    /// True when the file holds no row of the key (`Change.isNew`).
    package var isNew: Bool

    /// A change from its parts.
    package init(model: String, key: JSON, body: JSON?, isNew: Bool = false) {
      self.model = model
      self.key = key
      self.body = body
      self.isNew = isNew
    }
  }

  /// A jansson copy of `value` (a new reference), or the error of a value
  /// jansson cannot hold (a real that is NaN or infinite).
  private static func jansson(_ value: JSON) throws(StrataError) -> JPtr {
    guard let pointer = value.makeJansson() else {
      throw StrataError(code: .argument, message: "the value cannot be stored as JSON (NaN or infinity)")
    }
    return pointer
  }

  /// `get(model:key:)` with `JSON` values.
  package func get(model: String, key: JSON) throws(StrataError) -> JSON? {
    let keyValue = try Self.jansson(key)
    defer { JValue.release(keyValue) }
    guard let body = try get(model: model, key: keyValue) else { return nil }
    defer { JValue.release(body) }
    return JSON(borrowing: body)
  }

  /// `loadAll(model:)` with `JSON` values, in key order.
  package func all(model: String) throws(StrataError) -> [(key: JSON, body: JSON)] {
    var records: [(key: JSON, body: JSON)] = []
    try forEach(model: model) { (key, body) throws(StrataError) in
      records.append((JSON(borrowing: key), JSON(borrowing: body)))
    }
    return records
  }

  /// `write(_:progress:)` with `JSON` values: one transaction.
  package func write(_ changes: [JSONChange], progress: ((Int) -> Void)? = nil) throws(StrataError) {
    var owned: [JPtr] = []
    defer { for value in owned { JValue.release(value) } }
    var converted: [Change] = []
    converted.reserveCapacity(changes.count)
    for change in changes {
      let key = try Self.jansson(change.key)
      owned.append(key)
      var body: JPtr? = nil
      if let value = change.body {
        let made = try Self.jansson(value)
        owned.append(made)
        body = made
      }
      converted.append(Change(model: change.model, key: key, body: body, isNew: change.isNew))
    }
    try write(converted, progress: progress)
  }
}
