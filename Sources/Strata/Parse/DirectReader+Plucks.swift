import CJansson

/// Plucks through one object (`entities.hashtags[].text`): the object's
/// arrays read element by element into the plucked properties' slots, as
/// `DirectPlan.PluckPlan` says (docs/parsing.md).
extension DirectReader {
  /// Reads the value at `position` for an object only plucks go through:
  /// each of its wanted arrays fills the slots of the properties plucked
  /// from it (as `Mapper.pluck` does: null where an element is null or
  /// lacks the key, then mapped as the property's `[T]`). null gives each
  /// property its null value; an array never met leaves its properties to
  /// the model's missing keys. False on any error, or on anything the
  /// mapper reports (a non-object element, an array that is not one).
  mutating func plucked(
    _ pluck: DirectPlan.PluckPlan, _ plan: DirectPlan, _ slots: ModelSlots
  ) -> Bool {
    switch pluckStart(UInt8(ascii: "{"), pluck.properties, plan, slots) {
    case .opens: break
    case .null: return true
    case .failed: return false
    }
    parser.depth += 1
    defer { parser.depth -= 1 }
    guard parser.depth < PrunedParser.depthLimit else { return false }
    parser.position += 1
    parser.skipSpace()
    if parser.position < parser.end && parser.base[parser.position] == UInt8(ascii: "}") {
      parser.position += 1
      return true
    }
    while true {
      guard let found = parser.memberKey({ pluck.want.find($0) }) else { return false }
      if let found, found < pluck.arrays.count {
        guard pluckedArray(pluck.arrays[found], plan, slots) else { return false }
      } else if !parser.skipMember() {
        return false
      }
      switch parser.afterMember(closing: UInt8(ascii: "}")) {
      case .more: continue
      case .closed: return true
      case .failed: return false
      }
    }
  }

  /// How a value that properties are plucked through starts.
  private enum PluckStart {
    /// With the expected bracket (not passed yet).
    case opens
    /// With null: each property has its null value.
    case null
    /// With anything else, or a null the mapper refuses: give up.
    case failed
  }

  /// The start of the value at `position` that `properties` are plucked
  /// through (an object or an array, `opening` its bracket): their slots
  /// are emptied first (a key met again replaces what its earlier value
  /// gave); null gives each its null value, as the mapper does.
  private mutating func pluckStart(
    _ opening: UInt8, _ properties: ContiguousArray<Int>, _ plan: DirectPlan,
    _ slots: ModelSlots
  ) -> PluckStart {
    for index in properties {
      slots[index].release()
      slots[index] = .absent
    }
    guard parser.position < parser.end else { return .failed }
    let first = parser.base[parser.position]
    if first == opening { return .opens }
    guard first == UInt8(ascii: "n"), parser.literal("null") else { return .failed }
    for index in properties {
      slots[index] = mapper.nullValue(plan.types[index], Mapper.Owner(model: plan.type, property: index))
    }
    return mapper.errors.isEmpty ? .null : .failed
  }

  /// One array of `plucked`: its properties' slots from its elements.
  private mutating func pluckedArray(
    _ array: DirectPlan.ArrayPlucks, _ plan: DirectPlan, _ slots: ModelSlots
  ) -> Bool {
    switch pluckStart(UInt8(ascii: "["), array.properties, plan, slots) {
    case .opens: break
    case .null: return true
    case .failed: return false
    }
    // plain leaves: kept as they are read, with no jansson arrays, when the
    // elements allow it (otherwise read below from the same `[`, unless the
    // text is not JSON: the ordinary way expects `failed` clear as it starts)
    if let kept = array.kept {
      if keptPlucks(array, kept, slots) { return true }
      if parser.failed { return false }
    }
    parser.depth += 1
    defer { parser.depth -= 1 }
    guard parser.depth < PrunedParser.depthLimit else { return false }
    // the arrays being built, one per property, then an element's values by
    // key position (the last of a key met twice): on the stack, as this runs
    // for every array of every record (two heap blocks per array otherwise)
    let count = array.properties.count
    return withUnsafeTemporaryAllocation(of: JPtr?.self, capacity: count + array.wants.count) { space in
      space.initialize(repeating: nil)
      defer {
        for value in space { if let value { JValue.release(value) } }
        space.deinitialize()
      }
      let built = UnsafeMutableBufferPointer(rebasing: space[..<count])
      let values = UnsafeMutableBufferPointer(rebasing: space[count...])
      for at in built.indices {
        guard let made = json_array() else { return false }
        built[at] = made
      }
      return pluckedElements(array, plan, slots, built, values)
    }
  }

