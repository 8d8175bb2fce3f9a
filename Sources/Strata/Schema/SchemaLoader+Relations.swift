import CJansson

/// Relationships: which properties refer to records in a graph context,
/// their `inverse` (checked to point back) and `orphans` keys, and the key
/// space each model's records live in.
extension SchemaLoader {
  mutating func readRelations(schema: Schema, models modelsObject: JPtr) {
    let models = schema.models
    for model in models {
      model.keyRoot = model.index
      var base = model.base
      var hops = 0
      while let next = base, next.primaryKey == model.primaryKey, hops < 10_000 {
        model.keyRoot = next.index
        base = next.base
        hops += 1
      }
      model.relations = []
      for index in model.properties.indices {
        model.properties[index].relation = Relation.of(model.properties[index].type, models: models)
        if model.properties[index].relation != nil { model.relations.append(index) }
      }
    }
    for model in models {
      for index in model.properties.indices {
        readRelationKeys(model, index, schema: schema, models: modelsObject)
      }
      checkIndexes(model)
      for index in model.primaryKey where index < model.properties.count {
        let spec = model.properties[index]
        if let relation = spec.relation, relation.toMany, spec.declaredIn == model.name {
          fail(
            ["models", model.name, "primaryKey"], model: model.name,
            "primary key '\(spec.name)' is a to-many relationship: a key may be one related record, not a list"
          )
        }
      }
    }
    // An inverse declared on one side holds for the other side too.
    for model in models {
      for index in model.relations {
        guard let relation = model.properties[index].relation, let back = relation.inverse else { continue }
        let name = model.properties[index].name
        for other in models where other.isSelfOrDescendant(of: models[relation.target]) {
          guard back < other.properties.count, var otherRelation = other.properties[back].relation,
            otherRelation.inverse == nil, otherRelation.target < models.count,
            let mine = models[otherRelation.target].propertyIndex[name]
          else { continue }
          otherRelation.inverse = mine
          other.properties[back].relation = otherRelation
        }
      }
    }
    for model in models {
      for index in model.relations { settleDeleteRule(model, index, models: models) }
    }
  }

  /// The delete rule of one relationship: where the inverse is a to-one
  /// that cannot be empty, `nullify` is refused and the default is
  /// `cascade` when the inverse is part of its record's key (a child keyed
  /// by its parent goes with it), `deny` otherwise; elsewhere `nullify`.
  private mutating func settleDeleteRule(_ model: ModelType, _ index: Int, models: [ModelType]) {
    let spec = model.properties[index]
    guard var relation = spec.relation, let back = relation.inverse, relation.target < models.count else {
      return
    }
    let target = models[relation.target]
    guard back < target.properties.count, let backRelation = target.properties[back].relation,
      !backRelation.toMany
    else { return }
    let isKey = target.primaryKey.contains(back)
    guard isKey || !target.properties[back].type.acceptsNull else { return }
    if relation.declaresDeleteRule {
      if relation.deleteRule == .nullify && spec.declaredIn == model.name {
        fail(
          ["models", model.name, "properties", spec.name, "deleteRule"], model: model.name,
          property: spec.name,
          "deleteRule \"nullify\" would leave '\(target.name).\(target.properties[back].name)' empty, and it cannot be: use \"cascade\" or \"deny\", or make it optional"
        )
      }
      return
    }
    relation.deleteRule = isKey ? .cascade : .deny
    model.properties[index].relation = relation
  }

