import CJansson

/// Pass 3: `default` values (and the enums they go through), checked against the finished schema.
extension SchemaLoader {
  /// Pass 3: `enum`, `enumDefault` and `default`, checked against the types.
  mutating func readValues(_ model: ModelType, schema: Schema, models modelsObject: JPtr) {
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
      if !structureFailed, let defaultValue = json_object_get(body, "default") {
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
}
