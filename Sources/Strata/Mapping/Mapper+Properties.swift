import CJansson
import Glibc

/// One property: finding its value (keys, key paths, array plucks), missing and null values, enums and transformers.
extension Mapper {
  mutating func property(
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
  enum Lookup {
    case found(JPtr)
    case missing
    /// Through null at the keys up to `depth` (inclusive).
    case throughNull(Int)
    /// Through a non-object at the keys up to `depth` (inclusive).
    case blocked(Int, JPtr)
  }

  func lookup(_ object: JPtr, _ keys: [Key]) -> Lookup {
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
  mutating func pluck(
    _ object: JPtr, _ spec: PropertySpec, _ owner: Owner, _ arrayKeys: [Key], _ elementKeys: [Key],
    _ unmanaged: Unmanaged<ModelType>, _ index: Int
  ) -> Slot {
    // the paths are made only for an error or a null: most plucks need none
    func arrayPath() -> [PathStep] { arrayKeys.map { PathStep.name($0.name) } }
    let array: JPtr
    switch lookup(object, arrayKeys) {
    case .missing:
      return missing(spec, owner, extra: arrayPath())
    case .throughNull(let depth):
      return nullValue(spec.type, owner, extra: Array(arrayPath()[0...depth]))
    case .blocked(let depth, let value):
      report(
        .path, "key path \(spec.locationText) runs through \(JValue.typeName(value)), not an object", owner,
        extra: Array(arrayPath()[0...depth]))
      return .absent
    case .found(let value):
      array = value
    }
    if JValue.isNull(array) { return nullValue(spec.type, owner, extra: arrayPath()) }
    guard JValue.isArray(array), let built = json_array() else {
      report(
        .type, "key path \(spec.locationText) expects an array, found \(JValue.typeName(array))", owner,
        extra: arrayPath())
      return .absent
    }
    defer { JValue.release(built) }
    var failed = false
    for position in 0..<json_array_size(array) {
      guard let element = json_array_get(array, position) else { continue }
      if JValue.isNull(element) {
        // Through a null element the plucked value is null.
        _ = json_array_append_new(built, json_null())
        continue
      }
      guard JValue.isObject(element) else {
        report(
          .path, "key path \(spec.locationText) runs through \(JValue.typeName(element)), not an object",
          owner,
          extra: arrayPath() + [.index(position)])
        failed = true
        continue
      }
      switch lookup(element, elementKeys) {
      case .found(let value): _ = json_array_append(built, value)
      case .missing, .throughNull: _ = json_array_append_new(built, json_null())
      case .blocked(let depth, let value):
        report(
          .path, "key path \(spec.locationText) runs through \(JValue.typeName(value)), not an object", owner,
          extra: arrayPath() + [.index(position)] + elementKeys[0...depth].map { PathStep.name($0.name) })
        failed = true
      }
    }
    if failed { return .absent }
    steps.append(.pluck(unmanaged, index))
    defer { steps.removeLast() }
    return propertyValue(built, spec.type, owner, spec.rules)
  }

  mutating func missing(_ spec: PropertySpec, _ owner: Owner, extra: [PathStep]) -> Slot {
    if clearing { return .absent }
    if spec.required {
      report(.missing, "required key '\(spec.locationText)' is missing", owner, extra: extra)
      return .absent
    }
    return spec.defaultSlot?.copy() ?? .absent
  }

  mutating func nullValue(_ type: TypeRef, _ owner: Owner, extra: [PathStep] = []) -> Slot {
    if type.acceptsNull || clearsNull { return .null }
    report(.null, "expected \(typeName(type)), found null", owner, extra: extra)
    return .absent
  }

  /// A property's value: null, a leaf, or a slot holding models.
  mutating func propertyValue(_ input: JPtr, _ type: TypeRef, _ owner: Owner, _ rules: ValueRules?)
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
}
