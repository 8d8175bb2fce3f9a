import CJansson
import Glibc

/// The most that models, arrays and dictionaries may nest in mapped input.
public let maxDepth = 512

/// Maps JSON values (jansson) onto model storage, collecting every error.
///
/// Two modes: `.json` reads input as the API sends it (JSON keys and key
/// paths, enum mappings, unknown keys); `.canonical` reads canonical values
/// (property names as keys, model-side enum values), as in `default`.
struct Mapper {
  enum Mode { case json, canonical }

  /// Which property a value belongs to, for errors.
  struct Owner {
    let model: ModelType
    let property: Int
  }

  let schema: Schema
  let mode: Mode
  /// True while reading the schema's own default values: their models do
  /// not keep the schema alive (the schema keeps them).
  var makesTemplates = false
  /// True while reading a partial model (an update): missing keys stay absent
  /// (no default, no `missing` error) and null on a property without null
  /// means "clear" (read as `.null`, which the merge turns into absent).
  private var partial = false
  /// True while reading a property of a partial model.
  private var clearing = false
  /// True while reading a property of a partial model whose null means "clear"
  /// (required properties cannot be cleared).
  private var clearsNull = false
  var errors: [ErrorDetail] = []
  private var steps: [PathStep] = []
  private var depth = 0
  /// The lowest stack address recursion may reach on this thread.
  private let stackLimit = StackGuard.limit()

  init(schema: Schema, mode: Mode) {
    self.schema = schema
    self.mode = mode
    steps.reserveCapacity(16)
  }

  /// True when nesting one level more stays within `maxDepth` and the thread's stack.
  private func canDescend() -> Bool {
    depth < maxDepth && StackGuard.hasRoom(stackLimit)
  }

  // MARK: errors

  private mutating func report(_ code: ErrorCode, _ message: String, _ owner: Owner?, extra: [PathStep] = [])
  {
    var model = ""
    var property = ""
    if let owner {
      model = owner.model.name
      if owner.property >= 0 && owner.property < owner.model.properties.count {
        property = owner.model.properties[owner.property].name
      }
    }
    errors.append(
      ErrorDetail(
        path: PathStep.pointer(steps + extra), model: model, property: property, code: code, message: message)
    )
  }

  private func typeName(_ type: TypeRef) -> String { type.name(models: schema.modelNames) }

  // MARK: entry points

  /// Maps `value` (borrowed) onto a model of `type`; nil if there were errors.
  mutating func mapRoot(_ value: JPtr, type: ModelType) -> ModelObject? {
    guard JValue.isObject(value) else {
      errors.append(
        ErrorDetail(
          path: PathStep.pointer(steps), model: type.name, code: .type,
          message: "expected an object for model '\(type.name)', found \(JValue.typeName(value))"))
      return nil
    }
    guard let chosen = subtype(value, type) else { return nil }
    return model(value, chosen)
  }

  /// Reads an update's input (borrowed) as a partial model of `type` (no
  /// subtype choice: the update applies to the model as it is).
  mutating func mapPartial(_ value: JPtr, type: ModelType) -> ModelObject? {
    guard JValue.isObject(value) else {
      errors.append(
        ErrorDetail(
          path: "", model: type.name, code: .type,
          message: "expected an object to update '\(type.name)' with, found \(JValue.typeName(value))"))
      return nil
    }
    partial = true
    defer { partial = false }
    return model(value, type)
  }

  /// Maps every element of the array `value` (borrowed).
  mutating func mapMany(_ value: JPtr, type: ModelType) -> [ModelObject]? {
    guard JValue.isArray(value) else {
      errors.append(
        ErrorDetail(
          path: "", model: type.name, code: .type,
          message: "expected an array of '\(type.name)' objects, found \(JValue.typeName(value))"))
      return nil
    }
    let count = json_array_size(value)
    var out: [ModelObject] = []
    out.reserveCapacity(count)
    for position in 0..<count {
      guard let element = json_array_get(value, position) else { continue }
      steps.append(.index(position))
      if let object = mapRoot(element, type: type), errors.isEmpty { out.append(object) }
      steps.removeLast()
    }
    return errors.isEmpty ? out : nil
  }

  /// Reads a whole property value (for `default`): null, leaves or models.
  mutating func read(_ value: JPtr, type: TypeRef, model: ModelType, property: Int) -> Slot {
    propertyValue(
      value, model.properties[property].type, Owner(model: model, property: property),
      model.properties[property].rules)
  }

