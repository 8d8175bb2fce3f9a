import CJansson

/// `merge`: how merge and update treat a property.
extension SchemaLoader {
  /// `merge`: a built-in policy that fits the property's type, or a registered merger.
  mutating func readMergePolicy(
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
}
