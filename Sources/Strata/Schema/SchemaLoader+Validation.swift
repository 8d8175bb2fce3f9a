import CJansson

/// `validate`: min, max, minLength, maxLength, pattern, in.
extension SchemaLoader {
  /// `validate`: min, max, minLength, maxLength, pattern, in.
  mutating func readValidation(
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
