import CJansson

/// Turns model storage back into JSON: the canonical dictionary (property
/// names, model-side values) and the serialized form (JSON keys and key
/// paths, enum values mapped back, unknown keys carried through).
package enum Serializer {
  // MARK: canonical

  /// The canonical dictionary of a model (a new reference). With `archive`,
  /// every model also carries the input keys it kept under `unknownKeys: keep`
  /// as `"$unknown"` (what an archive must restore).
  static func dictionary(_ object: ModelObject, archive: Bool = false) -> JPtr? {
    guard let out = json_object() else { return nil }
    if object.type.isSubtype, let tag = JValue.makeString(object.type.name) {
      JValue.setNew(out, "$type", tag)
    }
    let properties = object.type.properties
    for index in 0..<min(properties.count, object.slots.count) {
      guard let value = canonical(object.slots[index], archive: archive) else { continue }
      JValue.setNew(out, properties[index].name, value)
    }
    if archive, let unknown = object.unknown, json_object_size(unknown) > 0 {
      JValue.setNew(out, "$unknown", JValue.retain(unknown))
    }
    return out
  }

  /// The canonical value of a slot (a new reference), or nil when absent.
  package static func canonical(_ slot: Slot, archive: Bool = false) -> JPtr? {
    switch slot {
    case .absent: return nil
    case .null: return json_null()
    case .leaf(let value): return JValue.retain(value)
    case .integer, .real, .text, .list: return slot.leafJSON()
    case .model(let object): return dictionary(object, archive: archive)
    case .array(let elements):
      guard let out = json_array() else { return nil }
      for element in elements {
        _ = json_array_append_new(out, canonical(element, archive: archive) ?? json_null())
      }
      return out
    case .dict(let entries):
      guard let out = json_object() else { return nil }
      for entry in entries {
        JValue.setNew(out, entry.key, canonical(entry.value, archive: archive) ?? json_null())
      }
      return out
    }
  }

  // MARK: serialized

  /// The model serialized back to JSON (a new reference), or the errors of
  /// reverse transformers that could not write a value.
  static func serialize(_ object: ModelObject) -> Result<JPtr, StrataError> {
    var writer = Writer()
    guard let out = writer.serialize(object) else {
      return .failure(StrataError(code: .oom, message: "out of memory"))
    }
    if !writer.errors.isEmpty {
      JValue.release(out)
      return .failure(StrataError(writer.errors))
    }
    return .success(out)
  }

  /// The errors of writing a property's value (a `default`, checked at load)
  /// back to JSON: reverse transformers that refuse it.
  static func writeErrors(_ slot: Slot, model: ModelType, property: Int) -> [ErrorDetail] {
    guard property < model.properties.count else { return [] }
    let spec = model.properties[property]
    var writer = Writer()
    if let value = writer.serialized(
      slot, spec.rules, spec.type, Writer.Place(model: model, property: property))
    {
      JValue.release(value)
    }
    return writer.errors
  }

  /// Serialization state: the errors found so far.
  private struct Writer {
    var errors: [ErrorDetail] = []

    mutating func serialize(_ object: ModelObject) -> JPtr? {
      guard let out = json_object() else { return nil }
      for (key, value) in object.type.discriminators {
        if let tag = JValue.makeString(value) { JValue.setNew(out, key, tag) }
      }
      let properties = object.type.properties
      for index in 0..<min(properties.count, object.slots.count) {
        let spec = properties[index]
        let slot = object.slots[index]
        guard slot.isPresent else { continue }
        let place = Place(model: object.type, property: index)
        switch spec.location {
        case .none:
          continue
        case .path(let keys):
          guard let value = serialized(slot, spec.rules, spec.type, place) else { continue }
          Serializer.place(value, at: keys[...], in: out)
        case .pluck(let arrayKeys, let elementKeys):
          guard let value = serialized(slot, spec.rules, spec.type, place) else { continue }
          Serializer.scatter(value, into: out, arrayKeys, elementKeys)
        case .multi(let paths):
          guard let value = serialized(slot, spec.rules, spec.type, place) else { continue }
          if JValue.isObject(value) {
            for path in paths {
              if let member = JValue.member(value, path.written) {
                Serializer.place(JValue.retain(member), at: path.keys[...], in: out)
              }
            }
          }
          JValue.release(value)
        }
      }
      if let unknown = object.unknown {
        JValue.forEachMember(unknown) { key, value in
          let present = key.withMemoryRebound(to: CChar.self) { chars in
            JValue.withChars(chars) { json_object_getn(out, $0, $1) != nil }
          }
          if !present { JValue.setMember(out, key, JValue.retain(value)) }
        }
      }
      return out
    }

    /// Where a value being written belongs, for errors.
    struct Place {
      let model: ModelType
      let property: Int
    }

    /// The serialized value of a slot (a new reference), or nil when absent.
    mutating func serialized(_ slot: Slot, _ rules: ValueRules?, _ type: TypeRef, _ place: Place) -> JPtr? {
      switch slot {
      case .absent: return nil
      case .null: return json_null()
      case .leaf(let value):
        guard let rules, !rules.passesThroughOnOutput else { return JValue.retain(value) }
        guard rules.enumMap != nil || rules.rewritesDates else {
          return untransform(JValue.retain(value), rules, place)
        }
        guard let mapped = reverse(value, type, rules) else { return nil }
        return untransform(mapped, rules, place)
      case .integer, .real, .text, .list:
        guard let made = slot.leafJSON() else { return nil }
        defer { JValue.release(made) }
        return serialized(.leaf(made), rules, type, place)
      case .model(let object): return serialize(object)
      case .array(let elements):
        guard let out = json_array() else { return nil }
        for element in elements {
          _ = json_array_append_new(out, serialized(element, nil, type, place) ?? json_null())
        }
        return out
      case .dict(let entries):
        guard let out = json_object() else { return nil }
        for entry in entries {
          JValue.setNew(out, entry.key, serialized(entry.value, nil, type, place) ?? json_null())
        }
        return out
      }
    }

    /// A leaf with each scalar mapped back: enum values, dates in their format (a new reference).
    private func reverse(_ value: JPtr, _ type: TypeRef, _ rules: ValueRules) -> JPtr? {
      if JValue.isNull(value) { return json_null() }
      switch type {
      case .optional(let inner):
        return reverse(value, inner, rules)
      case .array(let element) where JValue.isArray(value):
        guard let out = json_array() else { return nil }
        for position in 0..<json_array_size(value) {
          if let item = json_array_get(value, position) {
            _ = json_array_append_new(out, reverse(item, element, rules) ?? json_null())
          }
        }
        return out
      case .dict(let element) where JValue.isObject(value):
        guard let out = json_object() else { return nil }
        JValue.forEachMember(value) { key, member in
          JValue.setMember(out, key, reverse(member, element, rules) ?? json_null())
        }
        return out
      case .date where rules.rewritesDates && JValue.isString(value):
        guard let instant = ISO8601DateParser.parse(JValue.stringBytes(value)) else {
          return JValue.retain(value)
        }
        switch rules.dateFormat.represent(instant, offset: rules.timezone) {
        case .text(let text): return JValue.makeString(text)
        case .integer(let number): return json_integer(number)
        case .real(let number): return json_real(number)
        }
      default:
        return JValue.retain(rules.enumMap?.reverse(value) ?? value)
      }
    }

    /// The transform chain reversed, last step first, over the whole value
    /// (stolen; a new reference is returned). One-way steps leave it unchanged.
    private mutating func untransform(_ value: JPtr, _ rules: ValueRules, _ place: Place) -> JPtr? {
      var current = value
      for transformer in rules.transforms.reversed() {
        guard let step = transformer.reverse else { continue }
        switch step(current) {
        case .value(let next):
          JValue.release(current)
          current = next
        case .failed(let failures):
          let spec = place.model.properties[place.property]
          let property = PathStep.property(Unmanaged.passUnretained(place.model), place.property)
          for failure in failures {
            errors.append(
              ErrorDetail(
                path: PathStep.pointer([property] + failure.at.map { PathStep.name($0) }),
                model: place.model.name,
                property: spec.name, code: .format,
                message: "\(transformer.name) (reverse): \(failure.message)"))
          }
          return current
        }
      }
      return current
    }
  }

  /// The reverse of plucking `users[].name`: element `i` of `values` (stolen)
  /// goes to `users/i/name`, creating the array and its objects as needed.
  static func scatter(_ values: JPtr, into object: JPtr, _ arrayKeys: [Key], _ elementKeys: [Key]) {
    if JValue.isNull(values) {
      place(values, at: arrayKeys[...], in: object)  // a null array: null at the prefix
      return
    }
    defer { JValue.release(values) }
    guard JValue.isArray(values), let last = arrayKeys.last else { return }
    // The objects on the way to the array.
    var parent = object
    for key in arrayKeys.dropLast() {
      var child = JValue.member(parent, key)
      if let existing = child, JValue.isObject(existing), existing.pointee.refcount > 1,
        let copy = json_copy(existing)
      {
        JValue.setNew(parent, key, copy)
        child = copy
      }
      if child == nil, let fresh = json_object() {
        JValue.setNew(parent, key, fresh)
        child = fresh
      }
      guard let next = child, JValue.isObject(next) else { return }
      parent = next
    }
    var array = JValue.member(parent, last)
    if let existing = array, JValue.isArray(existing), existing.pointee.refcount > 1,
      let copy = json_copy(existing)
    {
      JValue.setNew(parent, last, copy)
      array = copy
    }
    if array == nil, let fresh = json_array() {
      JValue.setNew(parent, last, fresh)
      array = fresh
    }
    guard let target = array, JValue.isArray(target) else { return }
    for position in 0..<json_array_size(values) {
      guard let value = json_array_get(values, position) else { continue }
      while json_array_size(target) <= position {
        guard let fresh = json_object() else { return }
        _ = json_array_append_new(target, fresh)
      }
      guard var element = json_array_get(target, position), JValue.isObject(element) else { continue }
      if element.pointee.refcount > 1, let copy = json_copy(element) {
        _ = json_array_set_new(target, position, copy)
        element = copy
      }
      place(JValue.retain(value), at: elementKeys[...], in: element)
    }
  }

  /// Sets `value` (stolen) at the key path `keys` inside `object`, creating
  /// the objects on the way. An object already there is filled in (copied first
  /// when it is shared, so no input value is ever changed in place).
  static func place(_ value: JPtr, at keys: ArraySlice<Key>, in object: JPtr) {
    guard let first = keys.first else {
      JValue.release(value)
      return
    }
    if keys.count == 1 {
      JValue.setNew(object, first, value)
      return
    }
    var child = JValue.member(object, first)
    if let existing = child, JValue.isObject(existing), existing.pointee.refcount > 1 {
      // Shared with a model or the input: fill a private copy instead.
      if let copy = json_copy(existing) {
        JValue.setNew(object, first, copy)
        child = copy
      }
    }
    if child == nil, let fresh = json_object() {
      JValue.setNew(object, first, fresh)
      child = fresh
    }
    guard let target = child, JValue.isObject(target) else {
      JValue.release(value)  // a non-object is in the way: the outer value wins
      return
    }
    place(value, at: keys.dropFirst(), in: target)
  }
}