  /// Checks a scalar value of an enum mapping (canonical form).
  mutating func readScalar(_ value: JPtr, type: TypeRef) -> Slot {
    if let leaf = leaf(value, type, nil, nil) { return .leaf(leaf) }
    return .absent
  }

  // MARK: models

  private mutating func model(_ value: JPtr, _ type: ModelType) -> ModelObject? {
    if !canDescend() {
      errors.append(
        ErrorDetail(
          path: PathStep.pointer(steps), model: type.name, code: .depth,
          message: depth >= maxDepth
            ? "input nested deeper than \(maxDepth) levels"
            : "input nested too deep for the calling thread's stack (\(depth) levels)"))
      return nil
    }
    depth += 1
    defer { depth -= 1 }
    let before = errors.count
    let unmanaged = Unmanaged.passUnretained(type)
    var slots = ContiguousArray<Slot>()
    let count = type.properties.count
    slots.reserveCapacity(count)
    let isPartial = partial
    for index in 0..<count {
      slots.append(property(value, type, index, unmanaged))
      partial = isPartial
    }
    var unknown: JPtr? = nil
    if mode == .canonical {
      if let kept = json_object_get(value, "$unknown") {
        if JValue.isObject(kept) && type.unknownKeys == .keep {
          // The "$unknown" object itself is no level: its members are the model's keys.
          if Nesting.exceeds(kept, maxDepth - depth + 1) {
            report(
              .depth, "input nested deeper than \(maxDepth) levels (in a kept key)",
              Owner(model: type, property: -1), extra: [.name("$unknown")])
          } else {
            unknown = json_copy(kept)
          }
        } else {
          report(
            .type, "\"$unknown\" holds the input keys a model with unknownKeys: keep carried; not here",
            Owner(model: type, property: -1), extra: [.name("$unknown")])
        }
      }
      JValue.forEachMember(value) { key, _ in
        let name = JValue.keyString(key)
        if type.propertyIndex[name] == nil && name != "$type" && name != "$unknown" {
          report(
            .unknownKey, "'\(name)' is not a property of '\(type.name)'", Owner(model: type, property: -1),
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
            .unknownKey, "unknown key '\(JValue.keyString(key))' (model '\(type.name)' rejects unknown keys)",
            Owner(model: type, property: -1), extra: [.key(key)])
        }
      }
    }
    if errors.count > before {
      for slot in slots { slot.release() }
      if let unknown { JValue.release(unknown) }
      return nil
    }
    return ModelObject(schema: schema, type: type, slots: slots, unknown: unknown, template: makesTemplates)
  }

