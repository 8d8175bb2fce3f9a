import CJansson
import Glibc

/// Objects onto models: each property of the model, and the subtype a cluster chooses.
extension Mapper {
  package mutating func model(_ value: JPtr, _ type: ModelType) -> ModelObject? {
    guard canEnter(type) else { return nil }
    depth += 1
    defer { depth -= 1 }
    let before = errors.count
    let unmanaged = Unmanaged.passUnretained(type)
    let count = type.properties.count
    // filled in place; dropped (and its slots with it) on an error
    let object = ModelObject.make(schema: schema, type: type, count: count, template: makesTemplates)
    let slots = object.slots
    let isPartial = partial
    for index in 0..<count {
      slots[index] = property(value, type, index, unmanaged)
      partial = isPartial
    }
    var unknown: JPtr? = nil
    if mode == .canonical {
      if let kept = json_object_get(value, "$unknown") { unknown = keptUnknown(kept, type) }
      JValue.forEachMember(value) { key, _ in
        let name = JValue.keyString(key)
        if type.propertyIndex[name] == nil && name != "$type" && name != "$unknown" {
          report(
            .unknownKey,
            "'\(name)' is not a property of '\(type.name)'"
              + Suggestion.hint(for: name, among: type.properties.map(\.name)),
            Owner(model: type, property: -1),
            extra: [.key(key)])
        }
      }
    } else if type.unknownKeys != .ignore {
      let keep = type.unknownKeys == .keep
      JValue.forEachMember(value) { key, member in
        if type.mappedKeys.contains(JValue.keyString(key)) { return }
        if keep {
          if Nesting.exceeds(member, maxDepth - depth) {
            report(
              .depth, "input nested deeper than \(maxDepth) levels (in a kept key)",
              Owner(model: type, property: -1), extra: [.key(key)])
            return
          }
          let object = unknown ?? json_object()
          unknown = object
          if let object { JValue.setMember(object, key, JValue.retain(member)) }
        } else {
          report(
            .unknownKey,
            "unknown key '\(JValue.keyString(key))' (model '\(type.name)' rejects unknown keys)"
              + Suggestion.hint(for: JValue.keyString(key), among: type.mappedKeys.sorted()),
            Owner(model: type, property: -1), extra: [.key(key)])
        }
      }
    }
    if errors.count > before {
      if let unknown { JValue.release(unknown) }
      return nil
    }
    object.unknown = unknown
    return object
  }

  /// False, with a `depth` error, when a model of `type` cannot be entered
  /// here: the input is nested too deep (the limit, or the thread's stack).
  private mutating func canEnter(_ type: ModelType) -> Bool {
    if canDescend() { return true }
    errors.append(
      ErrorDetail(
        path: PathStep.pointer(steps), model: type.name, code: .depth,
        message: depth >= maxDepth
          ? "input nested deeper than \(maxDepth) levels"
          : "input nested too deep for the calling thread's stack (\(depth) levels)"))
    return false
  }

  /// The unknown keys a canonical `$unknown` value carries for `type` (a
  /// copy), or nil with an error when the model keeps none or it is nested
  /// too deep.
  private mutating func keptUnknown(_ kept: JPtr, _ type: ModelType) -> JPtr? {
    guard JValue.isObject(kept) && type.unknownKeys == .keep else {
      report(
        .type, "\"$unknown\" holds the input keys a model with unknownKeys: keep carried; not here",
        Owner(model: type, property: -1), extra: [.name("$unknown")])
      return nil
    }
    // The "$unknown" object itself is no level: its members are the model's keys.
    if Nesting.exceeds(kept, maxDepth - depth + 1) {
      report(
        .depth, "input nested deeper than \(maxDepth) levels (in a kept key)",
        Owner(model: type, property: -1), extra: [.name("$unknown")])
      return nil
    }
    return json_copy(kept)
  }

