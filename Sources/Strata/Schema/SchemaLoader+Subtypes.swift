import CJansson

/// `subtypes` (class clusters): discriminators, presence rules, and cycles.
extension SchemaLoader {
  /// `subtypes`: by a discriminator key, or by rules on the keys present.
  mutating func readSubtypes(_ model: ModelType, name: String, value: JPtr) {
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
  mutating func checkSubtypeCycles() {
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

  static func keyLists(_ location: Location) -> [[Key]] {
    switch location {
    case .none: return []
    case .path(let keys): return [keys]
    case .multi(let paths): return paths.map(\.keys)
    case .pluck(let array, let element): return [array + [Key("[]")] + element]
    }
  }
}
