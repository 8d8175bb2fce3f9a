import CJansson
import Glibc

/// A loaded, checked, immutable schema: the models a program maps JSON onto.
/// One schema may be shared by any number of threads.
public final class Schema: @unchecked Sendable {
  /// The schema's own `version` (0 when the document declares none).
  public let version: Int64
  /// The models, in the document's order.
  package let models: [ModelType]
  /// Model name -> index.
  let modelIndex: [String: Int]
  /// The model names, in the document's order.
  public let modelNames: [String]
  /// The `migrations` steps that bring archives of older versions up to this
  /// one, by version (see Migration.swift).
  let migrations: [MigrationStep]
  /// The generic models, by name without parameters: `Page` -> `Page<T>`.
  let generics: [String: String]
  /// Each instance of a generic model -> that generic model as written (`Page<Tweet>` -> `Page<T>`).
  let instanceTemplates: [String: String]
  /// What the byte parser builds of each model's objects (Sources/Strata/Parse), made on first use.
  package let parsePlans = ParsePlans()
  /// The host's key injectors, by model name (KeyInjector.swift).
  package let keyInjectors: [String: KeyInjector]

  /// Loads and checks a schema document (borrowed); the whole document is read
  /// and every problem reported.
  private init(
    loading document: JPtr, transformers: [String: Transformer] = [:], mergers: [String: Merger] = [:],
    keyInjectors: [String: KeyInjector] = [:]
  ) throws(StrataError) {
    if Nesting.exceeds(document, Nesting.documentLimit) {
      throw StrataError(
        code: .schema, message: "the schema document is nested deeper than \(Nesting.documentLimit) levels")
    }
    var loader = SchemaLoader(transformers: transformers, mergers: mergers)
    defer { loader.releaseExpansion() }
    let structure = try loader.readStructure(document)
    self.version = structure.version
    self.migrations = structure.migrations
    self.generics = structure.generics
    self.instanceTemplates = structure.instanceTemplates
    self.models = structure.models
    self.modelNames = structure.models.map(\.name)
    var index: [String: Int] = [:]
    for model in structure.models { index[model.name] = model.index }
    self.modelIndex = index
    self.keyInjectors = keyInjectors
    try loader.readValues(document, schema: self)
    var problems: [ErrorDetail] = []
    for name in keyInjectors.keys.sorted() {
      guard let model = index[name] else {
        problems.append(
          ErrorDetail(
            path: "", code: .argument,
            message: "a key injector names model '\(name)', which the schema does not have"
              + Suggestion.hint(for: name, among: modelNames)))
        continue
      }
      if structure.models[model].primaryKey.isEmpty {
        problems.append(
          ErrorDetail(
            path: "", model: name, code: .argument,
            message: "a key injector gives keys to '\(name)', which has no primaryKey"))
      }
    }
    if !problems.isEmpty { throw StrataError(problems) }
  }

  deinit {
    // Default values may hold models whose type is the model that holds
    // them (see ModelType.releaseDefaults).
    for model in models { model.releaseDefaults() }
  }

  /// Loads a schema from its JSON document; `transformers` are the host's
  /// own, by the names the schema's `transform` keys use, and `mergers` the
  /// host's merge policies, by the names the schema's `merge` keys use.
  public convenience init(
    _ document: JSON, transformers: [String: ValueTransformer] = [:], mergers: [String: ValueMerger] = [:],
    keyInjectors: [String: KeyInjectorFunction] = [:]
  ) throws(StrataError) {
    guard let pointer = document.makeJansson() else {
      throw StrataError(code: .schema, message: "the schema document holds a value JSON cannot represent")
    }
    defer { JValue.release(pointer) }
    try self.init(
      loading: pointer, transformers: try Schema.engineTransformers(transformers),
      mergers: try Schema.engineMergers(mergers), keyInjectors: Schema.engineInjectors(keyInjectors))
  }

  private static func engineMergers(_ mergers: [String: ValueMerger]) throws(StrataError) -> [String: Merger]
  {
    var out: [String: Merger] = [:]
    for (name, merger) in mergers {
      if isBuiltinMergePolicy(name) {
        throw StrataError(
          code: .argument, message: "'\(name)' is a built-in merge policy: choose another name")
      }
      out[name] = merger.engineMerger(named: name)
    }
    return out
  }

  /// True for the names of built-in merge policies.
  package static func isBuiltinMergePolicy(_ name: String) -> Bool {
    ["replace", "keep", "merge", "append", "union", "max", "min"].contains(name)
  }

  /// Loads a schema from JSON text; `transformers` and `mergers` as for
  /// ``init(_:transformers:mergers:)``.
  ///
  /// ```swift
  /// let schema = try Schema(parsing: #"{"strata": 1, "models": {"GHLabel": {"properties": {"name": {"type": "string"}}}}}"#)
  /// ```
  public convenience init(
    parsing text: String, transformers: [String: ValueTransformer] = [:],
    mergers: [String: ValueMerger] = [:],
    keyInjectors: [String: KeyInjectorFunction] = [:]
  ) throws(StrataError) {
    let pointer = try JSONText.parse(text).get()
    defer { JValue.release(pointer) }
    try self.init(
      loading: pointer, transformers: try Schema.engineTransformers(transformers),
      mergers: try Schema.engineMergers(mergers), keyInjectors: Schema.engineInjectors(keyInjectors))
  }

