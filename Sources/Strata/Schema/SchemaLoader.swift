import CJansson

/// Reads a schema document (format 1) into models, checking all of it and
/// collecting every problem as a `schema` error with a JSON Pointer into the
/// document.
struct SchemaLoader {
  private var errors: [ErrorDetail] = []
  /// Transformers the host registered, by name (built-in ones are always there).
  private let custom: [String: Transformer]
  /// Mergers the host registered, by name.
  private let mergers: [String: Merger]

  init(transformers: [String: Transformer] = [:], mergers: [String: Merger] = [:]) {
    self.custom = transformers
    self.mergers = mergers
  }
  private var models: [ModelType] = []
  private var modelIndex: [String: Int] = [:]

  /// Keys that later releases give meaning to: refused with a clear message.
  private static let laterDocumentKeys: Set<String> = []
  private static let laterModelKeys: Set<String> = ["root"]
  private static let laterPropertyKeys: Set<String> = [
    "inverse"
  ]

  /// The document's version and models, read by passes 1 and 2.
  struct Structure {
    let version: Int64
    let models: [ModelType]
    /// The `migrations` steps, by version (see MigrationReader).
    var migrations: [MigrationStep] = []
  }

  /// Passes 1 and 2: names, model keys and properties. Throws every error found.
  mutating func readStructure(_ doc: JPtr) throws(StrataError) -> Structure {
    let structure = run(doc)
    if !errors.isEmpty { throw StrataError(errors) }
    guard let structure else { throw StrataError(code: .schema, message: "the schema is invalid") }
    return structure
  }

  /// Pass 3: defaults and enums, which need the finished schema. Throws every error found.
  mutating func readValues(_ doc: JPtr, schema: Schema) throws(StrataError) {
    if let modelsObject = json_object_get(doc, "models") {
      for model in schema.models { readValues(model, schema: schema, models: modelsObject) }
    }
    if !errors.isEmpty { throw StrataError(errors) }
  }

  private mutating func fail(_ tokens: [String], model: String = "", property: String = "", _ message: String)
  {
    errors.append(
      ErrorDetail(
        path: JSONPointer.make(tokens), model: model, property: property, code: .schema, message: message))
  }