  /// The model that an object of `type` is mapped onto: `type` itself, or the
  /// subtype its `subtypes` choose (following clusters of clusters).
  private mutating func subtype(_ object: JPtr, _ type: ModelType) -> ModelType? {
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
        guard JValue.isString(tag), let index = table[JValue.string(tag)] else {
          report(
            .subtype,
            "\(Self.show(tag)) names no subtype of '\(current.name)' (expected one of \(table.keys.sorted().joined(separator: ", ")))",
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

  private mutating func property(
    _ object: JPtr, _ type: ModelType, _ index: Int, _ unmanaged: Unmanaged<ModelType>
  ) -> Slot {
    let spec = type.properties[index]
    let owner = Owner(model: type, property: index)
    // Nested models of a partial model are partial only where they merge.
    clearing = partial
    clearsNull = partial && !spec.required
    partial = partial && spec.merge.mergesModels
    if mode == .canonical {
      let key = Key(spec.name)
      guard let member = JValue.member(object, key) else {
        return missing(spec, owner, extra: [.name(spec.name)])
      }
      steps.append(.name(spec.name))
      defer { steps.removeLast() }
      return propertyValue(member, spec.type, owner, spec.rules)
    }
    switch spec.location {
    case .none:
      return clearing ? .absent : spec.defaultSlot?.copy() ?? .absent
    case .path(let keys):
      var current = object
      let last = keys.count - 1
      for position in 0...last {
        guard let next = JValue.member(current, keys[position]) else {
          return missing(spec, owner, extra: [.property(unmanaged, index)])
        }
        if position < last && !JValue.isObject(next) {
          let prefix = keys[0...position].map { PathStep.name($0.name) }
          if JValue.isNull(next) {
            // A key path through null yields null.
            return nullValue(spec.type, owner, extra: prefix)
          }
          report(
            .path,
            "key path \(spec.locationText) runs through \(JValue.typeName(next)), not an object", owner,
            extra: prefix)
          return .absent
        }
        current = next
      }
      steps.append(.property(unmanaged, index))
      defer { steps.removeLast() }
      return propertyValue(current, spec.type, owner, spec.rules)
    case .pluck(let arrayKeys, let elementKeys):
      return pluck(object, spec, owner, arrayKeys, elementKeys, unmanaged, index)
    case .multi(let paths):
      guard let built = json_object() else { return .absent }
      defer { JValue.release(built) }
      var found = false
      var failed = false
      for path in paths {
        var current: JPtr? = object
        var through = false
        for (position, key) in path.keys.enumerated() {
          guard let here = current, let next = JValue.member(here, key) else {
            current = nil
            break
          }
          if position < path.keys.count - 1 && !JValue.isObject(next) {
            if JValue.isNull(next) {
              through = true
            } else {
              report(
                .path, "key path \(path.written.name) runs through \(JValue.typeName(next)), not an object",
                owner, extra: path.keys[0...position].map { PathStep.name($0.name) })
              failed = true
            }
            current = nil
            break
          }
          current = next
        }
        if let value = current {
          JValue.setNew(built, path.written, JValue.retain(value))
          found = true
        } else if through {
          JValue.setNew(built, path.written, json_null())
          found = true
        }
      }
      if failed { return .absent }
      guard found else {
        let first = paths.first.map { $0.keys.map { PathStep.name($0.name) } } ?? []
        return missing(spec, owner, extra: first)
      }
      steps.append(.multi(unmanaged, index))
      defer { steps.removeLast() }
      return propertyValue(built, spec.type, owner, spec.rules)
    }
  }

  /// Follows `keys` from `object`: the value, or why it is not there.
  private enum Lookup {
    case found(JPtr)
    case missing
    /// Through null at the keys up to `depth` (inclusive).
    case throughNull(Int)
    /// Through a non-object at the keys up to `depth` (inclusive).
    case blocked(Int, JPtr)
  }

  private func lookup(_ object: JPtr, _ keys: [Key]) -> Lookup {
    var current = object
    for (position, key) in keys.enumerated() {
      guard let next = JValue.member(current, key) else { return .missing }
      if position < keys.count - 1 && !JValue.isObject(next) {
        return JValue.isNull(next) ? .throughNull(position) : .blocked(position, next)
      }
      current = next
    }
    return .found(current)
  }

  /// `users[].name`: the array at `arrayKeys`, and from each element the value
  /// at `elementKeys` (null where it is missing), mapped as the property's `[T]`.
  private mutating func pluck(
    _ object: JPtr, _ spec: PropertySpec, _ owner: Owner, _ arrayKeys: [Key], _ elementKeys: [Key],
    _ unmanaged: Unmanaged<ModelType>, _ index: Int
  ) -> Slot {
    let arrayPath = arrayKeys.map { PathStep.name($0.name) }
    let array: JPtr
    switch lookup(object, arrayKeys) {
    case .missing:
      return missing(spec, owner, extra: arrayPath)
    case .throughNull(let depth):
      return nullValue(spec.type, owner, extra: Array(arrayPath[0...depth]))
    case .blocked(let depth, let value):
      report(
        .path, "key path \(spec.locationText) runs through \(JValue.typeName(value)), not an object", owner,
        extra: Array(arrayPath[0...depth]))
      return .absent
    case .found(let value):
      array = value
    }
    if JValue.isNull(array) { return nullValue(spec.type, owner, extra: arrayPath) }
    guard JValue.isArray(array), let built = json_array() else {
      report(
        .type, "key path \(spec.locationText) expects an array, found \(JValue.typeName(array))", owner,
        extra: arrayPath)
      return .absent
    }
    defer { JValue.release(built) }
    var failed = false
    for position in 0..<json_array_size(array) {
      guard let element = json_array_get(array, position) else { continue }
      let elementPath = arrayPath + [.index(position)]
      if JValue.isNull(element) {
        // Through a null element the plucked value is null.
        _ = json_array_append_new(built, json_null())
        continue
      }
      guard JValue.isObject(element) else {
        report(
          .path, "key path \(spec.locationText) runs through \(JValue.typeName(element)), not an object",
          owner,
          extra: elementPath)
        failed = true
        continue
      }
      switch lookup(element, elementKeys) {
      case .found(let value): _ = json_array_append(built, value)
      case .missing, .throughNull: _ = json_array_append_new(built, json_null())
      case .blocked(let depth, let value):
        report(
          .path, "key path \(spec.locationText) runs through \(JValue.typeName(value)), not an object", owner,
          extra: elementPath + elementKeys[0...depth].map { PathStep.name($0.name) })
        failed = true
      }
    }
    if failed { return .absent }
    steps.append(.pluck(unmanaged, index))
    defer { steps.removeLast() }
    return propertyValue(built, spec.type, owner, spec.rules)
  }

  private mutating func missing(_ spec: PropertySpec, _ owner: Owner, extra: [PathStep]) -> Slot {
    if clearing { return .absent }
    if spec.required {
      report(.missing, "required key '\(spec.locationText)' is missing", owner, extra: extra)
      return .absent
    }
    return spec.defaultSlot?.copy() ?? .absent
  }

  private mutating func nullValue(_ type: TypeRef, _ owner: Owner, extra: [PathStep] = []) -> Slot {
    if type.acceptsNull || clearsNull { return .null }
    report(.null, "expected \(typeName(type)), found null", owner, extra: extra)
    return .absent
  }

  /// A property's value: null, a leaf, or a slot holding models.
  private mutating func propertyValue(_ input: JPtr, _ type: TypeRef, _ owner: Owner, _ rules: ValueRules?)
    -> Slot
  {
    if JValue.isNull(input) { return nullValue(type, owner) }
    // The transform chain reads the whole JSON value, before the type check.
    var value = input
    var transformed: JPtr? = nil
    defer { if let transformed { JValue.release(transformed) } }
    if mode == .json, let rules, !rules.transforms.isEmpty {
      for transformer in rules.transforms {
        switch transformer.forward(value) {
        case .value(let next):
          if let transformed { JValue.release(transformed) }
          transformed = next
          value = next
        case .failed(let failures):
          for failure in failures {
            report(
              .format, "\(transformer.name): \(failure.message)", owner,
              extra: failure.at.map { PathStep.name($0) })
          }
          return .absent
        }
      }
      if JValue.isNull(value) { return nullValue(type, owner) }
    }
    let inner = type.unwrapped
    let slot: Slot
    if inner.isLeafy {
      guard let leaf = leaf(value, inner, owner, rules) else { return .absent }
      slot = .leaf(leaf)
    } else {
      guard let made = self.slot(value, inner, owner) else { return .absent }
      slot = made
    }
    if let validation = rules?.validation, validation.minLength != nil || validation.maxLength != nil {
      var failure: String? = nil
      switch slot {
      case .leaf(let leaf):
        if JValue.isString(leaf) {
          failure = validation.lengthFailure(Validation.characterCount(leaf), of: "the string")
        } else if JValue.isArray(leaf) {
          failure = validation.lengthFailure(json_array_size(leaf), of: "the array")
        } else if JValue.isObject(leaf) {
          failure = validation.lengthFailure(json_object_size(leaf), of: "the object")
        }
      case .array(let elements): failure = validation.lengthFailure(elements.count, of: "the array")
      case .dict(let entries): failure = validation.lengthFailure(entries.count, of: "the object")
      default: break
      }
      if let failure {
        report(.validation, failure, owner)
        slot.release()
        return .absent
      }
    }
    return slot
  }

  // MARK: values holding models

  private mutating func slot(_ value: JPtr, _ type: TypeRef, _ owner: Owner) -> Slot? {
    switch type {
    case .optional(let inner):
      if JValue.isNull(value) { return .null }
      return slot(value, inner, owner)
    case .model(let index):
      guard index < schema.models.count else { return nil }
      let modelType = schema.models[index]
      if JValue.isNull(value) {
        report(.null, "expected a '\(modelType.name)' object, found null", owner)
        return nil
      }
      guard JValue.isObject(value) else {
        report(.type, "expected a '\(modelType.name)' object, found \(JValue.typeName(value))", owner)
        return nil
      }
      guard let chosen = subtype(value, modelType) else { return nil }
      return model(value, chosen).map { .model($0) }
    case .array(let element):
      if element.isLeafy { return leaf(value, type, owner, nil).map { .leaf($0) } }
      guard checkContainer(value, type, owner, JValue.isArray(value)) else { return nil }
      depth += 1
      defer { depth -= 1 }
      let count = json_array_size(value)
      var out = ContiguousArray<Slot>()
      out.reserveCapacity(count)
      var failed = false
      for position in 0..<count {
        guard let member = json_array_get(value, position) else { continue }
        steps.append(.index(position))
        if let item = slot(member, element, owner) { out.append(item) } else { failed = true }
        steps.removeLast()
      }
      if failed {
        for item in out { item.release() }
        return nil
      }
      return .array(out)
    case .dict(let element):
      if element.isLeafy { return leaf(value, type, owner, nil).map { .leaf($0) } }
      guard checkContainer(value, type, owner, JValue.isObject(value)) else { return nil }
      depth += 1
      defer { depth -= 1 }
      var out = ContiguousArray<DictEntry>()
      out.reserveCapacity(json_object_size(value))
      var failed = false
      JValue.forEachMember(value) { key, member in
        steps.append(.key(key))
        if let item = slot(member, element, owner) {
          out.append(DictEntry(key: JValue.keyString(key), value: item))
        } else {
          failed = true
        }
        steps.removeLast()
      }
      if failed {
        for entry in out { entry.value.release() }
        return nil
      }
      return .dict(out)
    default:
      return leaf(value, type, owner, nil).map { .leaf($0) }
    }
  }

  /// Checks that a container value has the right JSON type and the nesting is not too deep.
  private mutating func checkContainer(_ value: JPtr, _ type: TypeRef, _ owner: Owner?, _ ok: Bool) -> Bool {
    guard ok else {
      if JValue.isNull(value) {
        report(.null, "expected \(typeName(type)), found null", owner)
      } else {
        report(.type, "expected \(typeName(type)), found \(JValue.typeName(value))", owner)
      }
      return false
    }
    if !canDescend() {
      report(
        .depth,
        depth >= maxDepth
          ? "input nested deeper than \(maxDepth) levels"
          : "input nested too deep for the calling thread's stack (\(depth) levels)", owner)
      return false
    }
    return true
  }

  // MARK: leaves

  /// A value whose type holds no model, as one JSON value: a new reference
  /// (the input itself where it passes unchanged), or nil after reporting errors.
  private mutating func leaf(_ value: JPtr, _ type: TypeRef, _ owner: Owner?, _ rules: ValueRules?) -> JPtr? {
    switch type {
    case .optional(let inner):
      if JValue.isNull(value) { return json_null() }
      return leaf(value, inner, owner, rules)
    case .array(let element):
      guard checkContainer(value, type, owner, JValue.isArray(value)) else { return nil }
      depth += 1
      defer { depth -= 1 }
      let count = json_array_size(value)
      var rebuilt: JPtr? = nil
      var failed = false
      for position in 0..<count {
        guard let member = json_array_get(value, position) else { continue }
        steps.append(.index(position))
        let item = leaf(member, element, owner, rules)
        steps.removeLast()
        guard let item else {
          failed = true
          continue
        }
        if rebuilt == nil && item != member && !failed {
          rebuilt = json_array()
          for earlier in 0..<position {
            if let kept = json_array_get(value, earlier) { _ = json_array_append(rebuilt, kept) }
          }
        }
        if let rebuilt { _ = json_array_append_new(rebuilt, item) } else { JValue.release(item) }
      }
      if failed {
        if let rebuilt { JValue.release(rebuilt) }
        return nil
      }
      return rebuilt ?? JValue.retain(value)
    case .dict(let element):
      guard checkContainer(value, type, owner, JValue.isObject(value)) else { return nil }
      depth += 1
      defer { depth -= 1 }
      var rebuilt: JPtr? = nil
      var failed = false
      var position = 0
      JValue.forEachMember(value) { key, member in
        steps.append(.key(key))
        let item = leaf(member, element, owner, rules)
        steps.removeLast()
        defer { position += 1 }
        guard let item else {
          failed = true
          return
        }
        if rebuilt == nil && item != member && !failed {
          let fresh = json_object()
          rebuilt = fresh
          var copied = 0
          JValue.forEachMember(value) { earlierKey, earlier in
            if copied < position, let fresh { JValue.setMember(fresh, earlierKey, JValue.retain(earlier)) }
            copied += 1
          }
        }
        if let rebuilt {
          JValue.setMember(rebuilt, key, item)
        } else {
          JValue.release(item)
        }
      }
      if failed {
        if let rebuilt { JValue.release(rebuilt) }
        return nil
      }
      return rebuilt ?? JValue.retain(value)
    default:
      break
    }
    if JValue.isNull(value) {
      if case .json = type { return json_null() }
      report(.null, "expected \(typeName(type)), found null", owner)
      return nil
    }
    guard let rules else { return scalar(value, type, owner, nil) }
    var mapped: JPtr? = nil
    if mode == .json, let enumMap = rules.enumMap {
      guard let modelValue = enumMap.forward(value) else {
        report(.enumValue, "\(Self.show(value)) is not one of the enum's values", owner)
        return nil
      }
      mapped = JValue.retain(modelValue)
    } else if mode == .canonical, let enumMap = rules.enumMap, !enumMap.holds(modelValue: value) {
      report(.enumValue, "\(Self.show(value)) is not one of the enum's model values", owner)
      return nil
    }
    let current = value
    guard let result = mapped ?? scalar(current, type, owner, rules) else { return nil }
    if let validation = rules.validation, validation.checksScalars,
      let failure = validation.scalarFailure(result)
    {
      report(.validation, failure, owner)
      JValue.release(result)
      return nil
    }
    return result
  }

  /// A scalar checked against its type: a new reference, or nil after reporting.
  private mutating func scalar(_ value: JPtr, _ type: TypeRef, _ owner: Owner?, _ rules: ValueRules?) -> JPtr?
  {
    switch type {
    case .date:
      return date(value, owner, rules)
    case .string:
      if JValue.isString(value) { return JValue.retain(value) }
    case .int:
      if JValue.isInteger(value) { return JValue.retain(value) }
    case .double:
      if JValue.isReal(value) { return JValue.retain(value) }
      if JValue.isInteger(value) { return json_real(Double(json_integer_value(value))) }
    case .bool:
      if JValue.isBool(value) { return JValue.retain(value) }
    case .json:
      if Nesting.exceeds(value, maxDepth - depth) {
        report(.depth, "input nested deeper than \(maxDepth) levels (in a json value)", owner)
        return nil
      }
      return JValue.retain(value)
    case .url:
      if JValue.isString(value) {
        if URLCheck.isAbsolute(JValue.stringBytes(value)) { return JValue.retain(value) }
        report(.format, "\(Self.show(value)) is not an absolute URL with a scheme", owner)
        return nil
      }
    default:
      break
    }
    report(.type, "expected \(typeName(type)), found \(JValue.typeName(value))", owner)
    return nil
  }

  /// A date: read in the property's format (canonical values: RFC 3339), kept
  /// as its canonical RFC 3339 UTC string. Input already in that form is shared.
  private mutating func date(_ value: JPtr, _ owner: Owner?, _ rules: ValueRules?) -> JPtr? {
    let format = mode == .json ? rules?.dateFormat ?? .iso8601 : .iso8601
    let offset = mode == .json ? rules?.timezone ?? 0 : 0
    var parsed: DateValue? = nil
    if JValue.isString(value) && format.isText {
      parsed = format.date(text: JValue.stringBytes(value), defaultOffset: offset)
    } else if JValue.isInteger(value) && !format.isText {
      parsed = format.date(integer: json_integer_value(value))
    } else if JValue.isReal(value) && !format.isText {
      parsed = format.date(real: json_real_value(value))
    } else {
      let expected = format.isText ? "a date string (\(format.name))" : "a number of \(format.name) time"
      report(.type, "expected \(expected), found \(JValue.typeName(value))", owner)
      return nil
    }
    guard let parsed else {
      report(.format, "\(Self.show(value)) is not a date in the format \(format.name)", owner)
      return nil
    }
    if format == .iso8601 && JValue.isString(value) && Self.isCanonicalDate(JValue.stringBytes(value)) {
      return JValue.retain(value)
    }
    return RFC3339Formatter.jansson(parsed)
  }

  /// True for `YYYY-MM-DDTHH:MM:SSZ` that parsed: already the canonical form.
  @inline(__always) static func isCanonicalDate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    bytes.count == 20 && bytes[10] == UInt8(ascii: "T") && bytes[19] == UInt8(ascii: "Z")
  }

  /// A short rendering of a value for messages.
  /// Scalars are shown as JSON; arrays and objects by their type and size
  /// (never dumped: a C caller's json_t may nest deeper than any stack).
  static func show(_ value: JPtr) -> String {
    if JValue.isArray(value) { return "an array of \(json_array_size(value)) elements" }
    if JValue.isObject(value) { return "an object of \(json_object_size(value)) members" }
    guard let text = json_dumps(value, Int(JSON_ENCODE_ANY | JSON_COMPACT)) else {
      return JValue.typeName(value)
    }
    defer { free(text) }
    let rendered = String(cString: text)
    if rendered.count > 60 { return String(rendered.prefix(57)) + "..." }
    return rendered
  }
}