  /// Engine injectors over Swift functions.
  private static func engineInjectors(_ injectors: [String: KeyInjectorFunction]) -> [String: KeyInjector] {
    var out: [String: KeyInjector] = [:]
    for (model, function) in injectors {
      out[model] = KeyInjector(model: model) { value, parent in
        do {
          let key = try function(JSON(borrowing: value), parent.map { JSON(borrowing: $0) })
          guard let made = key.makeJansson() else { return .failure(MergeRefusal("the key is not JSON")) }
          return .success(made)
        } catch {
          return .failure(MergeRefusal("\(error)"))
        }
      }
    }
    return out
  }

  /// Loads a schema from JSON given as UTF-8 bytes (`[UInt8]`, or Foundation's `Data`).
  public convenience init<Bytes: Sequence<UInt8>>(
    parsing bytes: Bytes, transformers: [String: ValueTransformer] = [:], mergers: [String: ValueMerger] = [:]
  ) throws(StrataError) {
    let pointer = try JSONText.parse(bytes: bytes).get()
    defer { JValue.release(pointer) }
    try self.init(
      loading: pointer, transformers: try Schema.engineTransformers(transformers),
      mergers: try Schema.engineMergers(mergers))
  }

  /// Loads a schema from the file at `path`.
  public convenience init(
    contentsOfFile path: String, transformers: [String: ValueTransformer] = [:]
  ) throws(StrataError) {
    let pointer = try Schema.readFile(path).get()
    defer { JValue.release(pointer) }
    try self.init(loading: pointer, transformers: try Schema.engineTransformers(transformers))
  }

  private static func engineTransformers(
    _ transformers: [String: ValueTransformer]
  ) throws(StrataError) -> [String: Transformer] {
    var out: [String: Transformer] = [:]
    for (name, transformer) in transformers {
      if isBuiltinTransformer(name) {
        throw StrataError(
          code: .argument, message: "'\(name)' is a built-in transformer: choose another name")
      }
      out[name] = transformer.engineTransformer(named: name)
    }
    return out
  }

  /// True for the names of built-in transformers.
  package static func isBuiltinTransformer(_ name: String) -> Bool { BuiltinTransformers.all[name] != nil }

  /// Loads a schema document given as a jansson value (borrowed).
  package static func load(
    _ document: JPtr, transformers: [String: Transformer] = [:], mergers: [String: Merger] = [:],
    keyInjectors: [String: KeyInjector] = [:]
  ) -> Result<Schema, StrataError> {
    do {
      return .success(
        try Schema(
          loading: document, transformers: transformers, mergers: mergers, keyInjectors: keyInjectors))
    } catch {
      return .failure(error)
    }
  }

  /// Parses the JSON file at `path` (a new reference), or an `io` / `syntax` error.
  package static func readFile(_ path: String) -> Result<JPtr, StrataError> {
    var error = json_error_t()
    if let parsed = json_load_file(path, JValue.decodeFlags, &error) { return .success(parsed) }
    let text = withUnsafeBytes(of: &error.text) { raw in
      String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
    if error.line <= 0 {
      return .failure(StrataError(code: .io, message: "cannot read '\(path)': \(text)"))
    }
    // The text is read again to name the value being read when it broke
    // (a file that cannot be read again is located as empty text).
    let bytes = fileBytes(path) ?? []
    return .failure(
      bytes.withUnsafeBufferPointer { JSONText.syntaxError(&error, in: $0, place: " in '\(path)'") })
  }

  /// The bytes of the file at `path`, or nil when it cannot be read.
  private static func fileBytes(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
      bytes += chunk.prefix(count)
      if count < chunk.count { return ferror(file) == 0 ? bytes : nil }
    }
  }

  /// True when the `subtypes` of model `base` (directly or through clusters
  /// of clusters) can choose model `index`.
  func isSubtype(_ index: Int, of base: Int) -> Bool {
    var stack = base < models.count ? models[base].cluster?.targets ?? [] : []
    var seen: Set<Int> = []
    while let next = stack.popLast() {
      if next == index { return true }
      if seen.insert(next).inserted, next < models.count { stack += models[next].cluster?.targets ?? [] }
    }
    return false
  }

