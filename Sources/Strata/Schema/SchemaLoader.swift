import CJansson

/// Reads a schema document (format 1) into models, checking all of it and
/// collecting every problem as a `schema` error with a JSON Pointer into the
/// document.
struct SchemaLoader {
  var errors: [ErrorDetail] = []
  /// Transformers the host registered, by name (built-in ones are always there).
  let custom: [String: Transformer]
  /// Mergers the host registered, by name.
  let mergers: [String: Merger]

  init(transformers: [String: Transformer] = [:], mergers: [String: Merger] = [:]) {
    self.custom = transformers
    self.mergers = mergers
  }
  var models: [ModelType] = []
  var modelIndex: [String: Int] = [:]
  /// Instance name -> its generic model's name as written (`Page<Tweet>` -> `Page<T>`).
  var instanceTemplates: [String: String] = [:]
  /// True when passes 1 and 2 reported errors: pass 3 then checks each
  /// property's own keys but reads no default values (they are mapped with the
  /// whole schema, which is not sound yet).
  var structureFailed = false
  /// Where the generics pass reported problems (JSON Pointers): later passes stay quiet there.
  var genericErrorPaths: Set<String> = []
  /// The models object with generic instances made (owned), when the document has generic models.
  var expandedModels: JPtr? = nil
  /// The generic models, by name without parameters: `Page` -> `Page<T>`.
  var genericNames: [String: String] = [:]

  /// Keys that later releases give meaning to: refused with a clear message.
  static let laterDocumentKeys: Set<String> = []
  static let laterModelKeys: Set<String> = []
  static let laterPropertyKeys: Set<String> = []

  /// The document's version and models, read by passes 1 and 2.
  struct Structure {
    let version: Int64
    let models: [ModelType]
    /// The `migrations` steps, by version (see MigrationReader).
    var migrations: [MigrationStep] = []
    /// The generic models, by name without parameters: `Page` -> `Page<T>`.
    var generics: [String: String] = [:]
    /// Each instance -> its generic model as written.
    var instanceTemplates: [String: String] = [:]
  }

  /// Passes 1 and 2: names, model keys and properties. Throws every error
  /// found when there is no structure to go on with; otherwise returns it even
  /// when it has errors (`structureFailed`), so that pass 3 reports its own
  /// problems (date patterns, regular expressions, enums, transforms) in the
  /// same run, and `readValues` throws them all together.
  mutating func readStructure(_ doc: JPtr) throws(StrataError) -> Structure {
    let structure = run(doc)
    guard let structure else {
      if errors.isEmpty { throw StrataError(code: .schema, message: "the schema is invalid") }
      throw StrataError(errors)
    }
    structureFailed = !errors.isEmpty
    return structure
  }

  /// Pass 3: defaults and enums, which need the finished schema. Throws every error found.
  mutating func readValues(_ doc: JPtr, schema: Schema) throws(StrataError) {
    if let modelsObject = expandedModels ?? json_object_get(doc, "models") {
      for model in schema.models { readValues(model, schema: schema, models: modelsObject) }
      readRelations(schema: schema, models: modelsObject)
    }
    if !errors.isEmpty { throw StrataError(errors) }
  }

  /// Reports a problem at `tokens` (an instance's tokens point into its
  /// generic model), unless the generics pass reported one there already.
  mutating func fail(_ tokens: [String], model: String = "", property: String = "", _ message: String) {
    if !genericErrorPaths.isEmpty, genericErrorPaths.contains(JSONPointer.make(sourceTokens(tokens))) {
      return
    }
    record(tokens, model: model, property: property, message)
  }

  /// Adds a `schema` error at `tokens`, as they point into the document.
  mutating func record(_ tokens: [String], model: String, property: String, _ message: String) {
    errors.append(
      ErrorDetail(
        path: JSONPointer.make(sourceTokens(tokens)), model: model, property: property, code: .schema,
        message: message))
  }

  /// Releases what the load made for itself (the expanded models object).
  mutating func releaseExpansion() {
    if let expandedModels { JValue.release(expandedModels) }
    expandedModels = nil
  }

  mutating func run(_ doc: JPtr) -> Structure? {
    guard JValue.isObject(doc) else {
      fail([], "a schema must be a JSON object, not \(JValue.typeName(doc))")
      return nil
    }
    var version: Int64 = 0
    var modelsObject: JPtr? = nil
    var migrationsValue: JPtr? = nil
    var instancesValue: JPtr? = nil
    var sawFormat = false
    JValue.forEachMember(doc) { keyBytes, value in
      let key = JValue.keyString(keyBytes)
      switch key {
      case "strata":
        sawFormat = true
        if !(JValue.isInteger(value) && json_integer_value(value) == 1) {
          fail(["strata"], "'strata' must be the format number 1")
        }
      case "version":
        if JValue.isInteger(value) && json_integer_value(value) >= 0 {
          version = json_integer_value(value)
        } else {
          fail(["version"], "'version' must be an integer >= 0")
        }
      case "models":
        modelsObject = value
      case "migrations":
        migrationsValue = value
      case "instances":
        instancesValue = value
      default:
        if Self.laterDocumentKeys.contains(key) {
          fail([key], "'\(key)' is not supported by this release of Strata yet")
        } else {
          fail([key], "unknown schema key '\(key)' (expected strata, version, models, migrations, instances)")
        }
      }
    }
    if !sawFormat { fail(["strata"], "the schema must declare its format: \"strata\": 1") }
    guard let modelsObject else {
      fail(["models"], "the schema must have 'models', an object of model name -> model")
      return nil
    }
    guard JValue.isObject(modelsObject), json_object_size(modelsObject) > 0 else {
      fail(["models"], "'models' must be a non-empty object of model name -> model")
      return nil
    }

    // Pass 1: names, so that types may refer to any model.
    var bodies: [(String, JPtr)] = []
    expandedModels = expandGenerics(modelsObject, instances: instancesValue)
    if let expandedModels, json_object_size(expandedModels) == 0, errors.isEmpty {
      fail(
        ["models"],
        "'models' holds only generic models: add a model, or name instances in 'instances'")
      return nil
    }
    JValue.forEachMember(expandedModels ?? modelsObject) { keyBytes, value in
      let name = JValue.keyString(keyBytes)
      if instanceTemplates[name] == nil, !Self.isIdentifier(name) {
        fail(
          ["models", name], model: name,
          "model name '\(name)' must start with a letter or '_' and hold only letters, digits and '_'")
      }
      modelIndex[name] = models.count
      models.append(ModelType(name: name, index: models.count))
      bodies.append((name, value))
    }

    // Pass 2: each model's keys and properties, bases first; then clusters.
    readModels(bodies)
    var migrations: [MigrationStep] = []
    if let migrationsValue {
      var reader = MigrationReader(version: version, transformers: custom)
      migrations = reader.read(migrationsValue)
      errors += reader.errors
    }
    // Even with errors the structure goes on to pass 3, so that one run reports
    // the problems of every pass (see readStructure).
    return Structure(
      version: version, models: models, migrations: migrations, generics: genericNames,
      instanceTemplates: instanceTemplates)
  }

  static func isIdentifier(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first else { return false }
    func isLetter(_ scalar: Unicode.Scalar) -> Bool {
      (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
    }
    guard isLetter(first) else { return false }
    return name.unicodeScalars.allSatisfy { isLetter($0) || ($0 >= "0" && $0 <= "9") }
  }
}
