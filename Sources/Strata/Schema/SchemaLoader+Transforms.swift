import CJansson

/// `transform`: built-in and registered transformers, in order.
extension SchemaLoader {
  /// `transform`: a name or a list of names of built-in or registered transformers.
  mutating func readTransforms(_ value: JPtr, path: [String], model: String, property: String)
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
}
