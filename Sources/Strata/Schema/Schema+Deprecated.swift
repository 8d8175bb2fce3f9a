// The spellings the Swift API had before its names became one family
// (docs/swift.md): a JSON value comes `from:`, JSON text or bytes come
// `parsing:`. Each forwards to its new name, so code written against them
// still builds (with a warning that names the new spelling).

extension Schema {
  /// Loads a schema from JSON text.
  @available(*, deprecated, renamed: "init(parsing:transformers:)")
  public convenience init(text: String, transformers: [String: ValueTransformer] = [:]) throws(StrataError) {
    try self.init(parsing: text, transformers: transformers)
  }

  /// Maps a JSON value onto a new model named `model`.
  @available(*, deprecated, renamed: "map(_:from:)")
  public func map(_ model: String, _ json: JSON) throws(StrataError) -> Model {
    try map(model, from: json)
  }

  /// Maps JSON text onto a new model named `model`.
  @available(*, deprecated, renamed: "map(_:parsing:)")
  public func map(_ model: String, text: String) throws(StrataError) -> Model {
    try map(model, parsing: text)
  }

  /// Maps every element of a JSON array onto new models named `model`.
  @available(*, deprecated, renamed: "mapMany(_:from:)")
  public func mapMany(_ model: String, _ json: JSON) throws(StrataError) -> [Model] {
    try mapMany(model, from: json)
  }

  /// Maps JSON text holding an array onto new models named `model`.
  @available(*, deprecated, renamed: "mapMany(_:parsing:)")
  public func mapMany(_ model: String, text: String) throws(StrataError) -> [Model] {
    try mapMany(model, parsing: text)
  }

  /// Maps an API response.
  @available(*, deprecated, renamed: "mapResponse(_:from:root:meta:)")
  public func mapResponse(
    _ model: String, _ json: JSON, root: String? = nil, meta: ResponseMeta? = nil
  ) throws(StrataError) -> Response {
    try mapResponse(model, from: json, root: root, meta: meta)
  }

  /// Maps an API response given as JSON text.
  @available(*, deprecated, renamed: "mapResponse(_:parsing:root:meta:)")
  public func mapResponse(
    _ model: String, text: String, root: String? = nil, meta: ResponseMeta? = nil
  ) throws(StrataError) -> Response {
    try mapResponse(model, parsing: text, root: root, meta: meta)
  }

  /// Maps JSON lines held in one text.
  @available(*, deprecated, renamed: "mapLines(_:parsing:maxLineLength:)")
  public func mapLines(
    _ model: String, text: String, maxLineLength: Int = LineMapper.defaultMaxLineLength
  ) throws(StrataError) -> LineMapper {
    try mapLines(model, parsing: text, maxLineLength: maxLineLength)
  }

  /// Restores a model from an archive.
  @available(*, deprecated, renamed: "unarchive(from:)")
  public func unarchive(_ archive: JSON) throws(StrataError) -> Model {
    try unarchive(from: archive)
  }

  /// Restores a model from the JSON text of an archive.
  @available(*, deprecated, renamed: "unarchive(parsing:)")
  public func unarchive(text: String) throws(StrataError) -> Model {
    try unarchive(parsing: text)
  }
}

extension Model {
  /// Updates this model from API JSON.
  @available(*, deprecated, renamed: "update(from:)")
  public mutating func update(_ json: JSON) throws(StrataError) {
    try update(from: json)
  }
}
