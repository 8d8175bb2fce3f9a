import CJansson

/// `enum` and `enumDefault`: a reversible mapping of JSON values to model values.
extension SchemaLoader {
  mutating func readEnum(
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
}