  /// Reads `inverse` and `orphans` of one property (from the model that declares it).
  private mutating func readRelationKeys(
    _ model: ModelType, _ index: Int, schema: Schema, models modelsObject: JPtr
  ) {
    let spec = model.properties[index]
    guard let declaring = json_object_get(modelsObject, spec.declaredIn),
      let properties = json_object_get(declaring, "properties"),
      let body = json_object_get(properties, spec.name)
    else { return }
    let reports = spec.declaredIn == model.name
    let path = ["models", spec.declaredIn, "properties", spec.name]
    func refuse(_ loader: inout SchemaLoader, _ key: String, _ message: String) {
      if reports { loader.fail(path + [key], model: spec.declaredIn, property: spec.name, message) }
    }
    if spec.relation != nil, json_object_get(body, "merge") != nil {
      switch spec.merge {
      case .keep, .custom, .max, .min:
        // a graph links records: it cannot keep a link "where present" or
        // hand records to a host merger, and an import would ignore it
        refuse(
          &self, "merge",
          "merge policy '\(JValue.string(json_object_get(body, "merge")))' does not apply to a relationship "
            + "('\(spec.name)' holds records of a graph): use replace (the default), or union or append for a list"
        )
      default: break
      }
    }
    if let orphans = json_object_get(body, "orphans") {
      let text = JValue.isString(orphans) ? JValue.string(orphans) : ""
      if text != "delete" && text != "keep" {
        refuse(&self, "orphans", "'orphans' must be \"delete\" or \"keep\"")
      } else if spec.relation == nil {
        refuse(
          &self, "orphans",
          "'orphans' is for relationships: '\(spec.name)' does not hold a model with a primaryKey")
      } else {
        model.properties[index].relation?.deletesOrphans = text == "delete"
      }
    }
    if let rule = json_object_get(body, "deleteRule") {
      let text = JValue.isString(rule) ? JValue.string(rule) : ""
      if let parsed = DeleteRule(rawValue: text), spec.relation != nil {
        model.properties[index].relation?.deleteRule = parsed
        model.properties[index].relation?.declaresDeleteRule = true
      } else if spec.relation == nil {
        refuse(
          &self, "deleteRule",
          "'deleteRule' is for relationships: '\(spec.name)' does not hold a model with a primaryKey")
      } else {
        refuse(&self, "deleteRule", "'deleteRule' must be \"nullify\", \"cascade\" or \"deny\"")
      }
    }
    guard let inverse = json_object_get(body, "inverse") else { return }
    guard JValue.isString(inverse) else {
      refuse(&self, "inverse", "'inverse' must name a property of the related model")
      return
    }
    let name = JValue.string(inverse)
    guard let relation = spec.relation, relation.target < schema.models.count else {
      refuse(
        &self, "inverse",
        "'inverse' is for relationships: '\(spec.name)' does not hold a model with a primaryKey")
      return
    }
    let target = schema.models[relation.target]
    guard let back = target.propertyIndex[name] else {
      refuse(
        &self, "inverse",
        "inverse '\(name)' is not a property of '\(target.name)'"
          + Suggestion.hint(for: name, among: target.properties.map(\.name)))
      return
    }
    let backSpec = target.properties[back]
    guard let backRelation = Relation.of(backSpec.type, models: schema.models),
      backRelation.target < schema.models.count,
      model.isSelfOrDescendant(of: schema.models[backRelation.target])
        || schema.models[backRelation.target].isSelfOrDescendant(of: model)
    else {
      refuse(
        &self, "inverse",
        "inverse '\(target.name).\(name)' does not point back: its type must be '\(model.name)', "
          + "'\(model.name)?' or '[\(model.name)]'")
      return
    }
    if let backBody = json_object_get(
      json_object_get(json_object_get(modelsObject, backSpec.declaredIn), "properties"), name),
      let declared = json_object_get(backBody, "inverse"), JValue.isString(declared),
      JValue.string(declared) != spec.name
    {
      refuse(
        &self, "inverse",
        "inverse '\(target.name).\(name)' names '\(JValue.string(declared))' as its own inverse, not '\(spec.name)'"
      )
      return
    }
    model.properties[index].relation?.inverse = back
  }

  /// Checks a model's `indexes`: each names properties of the model that a
  /// table column holds (not a to-many relationship), and only a model with
  /// a primary key (a graph record) has them.
  private mutating func checkIndexes(_ model: ModelType) {
    guard !model.indexes.isEmpty else { return }
    let path = ["models", model.name, "indexes"]
    if model.primaryKey.isEmpty {
      fail(
        path, model: model.name,
        "'indexes' apply to the records of a graph: '\(model.name)' has no primaryKey")
      return
    }
    for (position, names) in model.indexes.enumerated() {
      for name in names {
        guard let index = model.propertyIndex[name], index < model.properties.count else {
          fail(
            path + [String(position)], model: model.name,
            "index on '\(name)', which is not a property of '\(model.name)'"
              + Suggestion.hint(for: name, among: model.properties.map(\.name)))
          continue
        }
        if model.properties[index].relation?.toMany == true {
          fail(
            path + [String(position)], model: model.name, property: name,
            "index on '\(name)', a to-many relationship: its link table is indexed already")
        }
      }
    }
  }
}
