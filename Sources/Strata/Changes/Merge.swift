import CJansson

/// Merging one model into another by each property's `merge` policy.
///
/// Merging never changes a nested model in place: it builds new slots (and new
/// nested models where they merge) and swaps them into the target only when
/// every property merged, so a failed merge leaves the target as it was. Since
/// nested models are never changed in place, an incoming nested model can be
/// shared rather than copied (`union`'s later-wins elements, for one).
package struct Merging {
  let schema: Schema
  package var errors: [ErrorDetail] = []

  /// Merges models of `schema`, no errors yet.
  package init(schema: Schema) { self.schema = schema }

  /// What merging one property gives.
  private enum Outcome {
    /// The target's slot stays.
    case keep
    /// A new slot (owned).
    case set(Slot)
    /// Errors were reported.
    case failed
  }

  /// Merges `incoming` into `target` in place; all or nothing.
  mutating func merge(_ incoming: ModelObject, into target: ModelObject) -> Bool {
    guard let (slots, fresh, unknown) = mergedSlots(target, incoming, path: []) else { return false }
    // in place: the merged slots cover the target's first `slots.count`
    let place = target.slots
    for index in fresh where index < place.count { place[index].release() }
    for index in slots.indices where index < place.count { place[index] = slots[index] }
    if let unknown {
      if let previous = target.unknown { JValue.release(previous) }
      target.unknown = unknown
    }
    return true
  }

  /// A new model: `target` merged with `incoming`, neither of them changed;
  /// nil after errors (in `errors`). Kept values are shared with `target`.
  package mutating func merged(_ incoming: ModelObject, onto target: ModelObject) -> ModelObject? {
    guard let (slots, fresh, unknown) = mergedSlots(target, incoming, path: []) else { return nil }
    var owned = slots
    var next = 0
    for index in owned.indices {
      if next < fresh.count && fresh[next] == index {
        next += 1
      } else {
        owned[index] = owned[index].shared()
      }
    }
    return ModelObject.make(
      schema: schema, type: target.type, slots: owned,
      unknown: unknown ?? target.unknown.flatMap { json_copy($0) })
  }

  /// The merged slots of `target` with `incoming` (new ones owned; kept ones
  /// the target's own), and a new unknown-keys object when it changes; nil on errors.
  private mutating func mergedSlots(
    _ target: ModelObject, _ incoming: ModelObject, path: [String]
  ) -> (ContiguousArray<Slot>, fresh: [Int], unknown: JPtr?)? {
    guard
      target.type === incoming.type || target.type.isSelfOrDescendant(of: incoming.type)
        || incoming.type.isSelfOrDescendant(of: target.type)
    else {
      errors.append(
        ErrorDetail(
          path: JSONPointer.make(path), model: target.type.name, code: .argument,
          message:
            "cannot merge a '\(incoming.type.name)' into a '\(target.type.name)': they are not related by extends"
        ))
      return nil
    }
    let properties = target.type.properties
    var slots = ContiguousArray<Slot>()
    slots.reserveCapacity(properties.count)
    var fresh: [Int] = []
    var failed = false
    for index in 0..<min(properties.count, target.slots.count) {
      let spec = properties[index]
      let other: Int?
      if target.type === incoming.type {
        other = index
      } else {
        other = incoming.type.propertyIndex[spec.name]
      }
      guard let other, other < incoming.slots.count else {
        slots.append(target.slots[index])
        continue
      }
      switch combine(
        target.slots[index], incoming.slots[other], spec, Owner(model: target.type, property: index),
        parent: path, name: spec.name)
      {
      case .keep: slots.append(target.slots[index])
      case .set(let slot):
        if !keepsLengths(
          slot, spec, Owner(model: target.type, property: index), parent: path, name: spec.name)
        {
          slot.release()
          failed = true
          slots.append(target.slots[index])
          continue
        }
        fresh.append(index)
        slots.append(slot)
      case .failed:
        failed = true
        slots.append(target.slots[index])
      }
    }
    if failed {
      for index in fresh { slots[index].release() }
      return nil
    }
    var unknown: JPtr? = nil
    if target.type.unknownKeys == .keep, let extra = incoming.unknown, json_object_size(extra) > 0 {
      let merged = target.unknown.flatMap { json_copy($0) } ?? json_object()
      if let merged {
        _ = json_object_update(merged, extra)
        unknown = merged
      }
    }
    return (slots, fresh, unknown)
  }

  private struct Owner {
    let model: ModelType
    let property: Int
  }

  private mutating func fail(_ code: ErrorCode, _ message: String, _ owner: Owner, _ path: [String]) {
    let property =
      owner.property < owner.model.properties.count ? owner.model.properties[owner.property].name : ""
    errors.append(
      ErrorDetail(
        path: JSONPointer.make(path), model: owner.model.name, property: property, code: code,
        message: message))
  }

  private mutating func combine(
    _ current: Slot, _ incoming: Slot, _ spec: PropertySpec, _ owner: Owner, parent: [String], name: String
  )
    -> Outcome
  {
    // Built only where needed: merging runs for every property of every record.
    var path: [String] { parent + [name] }
    if case .absent = incoming { return .keep }
    if case .null = incoming {
      // Null clears (from an update: to absent where the type has no null),
      // except where the policy keeps a value that is there.
      let cleared: Slot = spec.type.acceptsNull ? .null : .absent
      switch spec.merge {
      case .keep, .max, .min: return Self.holdsValue(current) ? .keep : .set(cleared)
      default: return current.isPresent || spec.type.acceptsNull ? .set(cleared) : .keep
      }
    }
    switch spec.merge {
    case .replace:
      return .set(incoming.shared())
    case .keep:
      return Self.holdsValue(current) ? .keep : .set(incoming.shared())
    case .merge:
      if case .model(let mine) = current, case .model(let theirs) = incoming,
        mine.type === theirs.type || mine.type.isSelfOrDescendant(of: theirs.type)
          || theirs.type.isSelfOrDescendant(of: mine.type)
      {
        guard let (merged, fresh, unknown) = mergedSlots(mine, theirs, path: path) else { return .failed }
        // Kept slots are `mine`'s own: `combined` takes its own references to them.
        var slots = merged
        let isFresh = Set(fresh)
        for index in slots.indices where !isFresh.contains(index) { slots[index] = slots[index].shared() }
        let combined = ModelObject.make(schema: schema, type: mine.type, slots: slots, unknown: nil)
        combined.unknown = unknown ?? mine.unknown.flatMap { json_copy($0) }
        return .set(.model(combined))
      }
      // Nothing to merge into: the incoming model stands alone and must be whole
      // (an update's nested object is partial).
      if case .model(let theirs) = incoming {
        guard complete(theirs, path: path) else { return .failed }
        // and takes the defaults a whole mapping gives
        return .set(.model(theirs.withDefaults()))
      }
      return .set(incoming.shared())
    case .append:
      guard Self.holdsValue(current) else { return .set(incoming.shared()) }
      switch (current, incoming) {
      case (.array(let mine), .array(let theirs)):
        return .set(.array(ContiguousArray(mine.map { $0.shared() } + theirs.map { $0.shared() })))
      case (.list(let mine), .list(let theirs)):
        return .set(.list(ContiguousArray(mine.map { $0.shared() } + theirs.map { $0.shared() })))
      case (.leaf, .leaf), (.list, .leaf), (.leaf, .list):
        // jansson arrays, one of them perhaps a list made into one: joined
        // into a copy (a `.leaf`'s array is shared); anything but two arrays
        // is replaced
        guard current.isArrayLeaf, incoming.isArrayLeaf else { return .set(incoming.shared()) }
        let made: JPtr?
        if case .leaf(let mine) = current { made = json_copy(mine) } else { made = current.leafJSON() }
        guard let joined = made else { return .failed }
        guard incoming.withLeaf({ json_array_extend(joined, $0) }) != nil else {
          JValue.release(joined)
          return .failed
        }
        return .set(.leaf(joined))
      default:
        return .set(incoming.shared())
      }
    case .union:
      guard Self.holdsValue(current), case .array(let mine) = current, case .array(let theirs) = incoming
      else {
        return .set(incoming.shared())
      }
      return .set(.array(Self.union(mine, theirs)))
    case .max, .min:
      guard Self.holdsValue(current),
        let order = current.withLeaf({ mine in incoming.withLeaf { theirs in Self.compare(theirs, mine) } })
          ?? nil
      else {
        return .set(incoming.shared())
      }
      if case .max = spec.merge { return order > 0 ? .set(incoming.shared()) : .keep }
      return order < 0 ? .set(incoming.shared()) : .keep
    case .custom(let merger):
      let mine = Serializer.canonical(current)
      defer { if let mine { JValue.release(mine) } }
      guard let theirs = Serializer.canonical(incoming) else { return .keep }
      defer { JValue.release(theirs) }
      switch merger.function(mine, theirs) {
      case .failure(let refusal):
        fail(.validation, "merger '\(merger.name)' refused: \(refusal.message)", owner, path)
        return .failed
      case .success(let merged):
        defer { JValue.release(merged) }
        var reader = Mapper(schema: schema, mode: .canonical)
        let slot = reader.read(merged, type: spec.type, model: owner.model, property: owner.property)
        if !reader.errors.isEmpty {
          slot.release()
          for error in reader.errors {
            fail(
              error.code, "merger '\(merger.name)' returned a value that does not fit: \(error.message)",
              owner, path)
          }
          return .failed
        }
        return .set(slot)
      }
    }
  }

  /// False (after reporting) when a merged array or string breaks the
  /// property's `minLength` / `maxLength` (append and union can grow a value).
  private mutating func keepsLengths(
    _ slot: Slot, _ spec: PropertySpec, _ owner: Owner, parent: [String], name: String
  )
    -> Bool
  {
    guard let validation = spec.rules?.validation, validation.minLength != nil || validation.maxLength != nil
    else {
      return true
    }
    var failure: String? = nil
    switch slot {
    case .leaf(let value):
      if JValue.isArray(value) {
        failure = validation.lengthFailure(json_array_size(value), of: "the merged array")
      } else if JValue.isString(value) {
        failure = validation.lengthFailure(Validation.characterCount(value), of: "the merged string")
      }
    case .array(let elements), .list(let elements):
      failure = validation.lengthFailure(elements.count, of: "the merged array")
    default: break
    }
    guard let failure else { return true }
    fail(.validation, failure, owner, parent + [name])
    return false
  }

  /// False (after reporting `missing` errors) when a model lacks required
  /// properties, looking into nested models that merge.
  private mutating func complete(_ object: ModelObject, path: [String]) -> Bool {
    var whole = true
    for (index, spec) in object.type.properties.enumerated() where index < object.slots.count {
      let slot = object.slots[index]
      if spec.required && !slot.isPresent {
        fail(
          .missing, "'\(spec.name)' is required: an update into an absent '\(object.type.name)' must give it",
          Owner(model: object.type, property: index), path + [spec.name])
        whole = false
      } else if spec.merge.mergesModels, case .model(let nested) = slot,
        !complete(nested, path: path + [spec.name])
      {
        whole = false
      }
    }
    return whole
  }

  /// True when the slot holds a value (not absent, not null).
  private static func holdsValue(_ slot: Slot) -> Bool {
    switch slot {
    case .absent, .null: return false
    default: return true
    }
  }

  /// -1, 0, 1 for numbers (integers and reals) or canonical dates.
  private static func compare(_ a: JPtr, _ b: JPtr) -> Int {
    if JValue.isString(a) && JValue.isString(b) { return DateOrder.compare(a, b) }
    if JValue.isInteger(a) && JValue.isInteger(b) {
      let x = json_integer_value(a)
      let y = json_integer_value(b)
      return x < y ? -1 : (x > y ? 1 : 0)
    }
    let x = json_number_value(a)
    let y = json_number_value(b)
    return x < y ? -1 : (x > y ? 1 : 0)
  }

  /// `union`: current elements in order, each replaced by an incoming element
  /// with the same primary key (later wins), then the incoming elements that are new.
  private static func union(_ mine: ContiguousArray<Slot>, _ theirs: ContiguousArray<Slot>)
    -> ContiguousArray<Slot>
  {
    var out = ContiguousArray<Slot>()
    out.reserveCapacity(mine.count + theirs.count)
    var buckets: [UInt64: [Int]] = [:]
    buckets.reserveCapacity(mine.count + theirs.count)
    func find(_ key: [Slot], _ hash: UInt64) -> Int? {
      for position in buckets[hash] ?? [] {
        if let other = primaryKey(out[position]), other.count == key.count,
          zip(other, key).allSatisfy({ Equality.equal($0, $1) })
        {
          return position
        }
      }
      return nil
    }
    for element in mine {
      if let key = primaryKey(element) {
        let hash = keyHash(key)
        if let position = find(key, hash) {
          out[position].release()
          out[position] = element.shared()
          continue
        }
        buckets[hash, default: []].append(out.count)
      }
      out.append(element.shared())
    }
    for element in theirs {
      if let key = primaryKey(element) {
        let hash = keyHash(key)
        if let position = find(key, hash) {
          out[position].release()
          out[position] = element.shared()
          continue
        }
        buckets[hash, default: []].append(out.count)
      }
      out.append(element.shared())
    }
    return out
  }

  /// The primary key slots of a model element, or nil when it has none set.
  private static func primaryKey(_ slot: Slot) -> [Slot]? {
    guard case .model(let object) = slot, !object.type.primaryKey.isEmpty else { return nil }
    var key: [Slot] = []
    var present = false
    for index in object.type.primaryKey where index < object.slots.count {
      key.append(object.slots[index])
      if object.slots[index].isPresent { present = true }
    }
    return present ? key : nil
  }

  private static func keyHash(_ key: [Slot]) -> UInt64 {
    var hash: UInt64 = 0x9e37_79b9
    for slot in key { hash = (hash ^ Equality.hash(slot)) &* 0x0000_0100_0000_01b3 }
    return hash
  }
}

extension ModelObject {
  /// The error for changing a graph record's handle in place, or nil for an ordinary model.
  var readOnlyRefusal: StrataError? {
    guard let key = recordKey else { return nil }
    return StrataError(
      code: .argument,
      message:
        "the '\(type.name)' record \(key) is read only: import a change into its context, or change a copy"
    )
  }

  /// Merges `other` into this model in place by each property's policy; all or nothing.
  package func merge(_ other: ModelObject) -> Result<Void, StrataError> {
    if let refusal = readOnlyRefusal { return .failure(refusal) }
    var merging = Merging(schema: schema)
    if merging.merge(other, into: self) { return .success(()) }
    return .failure(StrataError(merging.errors))
  }

  /// Updates this model in place from API JSON (borrowed): RFC 7396 lifted to
  /// models. The input is mapped as a partial model (every error collected),
  /// then merged; all or nothing.
  package func update(_ json: JPtr) -> Result<Void, StrataError> {
    if let refusal = readOnlyRefusal { return .failure(refusal) }
    var mapper = Mapper(schema: schema, mode: .json)
    guard let changes = mapper.mapPartial(json, type: type), mapper.errors.isEmpty else {
      return .failure(StrataError(mapper.errors))
    }
    return merge(changes)
  }
}
