import CJansson

/// One property: its `type`, `required` and the keys that the other files read.
extension SchemaLoader {
  mutating func readProperty(
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
          var message = error.message
          if let unknown = error.unknownName,
            let nearest = Suggestion.nearest(
              to: unknown, among: Array(modelIndex.keys).sorted() + SchemaLoader.builtinTypeNames.sorted())
          {
            message = "unknown type '\(unknown)' (did you mean '\(nearest)'?)"
          }
          fail(path + [key], model: model, property: name, message)
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
      case "default", "enum", "enumDefault", "transform", "validate", "format", "timezone", "merge",
        "inverse", "orphans", "deleteRule":
        break  // read in pass 3, once every type is known
      default:
        if Self.laterPropertyKeys.contains(key) {
          fail(
            path + [key], model: model, property: name,
            "'\(key)' is not supported by this release of Strata yet")
        } else {
          fail(
            path + [key], model: model, property: name,
            "unknown property key '\(key)'"
              + Suggestion.hintOrList(
                for: key,
                among: [
                  "type", "json", "required", "default", "enum", "enumDefault", "transform", "validate",
                  "format",
                  "timezone", "merge", "inverse", "orphans", "deleteRule",
                ])
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
}
