extension Model {
  /// Fills a `Decodable` value from this model's canonical values: the
  /// type's coding keys are property names, nested models are read as
  /// nested `Decodable` values, `[T]` and `{T}` as arrays and dictionaries,
  /// enum values and transformed values as the schema holds them (model
  /// side), dates as their RFC 3339 string (or ``Timestamp``; `Date` with
  /// `StrataFoundation`).
  ///
  /// An optional property decodes to nil when absent or null. A key the type
  /// reads that is no property of the model is an `argument` error; a value
  /// the Swift type cannot hold is a `type` error (`null` for null, `missing`
  /// for an absent property the type requires), with the path where the
  /// value sits in the model's JSON and the canonical path in the message.
  ///
  /// ```swift
  /// struct GHLabel: Codable { var name: String }
  /// let label = try schema.map("GHLabel", from: ["name": "bug"])
  /// try label.decode(GHLabel.self).name  // -> "bug"
  /// ```
  public func decode<T: Decodable>(_ type: T.Type = T.self) throws(StrataError) -> T {
    try decode(type, errorPrefix: "")
  }

  /// ``decode(_:)`` with `prefix` put before each error's path.
  func decode<T: Decodable>(_ type: T.Type, errorPrefix prefix: String) throws(StrataError) -> T {
    let root = dictionary
    let shape = SchemaShape.model(object.type)
    let decoder = CanonicalDecoder(root: root, shape: shape, schema: schema)
    do {
      return try decoder.decodeValue(type)
    } catch {
      throw CodingFailure.decoding(error, root: root, shape: shape, schema: schema, prefix: prefix)
    }
  }
}