  /// The elements of the array at `position` (its bracket not passed yet)
  /// appended to `built` (one array per property of `array`), then each
  /// mapped into its property's slot; `values` is the room for an element's
  /// values (all nil, and left so).
  private mutating func pluckedElements(
    _ array: DirectPlan.ArrayPlucks, _ plan: DirectPlan, _ slots: ModelSlots,
    _ built: UnsafeMutableBufferPointer<JPtr?>, _ values: UnsafeMutableBufferPointer<JPtr?>
  ) -> Bool {
    parser.position += 1
    parser.skipSpace()
    if parser.position < parser.end && parser.base[parser.position] == UInt8(ascii: "]") {
      parser.position += 1
    } else {
      while true {
        guard parser.position < parser.end else { return false }
        switch parser.base[parser.position] {
        case UInt8(ascii: "n"):
          // through a null element the plucked value is null
          guard parser.literal("null") else { return false }
          for made in built { _ = json_array_append_new(made, json_null()) }
        case UInt8(ascii: "{"):
          guard pluckedElement(array, values) else { return false }
          for (at, made) in built.enumerated() {
            let position = array.positions[at]
            if let value = values[position] {
              _ = json_array_append(made, value)
            } else {
              _ = json_array_append_new(made, json_null())
            }
          }
          for position in values.indices {
            if let value = values[position] { JValue.release(value) }
            values[position] = nil
          }
        default: return false
        }
        switch parser.afterMember(closing: UInt8(ascii: "]")) {
        case .more: continue
        case .closed: break
        case .failed: return false
        }
        break
      }
    }
    let unmanaged = Unmanaged.passUnretained(plan.type)
    for (at, index) in array.properties.enumerated() {
      mapper.steps.append(.pluck(unmanaged, index))
      let slot = mapper.propertyValue(
        built[at].unsafelyUnwrapped, plan.types[index], Mapper.Owner(model: plan.type, property: index),
        plan.rules[index])
      mapper.steps.removeLast()
      guard mapper.errors.isEmpty else {
        slot.release()
        return false
      }
      slots[index] = slot
    }
    return true
  }

  /// The wanted values of the element object at `position`, by key
  /// position in `array.element` (each a new reference, nil where absent).
  private mutating func pluckedElement(
    _ array: DirectPlan.ArrayPlucks, _ values: UnsafeMutableBufferPointer<JPtr?>
  )
    -> Bool
  {
    parser.depth += 1
    defer { parser.depth -= 1 }
    guard parser.depth < PrunedParser.depthLimit else { return false }
    parser.position += 1
    parser.skipSpace()
    if parser.position < parser.end && parser.base[parser.position] == UInt8(ascii: "}") {
      parser.position += 1
      return true
    }
    while true {
      guard let found = parser.memberKey({ array.element.find($0) }) else { return false }
      if let found, found < values.count {
        guard let value = parser.value(array.wants[found]), !parser.failed else { return false }
        if let old = values[found] { JValue.release(old) }
        values[found] = value
      } else if !parser.skipMember() {
        return false
      }
      switch parser.afterMember(closing: UInt8(ascii: "}")) {
      case .more: continue
      case .closed: return true
      case .failed: return false
      }
    }
  }
}