  private mutating func run(_ doc: JPtr) -> Structure? {
    guard JValue.isObject(doc) else {
      fail([], "a schema must be a JSON object, not \(JValue.typeName(doc))")
      return nil
    }
    var version: Int64 = 0
    var modelsObject: JPtr? = nil
    var migrationsValue: JPtr? = nil
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
      default:
        if Self.laterDocumentKeys.contains(key) {
          fail([key], "'\(key)' is not supported by this release of Strata yet")
        } else {
          fail([key], "unknown schema key '\(key)' (expected strata, version, models, migrations)")
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
    JValue.forEachMember(modelsObject) { keyBytes, value in
      let name = JValue.keyString(keyBytes)
      if !Self.isIdentifier(name) {
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
    return errors.isEmpty ? Structure(version: version, models: models, migrations: migrations) : nil
  }

  static func isIdentifier(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first else { return false }
    func isLetter(_ scalar: Unicode.Scalar) -> Bool {
      (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
    }
    guard isLetter(first) else { return false }
    return name.unicodeScalars.allSatisfy { isLetter($0) || ($0 >= "0" && $0 <= "9") }
  }

  /// Pass 2: reads every model, each base before the models that extend it.
  private mutating func readModels(_ bodies: [(String, JPtr)]) {
    var bases: [Int?] = Array(repeating: nil, count: bodies.count)
    for (position, (name, body)) in bodies.enumerated() where JValue.isObject(body) {
      guard let value = json_object_get(body, "extends") else { continue }
      if JValue.isString(value), let index = modelIndex[JValue.string(value)] {
        if index == position {
          fail(["models", name, "extends"], model: name, "model '\(name)' cannot extend itself")
        } else {
          bases[position] = index
        }
      } else {
        fail(["models", name, "extends"], model: name, "'extends' must name a model of the schema")
      }
    }
    // A cycle of `extends` is an error of every model on it. Each model has
    // at most one base, so one walk per chain finds every cycle (linear).
    var onCycle = Array(repeating: false, count: bodies.count)
    var state = Array(repeating: 0, count: bodies.count)  // 0 new, 1 on the walk, 2 done
    for start in bodies.indices where state[start] == 0 {
      var walk: [Int] = []
      var current: Int? = start
      while let here = current, state[here] == 0 {
        state[here] = 1
        walk.append(here)
        current = bases[here]
      }
      if let here = current, state[here] == 1, let first = walk.firstIndex(of: here) {
        let cycle = Array(walk[first...])
        for (offset, member) in cycle.enumerated() {
          let names = (cycle[offset...] + cycle[..<offset] + [member]).map { bodies[$0].0 }
          fail(
            ["models", bodies[member].0, "extends"], model: bodies[member].0,
            "'extends' forms a cycle: \(names.joined(separator: " -> "))")
          onCycle[member] = true
        }
      }
      for member in walk { state[member] = 2 }
    }
    // Read every model after its base, without recursion (chains may be long).
    var done = Array(repeating: false, count: bodies.count)
    for start in bodies.indices where !done[start] {
      var chain: [Int] = []
      var current: Int? = start
      while let here = current, !done[here], !onCycle[here] {
        chain.append(here)
        current = bases[here]
      }
      for position in chain.reversed() {
        done[position] = true
        let base = bases[position].map { models[$0] }
        readModel(models[position], name: bodies[position].0, body: bodies[position].1, base: base)
      }
    }
    for (position, (name, body)) in bodies.enumerated() where JValue.isObject(body) {
      if let value = json_object_get(body, "subtypes") {
        readSubtypes(models[position], name: name, value: value)
      }
    }
    checkSubtypeCycles()
    if errors.isEmpty { chainDiscriminators() }
  }

  /// A subtype chosen through a cluster of clusters carries every
  /// discriminator on the way: `{"type": "media", "kind": "video"}`.
  private func chainDiscriminators() {
    var changed = true
    var rounds = 0
    while changed && rounds <= models.count {
      changed = false
      rounds += 1
      for base in models {
        guard case .key(let key, let table)? = base.cluster else { continue }
        for (value, index) in table where index < models.count {
          let target = models[index]
          let chain = base.discriminators + [(key, value)]
          if target.discriminators.count < chain.count {
            target.discriminators = chain
            for (chainKey, _) in chain { target.mappedKeys.insert(chainKey.name) }
            changed = true
          }
        }
      }
    }
  }

  private mutating func readModel(_ model: ModelType, name: String, body: JPtr, base: ModelType?) {
    let path = ["models", name]
    guard JValue.isObject(body) else {
      fail(path, model: name, "model '\(name)' must be an object with 'properties'")
      return
    }
    var naming = base?.naming ?? NamingRule.none
    var primaryKeyValue: JPtr? = nil
    var propertiesValue: JPtr? = nil
    var claimed: [[String]: String] = [:]
    if let base {
      model.base = base
      model.naming = base.naming
      model.properties = base.properties
      model.propertyIndex = base.propertyIndex
      model.unknownKeys = base.unknownKeys
      model.primaryKey = base.primaryKey
      for spec in base.properties {
        for keys in Self.keyLists(spec.location) { claimed[keys.map(\.name)] = spec.name }
      }
    }
    JValue.forEachMember(body) { keyBytes, value in
      let key = JValue.keyString(keyBytes)
      switch key {
      case "properties": propertiesValue = value
      case "primaryKey": primaryKeyValue = value
      case "extends", "subtypes": break  // read by readModels
      case "keys":
        if JValue.isString(value), let rule = NamingRule(rawValue: JValue.string(value)) {
          naming = rule
          model.naming = rule
        } else {
          fail(path + [key], model: name, "'keys' must be one of snake_case, camelCase, kebab-case, none")
        }
      case "unknownKeys":
        if JValue.isString(value), let rule = UnknownKeys(rawValue: JValue.string(value)) {
          model.unknownKeys = rule
        } else {
          fail(path + [key], model: name, "'unknownKeys' must be one of ignore, keep, reject")
        }
      default:
        if Self.laterModelKeys.contains(key) {
          fail(path + [key], model: name, "'\(key)' is not supported by this release of Strata yet")
        } else {
          fail(
            path + [key], model: name,
            "unknown model key '\(key)' (expected properties, primaryKey, keys, unknownKeys, extends, subtypes)"
          )
        }
      }
    }
    guard let propertiesValue, JValue.isObject(propertiesValue) else {
      if base == nil || json_object_get(body, "properties") != nil {
        fail(path + ["properties"], model: name, "model '\(name)' must have 'properties', an object")
      }
      finishModel(model)
      return
    }
    JValue.forEachMember(propertiesValue) { keyBytes, value in
      let propertyName = JValue.keyString(keyBytes)
      let propertyPath = path + ["properties", propertyName]
      if propertyName.isEmpty {
        fail(propertyPath, model: name, "a property name cannot be empty")
        return
      }
      if propertyName.hasPrefix("$") {
        fail(
          propertyPath, model: name, property: propertyName,
          "property names starting with '$' are reserved ($type, $unknown mark subtypes and kept keys)")
        return
      }
      guard
        let spec = readProperty(
          propertyName, value, path: propertyPath, model: name, naming: naming)
      else { return }
      let overridden = model.propertyIndex[propertyName]
      if let overridden {
        for keys in Self.keyLists(model.properties[overridden].location) { claimed[keys.map(\.name)] = nil }
      }
      for keys in Self.keyLists(spec.location) {
        let names = keys.map(\.name)
        if let other = claimed[names] {
          fail(
            propertyPath + ["json"], model: name, property: propertyName,
            "'\(propertyName)' and '\(other)' both claim the key path \(names.joined(separator: "."))")
        } else {
          claimed[names] = propertyName
        }
      }
      if let overridden {
        model.properties[overridden] = spec
      } else {
        model.propertyIndex[propertyName] = model.properties.count
        model.properties.append(spec)
      }
    }
    if let primaryKeyValue {
      model.primaryKey = []
      var names: [String] = []
      if JValue.isString(primaryKeyValue) {
        names = [JValue.string(primaryKeyValue)]
      } else if JValue.isArray(primaryKeyValue), json_array_size(primaryKeyValue) > 0 {
        for position in 0..<json_array_size(primaryKeyValue) {
          if let element = json_array_get(primaryKeyValue, position), JValue.isString(element) {
            names.append(JValue.string(element))
          } else {
            fail(path + ["primaryKey", String(position)], model: name, "a primary key names a property")
          }
        }
      } else {
        fail(path + ["primaryKey"], model: name, "'primaryKey' must be a property name or a list of them")
      }
      for keyName in names {
        if let index = model.propertyIndex[keyName] {
          model.primaryKey.append(index)
        } else {
          fail(path + ["primaryKey"], model: name, "primary key '\(keyName)' is not a property of '\(name)'")
        }
      }
    }
    finishModel(model)
  }

  /// Derived facts of a read model: the input keys it maps.
  private func finishModel(_ model: ModelType) {
    for spec in model.properties {
      for keys in Self.keyLists(spec.location) {
        if let first = keys.first { model.mappedKeys.insert(first.name) }
      }
    }
  }

  /// `subtypes`: by a discriminator key, or by rules on the keys present.
  private mutating func readSubtypes(_ model: ModelType, name: String, value: JPtr) {
    let path = ["models", name, "subtypes"]
    guard JValue.isObject(value) else {
      fail(path, model: name, "'subtypes' must be an object with 'key' and 'map', or with 'rules'")
      return
    }
    func subtype(_ target: JPtr, at tokens: [String]) -> Int? {
      guard JValue.isString(target), let index = modelIndex[JValue.string(target)] else {
        fail(tokens, model: name, "a subtype must name a model of the schema")
        return nil
      }
      if index == model.index {
        fail(tokens, model: name, "model '\(name)' cannot be its own subtype")
        return nil
      }
      return index
    }
    let keyValue = json_object_get(value, "key")
    let mapValue = json_object_get(value, "map")
    let rulesValue = json_object_get(value, "rules")
    var ok = true
    JValue.forEachMember(value) { keyBytes, _ in
      let key = JValue.keyString(keyBytes)
      if !["key", "map", "rules"].contains(key) {
        fail(path + [key], model: name, "unknown subtypes key '\(key)' (expected key and map, or rules)")
        ok = false
      }
    }
    if let keyValue {
      guard JValue.isString(keyValue), !JValue.string(keyValue).isEmpty else {
        fail(path + ["key"], model: name, "'key' must be the name of the discriminator key")
        return
      }
      guard let mapValue, JValue.isObject(mapValue), json_object_size(mapValue) > 0, rulesValue == nil else {
        fail(
          path + ["map"], model: name,
          "subtypes by 'key' need a non-empty 'map' of discriminator value -> model (and no 'rules')")
        return
      }
      let key = Key(JValue.string(keyValue))
      var table: [String: Int] = [:]
      JValue.forEachMember(mapValue) { keyBytes, target in
        let discriminator = JValue.keyString(keyBytes)
        guard let index = subtype(target, at: path + ["map", discriminator]) else {
          ok = false
          return
        }
        table[discriminator] = index
        let chosen = models[index]
        if chosen.discriminators.isEmpty { chosen.discriminators = [(key, discriminator)] }
        chosen.isSubtype = true
        chosen.mappedKeys.insert(key.name)
      }
      model.mappedKeys.insert(key.name)
      if ok { model.cluster = .key(key, table) }
      return
    }
    guard let rulesValue, JValue.isArray(rulesValue), json_array_size(rulesValue) > 0 else {
      fail(path, model: name, "'subtypes' needs 'key' and 'map', or a non-empty list of 'rules'")
      return
    }
    var rules: [(has: Key, model: Int)] = []
    for position in 0..<json_array_size(rulesValue) {
      let tokens = path + ["rules", String(position)]
      guard let rule = json_array_get(rulesValue, position), JValue.isObject(rule) else {
        fail(tokens, model: name, "a rule is {\"has\": key, \"model\": model}")
        ok = false
        continue
      }
      var wellFormed = true
      JValue.forEachMember(rule) { keyBytes, _ in
        let key = JValue.keyString(keyBytes)
        if key != "has" && key != "model" {
          fail(
            tokens + [key], model: name,
            "unknown rule key '\(key)' (a rule is {\"has\": key, \"model\": model})")
          wellFormed = false
        }
      }
      let has = json_object_get(rule, "has")
      if has == nil || !(has.map(JValue.isString) ?? false) {
        fail(tokens + ["has"], model: name, "a rule needs 'has', the key whose presence chooses the model")
        wellFormed = false
      }
      let target = json_object_get(rule, "model")
      if target == nil {
        fail(tokens + ["model"], model: name, "a rule needs 'model', the model it chooses")
        wellFormed = false
      }
      guard wellFormed, let has, let target else {
        ok = false
        continue
      }
      guard let index = subtype(target, at: tokens + ["model"]) else {
        ok = false
        continue
      }
      rules.append((Key(JValue.string(has)), index))
      models[index].isSubtype = true
    }
    if ok { model.cluster = .rules(rules) }
  }

  /// A subtype that leads back to its base would choose forever: refuse it.
  private mutating func checkSubtypeCycles() {
    for start in models {
      var stack = start.cluster?.targets ?? []
      var seen: Set<Int> = []
      while let next = stack.popLast() {
        if next == start.index {
          fail(
            ["models", start.name, "subtypes"], model: start.name,
            "subtypes of '\(start.name)' lead back to '\(start.name)'")
          break
        }
        if seen.insert(next).inserted, next < models.count {
          stack += models[next].cluster?.targets ?? []
        }
      }
    }
  }

  private static func keyLists(_ location: Location) -> [[Key]] {
    switch location {
    case .none: return []
    case .path(let keys): return [keys]
    case .multi(let paths): return paths.map(\.keys)
    case .pluck(let array, let element): return [array + [Key("[]")] + element]
    }
  }

  private mutating func readProperty(
    _ name: String, _ body: JPtr, path: [String], model: String, naming: NamingRule
  ) -> PropertySpec? {
    guard JValue.isObject(body) else {
      fail(path, model: model, property: name, "property '\(name)' must be an object with a 'type'")
      return nil
    }
    var type: TypeRef? = nil
    var location = Location.path([Key(naming.key(for: name))])
    var required = false
    var ok = true
    JValue.forEachMember(body) { keyBytes, value in
      let key = JValue.keyString(keyBytes)
      switch key {
      case "type":
        guard JValue.isString(value) else {
          fail(
            path + [key], model: model, property: name,
            "'type' must be a string such as \"string\" or \"[Label]\"")
          ok = false
          return
        }
        switch TypeRef.parse(JValue.string(value), lookup: { modelIndex[$0] }) {
        case .success(let parsed): type = parsed
        case .failure(let error):
          fail(path + [key], model: model, property: name, error.message)
          ok = false
        }
      case "json":
        if let parsed = readLocation(value, path: path + [key], model: model, property: name) {
          location = parsed
        } else {
          ok = false
        }
      case "required":
        if JValue.isBool(value) {
          required = value.pointee.type == JSON_TRUE
        } else {
          fail(path + [key], model: model, property: name, "'required' must be true or false")
          ok = false
        }
      case "default", "enum", "enumDefault", "transform", "validate", "format", "timezone", "merge":
        break  // read in pass 3, once every type is known
      default:
        if Self.laterPropertyKeys.contains(key) {
          fail(
            path + [key], model: model, property: name,
            "'\(key)' is not supported by this release of Strata yet")
        } else {
          fail(
            path + [key], model: model, property: name,
            "unknown property key '\(key)' (expected type, json, required, default, enum, enumDefault, transform, validate)"
          )
        }
        ok = false
      }
    }
    guard let type else {
      if json_object_get(body, "type") == nil {
        fail(path + ["type"], model: model, property: name, "property '\(name)' must have a 'type'")
      }
      return nil
    }
    if case .pluck = location, !type.unwrapped.isArray {
      fail(
        path + ["type"], model: model, property: name,
        "a key path through an array ('[]') gives an array: the type must be [T]")
      ok = false
    }
    if required && json_object_get(body, "default") != nil {
      fail(path + ["default"], model: model, property: name, "a required property cannot have a default")
      ok = false
    }
    guard ok else { return nil }
    return PropertySpec(
      name: name, declaredIn: model, type: type, location: location, required: required, defaultSlot: nil,
      rules: nil)
  }

  private mutating func readLocation(_ value: JPtr, path: [String], model: String, property: String)
    -> Location?
  {
    if value.pointee.type == JSON_FALSE { return Location.none }
    if JValue.isString(value), !JValue.string(value).hasPrefix("/"), JValue.string(value).contains("[]") {
      let text = JValue.string(value)
      let segments = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
      let plucked = segments.indices.filter { segments[$0].hasSuffix("[]") }
      guard plucked.count == 1, let at = plucked.first, at < segments.count - 1,
        !segments.contains(where: \.isEmpty), segments[at].count > 2,
        !segments.enumerated().contains(where: { $0.offset != at && $0.element.contains("[]") })
      else {
        fail(
          path, model: model, property: property,
          "key path '\(text)' must have exactly one 'name[]' segment followed by at least one key, as in users[].login"
        )
        return nil
      }
      let array = segments[0...at].map { Key($0 == segments[at] ? String($0.dropLast(2)) : $0) }
      return .pluck(array: array, element: segments[(at + 1)...].map(Key.init))
    }
    if JValue.isString(value) {
      guard let keys = parseKeyPath(JValue.string(value), path: path, model: model, property: property) else {
        return nil
      }
      return .path(keys)
    }
    if JValue.isArray(value) && json_array_size(value) > 0 {
      var paths: [MultiPath] = []
      var seen: Set<String> = []
      for position in 0..<json_array_size(value) {
        guard let element = json_array_get(value, position), JValue.isString(element) else {
          fail(
            path + [String(position)], model: model, property: property,
            "each key path of the list must be a string")
          return nil
        }
        let written = JValue.string(element)
        guard
          let keys = parseKeyPath(written, path: path + [String(position)], model: model, property: property)
        else { return nil }
        if !seen.insert(written).inserted {
          fail(
            path + [String(position)], model: model, property: property,
            "key path '\(written)' is listed twice")
          return nil
        }
        paths.append(MultiPath(written: Key(written), keys: keys))
      }
      return .multi(paths)
    }
    fail(
      path, model: model, property: property,
      "'json' must be a key path, a JSON Pointer, a list of key paths, or false")
    return nil
  }

  private mutating func parseKeyPath(_ text: String, path: [String], model: String, property: String)
    -> [Key]?
  {
    if text.hasPrefix("/") {
      guard let tokens = JSONPointer.parse(text) else {
        fail(
          path, model: model, property: property,
          "'\(text)' is not a valid JSON Pointer (a '~' must be followed by 0 or 1)")
        return nil
      }
      return tokens.map(Key.init)
    }
    let segments = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    if text.isEmpty || segments.contains(where: \.isEmpty) {
      fail(path, model: model, property: property, "key path '\(text)' has an empty segment")
      return nil
    }
    return segments.map(Key.init)
  }

  /// Pass 3: `enum`, `enumDefault` and `default`, checked against the types.
  private mutating func readValues(_ model: ModelType, schema: Schema, models modelsObject: JPtr) {
    for index in model.properties.indices {
      let spec = model.properties[index]
      // An inherited property is read from the model that declares it; its
      // errors are reported once, there.
      let name = spec.declaredIn
      guard let declaring = json_object_get(modelsObject, name),
        let properties = json_object_get(declaring, "properties"),
        let body = json_object_get(properties, spec.name)
      else { continue }
      let reported = errors.count
      defer { if name != model.name { errors.removeSubrange(reported...) } }
      let path = ["models", name, "properties", spec.name]
      let rules = ValueRules()
      if let transformValue = json_object_get(body, "transform") {
        rules.transforms = readTransforms(
          transformValue, path: path + ["transform"], model: name, property: spec.name)
      }
      let enumValue = json_object_get(body, "enum")
      let fallbackValue = json_object_get(body, "enumDefault")
      if let enumValue {
        rules.enumMap = readEnum(
          enumValue, fallback: fallbackValue, type: spec.type, schema: schema, path: path, model: name,
          property: spec.name)
      } else if fallbackValue != nil {
        fail(path + ["enumDefault"], model: name, property: spec.name, "'enumDefault' needs an 'enum'")
      }
      if let validateValue = json_object_get(body, "validate") {
        rules.validation = readValidation(
          validateValue, type: spec.type, schema: schema, path: path + ["validate"], model: name,
          property: spec.name)
      }
      readDateKeys(body, rules: rules, type: spec.type, path: path, model: name, property: spec.name)
      if let mergeValue = json_object_get(body, "merge") {
        model.properties[index].merge = readMergePolicy(
          mergeValue, type: spec.type, schema: schema, path: path + ["merge"], model: name,
          property: spec.name)
      }
      if !rules.transforms.isEmpty || rules.enumMap != nil || rules.validation != nil || rules.rewritesDates
        || rules.timezone != 0
      {
        model.properties[index].rules = rules
      }
      if let defaultValue = json_object_get(body, "default") {
        var reader = Mapper(schema: schema, mode: .canonical)
        reader.makesTemplates = true
        let slot = reader.read(defaultValue, type: spec.type, model: model, property: index)
        let unwritable =
          reader.errors.isEmpty ? Serializer.writeErrors(slot, model: model, property: index) : []
        if let first = unwritable.first {
          slot.release()
          fail(
            path + ["default"], model: name, property: spec.name,
            "the default cannot be written back to JSON: \(first.message)")
        } else if reader.errors.isEmpty {
          model.properties[index].defaultSlot = slot
        } else {
          slot.release()
          let first = reader.errors[0]
          fail(
            path + ["default"], model: name, property: spec.name,
            "the default does not fit type '\(spec.type.name(models: schema.modelNames))': \(first.message)")
        }
      }
    }
  }

  private mutating func readEnum(
    _ value: JPtr, fallback: JPtr?, type: TypeRef, schema: Schema, path: [String], model: String,
    property: String
  ) -> EnumMap? {
    let scalar = Self.scalar(of: type)
    guard let scalar else {
      fail(path + ["enum"], model: model, property: property, "'enum' applies to scalar types, not to models")
      return nil
    }
    var pairs: [(json: JPtr, model: JPtr)] = []
    var places: [[String]] = []
    var ok = true
    func check(_ modelValue: JPtr, at tokens: [String]) -> Bool {
      var reader = Mapper(schema: schema, mode: .canonical)
      let slot = reader.readScalar(modelValue, type: scalar)
      slot.release()
      if !reader.errors.isEmpty || JValue.isNull(modelValue) {
        fail(
          tokens, model: model, property: property,
          "enum model value must be of type '\(scalar.name(models: schema.modelNames))'")
        return false
      }
      return true
    }
    if JValue.isObject(value) && json_object_size(value) > 0 {
      JValue.forEachMember(value) { keyBytes, modelValue in
        let key = JValue.keyString(keyBytes)
        if check(modelValue, at: path + ["enum", key]), let jsonSide = JValue.makeString(key) {
          pairs.append((jsonSide, JValue.retain(modelValue)))
          places.append(path + ["enum", key])
        } else {
          ok = false
        }
      }
    } else if JValue.isArray(value) && json_array_size(value) > 0 {
      for position in 0..<json_array_size(value) {
        guard let pair = json_array_get(value, position), JValue.isArray(pair), json_array_size(pair) == 2,
          let jsonSide = json_array_get(pair, 0), let modelSide = json_array_get(pair, 1)
        else {
          fail(
            path + ["enum", String(position)], model: model, property: property,
            "each entry of a list 'enum' is a pair [JSON value, model value]")
          ok = false
          continue
        }
        if check(modelSide, at: path + ["enum", String(position), "1"]) {
          pairs.append((JValue.retain(jsonSide), JValue.retain(modelSide)))
          places.append(path + ["enum", String(position)])
        } else {
          ok = false
        }
      }
    } else {
      fail(
        path + ["enum"], model: model, property: property,
        "'enum' must be a non-empty object (JSON string -> model value) or list of pairs")
      ok = false
    }
    for later in pairs.indices {
      for earlier in 0..<later {
        if json_equal(pairs[earlier].model, pairs[later].model) != 0 {
          fail(
            places[later], model: model, property: property,
            "enum model value \(Mapper.show(pairs[later].model)) is already mapped: model values must be distinct to be reversible"
          )
          ok = false
          break
        }
        if json_equal(pairs[earlier].json, pairs[later].json) != 0 {
          fail(
            places[later], model: model, property: property,
            "enum JSON value \(Mapper.show(pairs[later].json)) is listed twice")
          ok = false
          break
        }
      }
    }
    var fallbackValue: JPtr? = nil
    if let fallback {
      if check(fallback, at: path + ["enumDefault"]) {
        fallbackValue = JValue.retain(fallback)
      } else {
        ok = false
      }
    }
    guard ok else {
      for pair in pairs {
        JValue.release(pair.json)
        JValue.release(pair.model)
      }
      if let fallbackValue { JValue.release(fallbackValue) }
      return nil
    }
    return EnumMap(pairs: pairs, fallback: fallbackValue)
  }

  /// `transform`: a name or a list of names of built-in or registered transformers.
  private mutating func readTransforms(_ value: JPtr, path: [String], model: String, property: String)
    -> [Transformer]
  {
    var names: [(String, [String])] = []
    if JValue.isString(value) {
      names = [(JValue.string(value), path)]
    } else if JValue.isArray(value), json_array_size(value) > 0 {
      for position in 0..<json_array_size(value) {
        if let element = json_array_get(value, position), JValue.isString(element) {
          names.append((JValue.string(element), path + [String(position)]))
        } else {
          fail(
            path + [String(position)], model: model, property: property, "a transformer is named by a string")
        }
      }
    } else {
      fail(path, model: model, property: property, "'transform' must be a transformer name or a list of them")
    }
    var out: [Transformer] = []
    for (name, tokens) in names {
      if let found = custom[name] ?? BuiltinTransformers.all[name] {
        out.append(found)
      } else {
        let known = BuiltinTransformers.all.keys.sorted().joined(separator: ", ")
        fail(
          tokens, model: model, property: property,
          "unknown transformer '\(name)' (built in: \(known); others must be registered before the schema is loaded)"
        )
      }
    }
    return out
  }

  /// `merge`: a built-in policy that fits the property's type, or a registered merger.
  private mutating func readMergePolicy(
    _ value: JPtr, type: TypeRef, schema: Schema, path: [String], model: String, property: String
  ) -> MergePolicy {
    guard JValue.isString(value) else {
      fail(path, model: model, property: property, "'merge' must be the name of a merge policy")
      return .replace
    }
    let name = JValue.string(value)
    let inner = type.unwrapped
    func refuse(_ why: String) -> MergePolicy {
      fail(path, model: model, property: property, "merge policy '\(name)' \(why)")
      return .replace
    }
    switch name {
    case "replace": return .replace
    case "keep": return .keep
    case "merge":
      if case .model = inner { return .merge }
      return refuse("merges nested models: the type must be a model")
    case "append":
      if inner.isArray { return .append }
      return refuse("applies to arrays")
    case "union":
      guard case .array(let element) = inner, case .model(let index) = element.unwrapped,
        index < schema.models.count
      else { return refuse("applies to arrays of models") }
      if schema.models[index].primaryKey.isEmpty {
        return refuse("needs a primaryKey on '\(schema.models[index].name)' to tell elements apart")
      }
      return .union
    case "max", "min":
      switch inner {
      case .int, .double, .date: return name == "max" ? .max : .min
      default: return refuse("applies to numbers and dates")
      }
    default:
      if let merger = mergers[name] { return .custom(merger) }
      return refuse(
        "is unknown (built in: replace, keep, merge, append, union, max, min; others must be registered before the schema is loaded)"
      )
    }
  }

  /// `format` and `timezone`, for date properties.
  private mutating func readDateKeys(
    _ body: JPtr, rules: ValueRules, type: TypeRef, path: [String], model: String, property: String
  ) {
    let isDate: Bool
    if case .date? = Self.scalar(of: type) { isDate = true } else { isDate = false }
    if let value = json_object_get(body, "format") {
      if !isDate {
        fail(path + ["format"], model: model, property: property, "'format' applies to dates")
      } else if !JValue.isString(value) {
        fail(
          path + ["format"], model: model, property: property,
          "'format' must be iso8601, unix, unix-ms or a date pattern such as yyyy-MM-dd")
      } else {
        switch DateFormat.parse(JValue.string(value)) {
        case .success(let format): rules.dateFormat = format
        case .failure(let error): fail(path + ["format"], model: model, property: property, "\(error)")
        }
      }
    }
    if let value = json_object_get(body, "timezone") {
      if !isDate {
        fail(path + ["timezone"], model: model, property: property, "'timezone' applies to dates")
      } else if JValue.isString(value), let offset = TimeZoneOffset(JValue.string(value)) {
        rules.timezone = offset.seconds
      } else {
        fail(
          path + ["timezone"], model: model, property: property,
          "'timezone' must be UTC or a fixed offset such as +02:00 (zone names need a time zone database)")
      }
    }
  }

  /// `validate`: min, max, minLength, maxLength, pattern, in.
  private mutating func readValidation(
    _ value: JPtr, type: TypeRef, schema: Schema, path: [String], model: String, property: String
  ) -> Validation? {
    guard JValue.isObject(value) else {
      fail(path, model: model, property: property, "'validate' must be an object of rules")
      return nil
    }
    let rules = Validation()
    let scalar = Self.scalar(of: type)
    let outer = type.unwrapped
    var ok = true
    func bad(_ key: String, _ message: String) {
      fail(path + [key], model: model, property: property, message)
      ok = false
    }
    JValue.forEachMember(value) { keyBytes, rule in
      let key = JValue.keyString(keyBytes)
      switch key {
      case "min", "max":
        var bound: Bound? = nil
        if case .date? = scalar {
          var reader = Mapper(schema: schema, mode: .canonical)
          if case .leaf(let canonical) = reader.readScalar(rule, type: .date), reader.errors.isEmpty {
            if key == "min" { rules.minimumDate = canonical } else { rules.maximumDate = canonical }
          } else {
            bad(key, "'\(key)' of a date must be an RFC 3339 date such as \"2020-01-01T00:00:00Z\"")
          }
          return
        }
        switch scalar {
        case .int?, .double?, .json?:
          if JValue.isInteger(rule) {
            bound = .integer(json_integer_value(rule))
          } else if JValue.isReal(rule) {
            bound = .real(json_real_value(rule))
          } else {
            bad(key, "'\(key)' must be a number")
          }
        default:
          bad(key, "'\(key)' applies to numbers and dates")
        }
        if key == "min" { rules.minimum = bound } else { rules.maximum = bound }
      case "minLength", "maxLength":
        guard JValue.isInteger(rule), json_integer_value(rule) >= 0,
          json_integer_value(rule) <= Int64(Int32.max)
        else {
          bad(key, "'\(key)' must be an integer >= 0")
          return
        }
        switch outer {
        case .string, .url, .json, .array, .dict: break
        default: bad(key, "'\(key)' applies to strings, arrays and dictionaries")
        }
        let length = Int(json_integer_value(rule))
        if key == "minLength" { rules.minLength = length } else { rules.maxLength = length }
      case "pattern":
        guard JValue.isString(rule) else {
          bad(key, "'pattern' must be a regular expression in a string")
          return
        }
        switch scalar {
        case .string?, .url?, .json?: break
        default: bad(key, "'pattern' applies to strings")
        }
        switch Pattern.compile(JValue.string(rule)) {
        case .success(let pattern): rules.pattern = pattern
        case .failure(let error): bad(key, error.message)
        }
      case "in":
        guard JValue.isArray(rule), json_array_size(rule) > 0, let scalar else {
          bad(key, "'in' must be a non-empty list of allowed values (of a scalar type)")
          return
        }
        var allowed: [JPtr] = []
        for position in 0..<json_array_size(rule) {
          guard let element = json_array_get(rule, position) else { continue }
          var reader = Mapper(schema: schema, mode: .canonical)
          let slot = reader.readScalar(element, type: scalar)
          if case .leaf(let canonical) = slot, reader.errors.isEmpty {
            allowed.append(canonical)
          } else {
            slot.release()
            fail(
              path + [key, String(position)], model: model, property: property,
              "an allowed value must be of type '\(scalar.name(models: schema.modelNames))'")
            ok = false
          }
        }
        rules.allowed = allowed
      default:
        bad(key, "unknown validation rule '\(key)' (expected min, max, minLength, maxLength, pattern, in)")
      }
    }
    if let minimum = rules.minimum, let maximum = rules.maximum, minimum.asDouble > maximum.asDouble {
      bad("min", "'min' is greater than 'max'")
    }
    if let minimum = rules.minimumDate, let maximum = rules.maximumDate,
      DateOrder.compare(minimum, maximum) > 0
    {
      bad("min", "'min' is later than 'max'")
    }
    return ok ? rules : nil
  }

  /// The scalar at the bottom of a type (through arrays, dictionaries and `?`), or nil for a model.
  static func scalar(of type: TypeRef) -> TypeRef? {
    switch type {
    case .model: return nil
    case .array(let element), .dict(let element), .optional(let element): return scalar(of: element)
    default: return type
    }
  }
}