  /// A model of `type` from its canonical values given by property index
  /// (`value(index)`, borrowed; nil where the value is missing) and the
  /// unknown keys kept with it (`unknown`, borrowed, or nil): what
  /// `model(_:_:)` makes of an object holding those values in canonical
  /// mode, without an object to look them up in. The properties in
  /// `absent` (indexes) stay absent where their value is missing: a stored
  /// record says which of its properties hold nothing, and those take no
  /// default.
  package mutating func canonicalModel(
    _ type: ModelType, unknown kept: JPtr?, absent: [Int] = [], values value: (Int) -> JPtr?
  )
    -> ModelObject?
  {
    guard canEnter(type) else { return nil }
    depth += 1
    defer { depth -= 1 }
    let before = errors.count
    let count = type.properties.count
    // filled in place; dropped (and its slots with it) on an error
    let object = ModelObject.make(schema: schema, type: type, count: count, template: makesTemplates)
    let slots = object.slots
    let isPartial = partial
    // the specs are read in place: a copy of each (its strings, type and
    // rules retained and released) cost more than the rest of a record read
    // from a file's row (Benchmarks/README.md, "A record read from its row")
    type.properties.withUnsafeBufferPointer { specs in
      for index in 0..<count {
        let owner = Owner(model: type, property: index)
        // as `property` does in canonical mode
        clearing = partial
        clearsNull = partial && !specs[index].required
        partial = partial && specs[index].merge.mergesModels
        if let member = value(index) {
          steps.append(.name(specs[index].name))
          slots[index] = propertyValue(member, specs[index].type, owner, specs[index].rules)
          steps.removeLast()
        } else if absent.isEmpty || !absent.contains(index) {
          slots[index] = missing(specs[index], owner, extra: [.name(specs[index].name)])
        }
        partial = isPartial
      }
    }
    let unknown = kept.flatMap { keptUnknown($0, type) }
    if errors.count > before {
      if let unknown { JValue.release(unknown) }
      return nil
    }
    object.unknown = unknown
    return object
  }

  /// The model that an object of `type` is mapped onto: `type` itself, or the
  /// subtype its `subtypes` choose (following clusters of clusters).
  package mutating func subtype(_ object: JPtr, _ type: ModelType) -> ModelType? {
    let owner = Owner(model: type, property: -1)
    if mode == .canonical {
      guard let tag = json_object_get(object, "$type") else { return type }
      guard JValue.isString(tag), let index = schema.modelIndex[JValue.string(tag)],
        index == type.index || schema.isSubtype(index, of: type.index)
      else {
        report(
          .subtype, "\(Self.show(tag)) is not '\(type.name)' nor one of its subtypes", owner,
          extra: [.name("$type")])
        return nil
      }
      return schema.models[index]
    }
    var current = type
    var hops = 0
    while let cluster = current.cluster, hops <= schema.models.count {
      hops += 1
      var next: Int? = nil
      switch cluster {
      case .key(let key, let table):
        guard let tag = JValue.member(object, key) else {
          report(
            .subtype, "the discriminator key '\(key.name)' of '\(current.name)' is missing",
            Owner(model: current, property: -1), extra: [.name(key.name)])
          return nil
        }
        // a number outside jansson's range (a byte parser's stand-in) is a
        // value like any other here: it names no subtype
        let outOfRange = numbers?.consume(tag)
        guard outOfRange == nil, JValue.isString(tag), let index = table[JValue.string(tag)] else {
          report(
            .subtype,
            "\(outOfRange?.text ?? Self.show(tag)) names no subtype of '\(current.name)' (expected one of \(table.keys.sorted().joined(separator: ", ")))",
            Owner(model: current, property: -1), extra: [.name(key.name)])
          return nil
        }
        next = index
      case .rules(let rules):
        for rule in rules where JValue.member(object, rule.has) != nil {
          next = rule.model
          break
        }
        guard next != nil else {
          report(
            .subtype,
            "no subtype of '\(current.name)' matches: the object has none of the keys \(rules.map(\.has.name).joined(separator: ", "))",
            Owner(model: current, property: -1))
          return nil
        }
      }
      guard let index = next, index < schema.models.count else { return nil }
      current = schema.models[index]
    }
    return current
  }
}
