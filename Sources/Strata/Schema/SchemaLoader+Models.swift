import CJansson

/// Pass 2 of the loader: models, `extends`, and what a read model derives.
extension SchemaLoader {
  /// Pass 2: reads every model, each base before the models that extend it.
  mutating func readModels(_ bodies: [(String, JPtr)]) {
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
  /// discriminator on the way: `{"type": "media", "kind": "video"}`. A
  /// subtype chosen by rules carries those of its cluster (the rules' keys
  /// are its own properties), so that its output maps back.
  func chainDiscriminators() {
    var changed = true
    var rounds = 0
    while changed && rounds <= models.count {
      changed = false
      rounds += 1
      for base in models {
        var links: [(target: Int, chain: [(key: Key, value: String)])] = []
        switch base.cluster {
        case .key(let key, let table)?:
          for (value, index) in table { links.append((index, base.discriminators + [(key, value)])) }
        case .rules(let rules)?:
          for rule in rules { links.append((rule.model, base.discriminators)) }
        case nil: continue
        }
        for (index, chain) in links where index < models.count {
          let target = models[index]
          if target.discriminators.count < chain.count {
            target.discriminators = chain
            for (chainKey, _) in chain { target.mappedKeys.insert(chainKey.name) }
            changed = true
          }
        }
      }
    }
  }

  /// Reads one model: what it inherits from `base`, its own keys, its
  /// properties, its primary key, then what it derives.
  mutating func readModel(_ model: ModelType, name: String, body: JPtr, base: ModelType?) {
    let path = ["models", name]
    guard JValue.isObject(body) else {
      fail(path, model: name, "model '\(name)' must be an object with 'properties'")
      return
    }
    var claimed: [[String]: String] = [:]
    if let base { claimed = inherit(model, from: base) }
    let (naming, propertiesValue, primaryKeyValue) = readModelKeys(
      model, name: name, body: body, path: path, naming: base?.naming ?? NamingRule.none)
    guard let propertiesValue, JValue.isObject(propertiesValue) else {
      if base == nil || json_object_get(body, "properties") != nil {
        fail(path + ["properties"], model: name, "model '\(name)' must have 'properties', an object")
      }
      finishModel(model)
      return
    }
    readProperties(propertiesValue, of: model, name: name, path: path, naming: naming, claimed: &claimed)
    if let primaryKeyValue { readPrimaryKey(primaryKeyValue, of: model, name: name, path: path) }
    finishModel(model)
  }

  /// Gives `model` what its base has (properties, naming, unknown keys,
  /// primary key, response): the key paths the inherited properties claim.
  private func inherit(_ model: ModelType, from base: ModelType) -> [[String]: String] {
    var claimed: [[String]: String] = [:]
    model.base = base
    model.naming = base.naming
    model.properties = base.properties
    model.propertyIndex = base.propertyIndex
    model.unknownKeys = base.unknownKeys
    model.primaryKey = base.primaryKey
    model.response = base.response
    for spec in base.properties {
      for keys in Self.keyLists(spec.location) { claimed[keys.map(\.name)] = spec.name }
    }
    return claimed
  }

  /// Reads the keys of a model's body but its properties and primary key,
  /// which it returns with the naming rule its properties take.
  private mutating func readModelKeys(
    _ model: ModelType, name: String, body: JPtr, path: [String], naming inherited: NamingRule
  ) -> (naming: NamingRule, properties: JPtr?, primaryKey: JPtr?) {
    var naming = inherited
    var primaryKeyValue: JPtr? = nil
    var propertiesValue: JPtr? = nil
    JValue.forEachMember(body) { keyBytes, value in
      let key = JValue.keyString(keyBytes)
      switch key {
      case "properties": propertiesValue = value
      case "primaryKey": primaryKeyValue = value
      case "extends", "subtypes": break  // read by readModels
      case "indexes": readIndexes(value, of: model, name: name, path: path + [key])
      case "root", "meta": readResponseKey(model, key: key, value: value, path: path)
      case "paging": readPaging(model, value: value, path: path + [key])
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
            "unknown model key '\(key)'"
              + Suggestion.hintOrList(
                for: key,
                among: [
                  "properties", "primaryKey", "keys", "unknownKeys", "extends", "subtypes", "root", "meta",
                  "paging", "indexes",
                ])
          )
        }
      }
    }
    return (naming, propertiesValue, primaryKeyValue)
  }

  /// Reads a model's own properties: each adds to or overrides (by name) what
  /// `model` has, and claims its key paths (two properties claiming one are
  /// an error).
  private mutating func readProperties(
    _ propertiesValue: JPtr, of model: ModelType, name: String, path: [String], naming: NamingRule,
    claimed: inout [[String]: String]
  ) {
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
  }

  /// Reads a model's `primaryKey` (a property name or a list of them) into
  /// the indexes of those properties, replacing an inherited one.
  private mutating func readPrimaryKey(
    _ primaryKeyValue: JPtr, of model: ModelType, name: String, path: [String]
  ) {
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

  /// Reads `indexes`: a list of indexes, each a property name or a list of
  /// them (the properties are checked once relationships are known).
  private mutating func readIndexes(_ value: JPtr, of model: ModelType, name: String, path: [String]) {
    guard JValue.isArray(value) else {
      fail(path, model: name, "'indexes' must be a list of indexes, each a property name or a list of them")
      return
    }
    model.indexes = []
    for position in 0..<json_array_size(value) {
      guard let element = json_array_get(value, position) else { continue }
      var names: [String] = []
      if JValue.isString(element) {
        names = [JValue.string(element)]
      } else if JValue.isArray(element), json_array_size(element) > 0 {
        for inner in 0..<json_array_size(element) {
          guard let part = json_array_get(element, inner), JValue.isString(part) else {
            fail(path + [String(position), String(inner)], model: name, "an index names properties")
            return
          }
          names.append(JValue.string(part))
        }
      } else {
        fail(path + [String(position)], model: name, "an index is a property name or a list of them")
        continue
      }
      model.indexes.append(names)
    }
  }

  /// Derived facts of a read model: the input keys it maps.
  func finishModel(_ model: ModelType) {
    for spec in model.properties {
      for keys in Self.keyLists(spec.location) {
        if let first = keys.first { model.mappedKeys.insert(first.name) }
      }
    }
  }
}