  /// The model type named `name` (an instance of a generic model in any
  /// spacing: `Page< Tweet >` is `Page<Tweet>`), or an `argument` error.
  package func modelType(_ name: String) -> Result<ModelType, StrataError> {
    if let index = modelIndex[name] { return .success(models[index]) }
    guard name.contains("<"), case .success(let expression) = TypeExpression.parse(name) else {
      if let written = generics[name] {
        return .failure(
          StrataError(
            code: .argument,
            message: "'\(written)' is a generic model: name an instance such as \(name)<...>"))
      }
      return .failure(
        StrataError(
          code: .argument,
          message: "the schema has no model named '\(name)'\(Suggestion.hint(for: name, among: modelNames))"))
    }
    if let index = modelIndex[expression.text] { return .success(models[index]) }
    if case .named(let base, _) = expression, let written = generics[base] {
      return .failure(
        StrataError(
          code: .argument,
          message:
            "the schema has no instance '\(expression.text)' of '\(written)': instances are made when the schema "
            + "loads, for each one its models use or its \"instances\" list names"))
    }
    return .failure(
      StrataError(
        code: .argument,
        message: "the schema has no model named '\(name)'\(Suggestion.hint(for: name, among: modelNames))"))
  }

  // MARK: mapping jansson values

  /// Maps a jansson value (borrowed) onto a new model named `model`.
  package func mapValue(_ model: String, _ value: JPtr) -> Result<ModelObject, StrataError> {
    let type: ModelType
    switch modelType(model) {
    case .success(let found): type = found
    case .failure(let error): return .failure(error)
    }
    var mapper = Mapper(schema: self, mode: .json)
    if let object = mapper.mapRoot(value, type: type), mapper.errors.isEmpty { return .success(object) }
    return .failure(StrataError(mapper.errors))
  }

  /// Maps every element of a jansson array (borrowed) onto new models named `model`.
  package func mapValues(_ model: String, _ value: JPtr) -> Result<[ModelObject], StrataError> {
    let type: ModelType
    switch modelType(model) {
    case .success(let found): type = found
    case .failure(let error): return .failure(error)
    }
    var mapper = Mapper(schema: self, mode: .json)
    if let objects = mapper.mapMany(value, type: type), mapper.errors.isEmpty { return .success(objects) }
    return .failure(StrataError(mapper.errors))
  }

  /// Reads a canonical value (a canonical dictionary; with `"$type"` and
  /// `"$unknown"` as archives carry them) as a new model named `model`.
  package func mapCanonical(_ model: String, _ value: JPtr) -> Result<ModelObject, StrataError> {
    let type: ModelType
    switch modelType(model) {
    case .success(let found): type = found
    case .failure(let error): return .failure(error)
    }
    var mapper = Mapper(schema: self, mode: .canonical)
    if let object = mapper.mapRoot(value, type: type), mapper.errors.isEmpty { return .success(object) }
    return .failure(StrataError(mapper.errors))
  }

  // MARK: the Swift API
  //
  // One family of names: a JSON value comes `from:`, JSON text or UTF-8
  // bytes come `parsing:` (as in `JSON(parsing:)`), and a model name comes
  // first, unlabeled. The older spellings forward from Schema+Deprecated.swift.

  /// Maps a JSON value onto a new model named `model`; throws every error of
  /// the input, each with its path into `json`.
  ///
  /// ```swift
  /// let label = try schema.map("GHLabel", from: ["name": "bug"])
  /// ```
  public func map(_ model: String, from json: JSON) throws(StrataError) -> Model {
    guard let pointer = json.makeJansson() else {
      throw StrataError(code: .type, message: "the input holds a value JSON cannot represent")
    }
    defer { JValue.release(pointer) }
    return Model(try mapValue(model, pointer).get())
  }

  /// Parses JSON text and maps it onto a new model named `model` (a `syntax`
  /// error for text that is not JSON).
  public func map(_ model: String, parsing text: String) throws(StrataError) -> Model {
    var copy = text
    return Model(try copy.withUTF8 { mapBytes(model, $0) }.get())
  }

  /// Parses JSON given as UTF-8 bytes (`[UInt8]`, or Foundation's `Data`)
  /// and maps it onto a new model named `model`.
  public func map<Bytes: Sequence<UInt8>>(_ model: String, parsing bytes: Bytes) throws(StrataError) -> Model
  {
    if let result = bytes.withContiguousStorageIfAvailable({ mapBytes(model, $0) }) {
      return Model(try result.get())
    }
    return Model(try Array(bytes).withUnsafeBufferPointer { mapBytes(model, $0) }.get())
  }

  /// Maps every element of a JSON array onto new models named `model`;
  /// errors carry the element's index at the front of their paths.
  public func mapMany(_ model: String, from json: JSON) throws(StrataError) -> [Model] {
    guard let pointer = json.makeJansson() else {
      throw StrataError(code: .type, message: "the input holds a value JSON cannot represent")
    }
    defer { JValue.release(pointer) }
    return try mapValues(model, pointer).get().map(Model.init)
  }

  /// Parses JSON text holding an array and maps each element onto a new
  /// model named `model`. Text of 512 KiB or more is read on several cores
  /// at once, with the same answer (`STRATA_THREADS`, docs/parsing.md).
  public func mapMany(_ model: String, parsing text: String) throws(StrataError) -> [Model] {
    var copy = text
    return try copy.withUTF8 { mapManyBytes(model, $0) }.get().map(Model.init)
  }
}
