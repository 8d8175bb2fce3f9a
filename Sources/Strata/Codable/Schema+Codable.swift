extension Schema {
  /// The model a Swift type stands for when the call names none: the type's
  /// name (`GHIssue`, `Page<Tweet>`).
  static func modelName<T>(for type: T.Type, _ model: String?) -> String {
    model ?? String(describing: type)
  }

  /// Maps API JSON onto the model named `model` (by default the type's name,
  /// `GHIssue` for `GHIssue.self`), then fills a `Decodable` value from the
  /// model's canonical values (see ``Model/decode(_:)``).
  ///
  /// The schema does the mapping: JSON keys, key paths, enums, transformers,
  /// dates, defaults and validation, each error with its path into `json`.
  /// The Swift type reads the result by property name.
  ///
  /// ```swift
  /// struct GHLabel: Codable { var name: String }
  /// let schema = try Schema(parsing: #"{"strata": 1, "models": {"GHLabel": {"properties": {"name": {"type": "string"}}}}}"#)
  /// try schema.decode(GHLabel.self, from: ["name": "bug"]).name  // -> "bug"
  /// ```
  public func decode<T: Decodable>(
    _ type: T.Type, model: String? = nil, from json: JSON
  ) throws(StrataError) -> T {
    try map(Schema.modelName(for: type, model), from: json).decode(type)
  }

  /// Parses JSON text, then decodes it as ``decode(_:model:from:)`` does.
  public func decode<T: Decodable>(
    _ type: T.Type, model: String? = nil, parsing text: String
  ) throws(StrataError) -> T {
    try map(Schema.modelName(for: type, model), parsing: text).decode(type)
  }

  /// Parses JSON given as UTF-8 bytes (`[UInt8]`, or Foundation's `Data`),
  /// then decodes it as ``decode(_:model:from:)`` does.
  public func decode<T: Decodable, Bytes: Sequence<UInt8>>(
    _ type: T.Type, model: String? = nil, parsing bytes: Bytes
  ) throws(StrataError) -> T {
    try map(Schema.modelName(for: type, model), parsing: bytes).decode(type)
  }

  /// Maps every element of a JSON array onto the model named `model` (by
  /// default the type's name) and decodes each; errors carry the element's
  /// index at the front of their paths (`/2/labels/0/name`).
  public func decodeMany<T: Decodable>(
    _ type: T.Type, model: String? = nil, from json: JSON
  ) throws(StrataError) -> [T] {
    let models = try mapMany(Schema.modelName(for: type, model), from: json)
    var out: [T] = []
    out.reserveCapacity(models.count)
    var errors: [ErrorDetail] = []
    for (index, element) in models.enumerated() {
      do {
        out.append(try element.decode(type, errorPrefix: "/\(index)"))
      } catch {
        errors += error.errors
      }
    }
    if !errors.isEmpty { throw StrataError(errors) }
    return out
  }

  /// Makes a model from an `Encodable` value: the value is encoded as a
  /// canonical dictionary (its coding keys are property names; an optional
  /// left nil is absent, an explicit `encodeNil` is null), which is then read
  /// as canonical input: types, enum values, dates, `validate` rules,
  /// required properties and defaults are checked, and a key that names no
  /// property is an `unknown_key` error, each error with its canonical path.
  ///
  /// `model` defaults to the value's type name. A nested value of a subtype
  /// names its model with a `"$type"` key, as canonical dictionaries do.
  ///
  /// ```swift
  /// struct GHLabel: Codable { var name: String }
  /// let label = try schema.model(from: GHLabel(name: "bug"))
  /// label["name"]  // -> "bug"
  /// ```
  public func model<T: Encodable>(_ model: String? = nil, from value: T) throws(StrataError) -> Model {
    let node = EncodingNode()
    do {
      try CanonicalEncoder(root: node).encodeValue(value)
    } catch {
      throw CodingFailure.encoding(error)
    }
    let canonical = node.json
    guard let pointer = canonical.makeJansson() else {
      throw StrataError(code: .type, message: "the value encodes to something JSON cannot represent")
    }
    defer { JValue.release(pointer) }
    return Model(try mapCanonical(Schema.modelName(for: T.self, model), pointer).get())
  }
}
