import CJansson

/// How `DirectReader` fills one model's slots straight from the text: for
/// each key of the model's parse plan, either the one property that reads
/// it (its slot is filled as the value is read, with no jansson object for
/// the model) or "collect" (the value is built as the parse plan says and
/// kept for the properties that need the object: key paths through it, lists
/// of key paths, plucks, and keys read by more than one property).
///
/// Only models the mapper would map member by member have one: no class
/// cluster (the subtype is known only once its key is read), `unknownKeys:
/// ignore`, and no host transformer (a host callback is never called for a
/// value the reader may then read again on the DOM path).
final class DirectPlan: @unchecked Sendable {
  /// What the reader does with the value of one wanted key.
  enum Entry {
    /// The property at this index reads this key alone: its slot is filled
    /// from the value, read as `Shape` says, or built as `Want` and mapped.
    case property(Int, Shape, Want)
    /// Built as `Want` and kept in an object for the generic properties.
    case collect(Want)
  }

  /// How a directly read property's value is read.
  enum Shape {
    /// Built as its `Want` says, then mapped by `Mapper.propertyValue`.
    case value
    /// A `string`, `int`, `bool` or `double` (or `T?`) without rules: a value
    /// of that JSON type is the slot as built (null is `.null` for `T?`);
    /// anything else goes to `Mapper.propertyValue`.
    case scalar(Scalar)
    /// A nested model (the index of its model): read directly when it is an
    /// object and that model has a plan, otherwise as `.value`.
    case model(Int)
    /// An array of a model (non-optional elements): read directly when it
    /// is an array of objects, otherwise as `.value`.
    case models(Int)
  }

  /// The model.
  let type: ModelType
  /// The model's parse plan (sealed): `entries` follow its keys' order.
  let want: ObjectWant
  /// One entry per key of `want`.
  let entries: ContiguousArray<Entry>
  /// The properties filled from an entry, in property order.
  let direct: ContiguousArray<Int>
  /// The properties mapped by `Mapper.property` over the collected members.
  let generic: ContiguousArray<Int>
  /// Each property's type and rules (read per value without copying its spec).
  let types: ContiguousArray<TypeRef>
  let rules: ContiguousArray<ValueRules?>

  private init(
    type: ModelType, want: ObjectWant, entries: ContiguousArray<Entry>, direct: ContiguousArray<Int>,
    generic: ContiguousArray<Int>
  ) {
    self.type = type
    self.want = want
    self.entries = entries
    self.direct = direct
    self.generic = generic
    types = ContiguousArray(type.properties.map(\.type))
    rules = ContiguousArray(type.properties.map(\.rules))
  }

  /// The direct plan of `type` over its parse plan `want`, or nil when the
  /// model must be mapped from a jansson object.
  static func make(_ type: ModelType, want: ObjectWant) -> DirectPlan? {
    guard type.cluster == nil, type.unknownKeys == .ignore, !want.keepAll, want.sealed else { return nil }
    for property in type.properties {
      for transformer in property.rules?.transforms ?? []
      where BuiltinTransformers.all[transformer.name] !== transformer {
        return nil
      }
    }
    // How many properties read each first key.
    var readers: [[UInt8]: Int] = [:]
    func note(_ keys: [Key]) {
      if let first = keys.first { readers[first.bytes.map { UInt8(bitPattern: $0) }, default: 0] += 1 }
    }
    for property in type.properties {
      switch property.location {
      case .none: break
      case .path(let keys): note(keys)
      case .multi(let paths): for path in paths { note(path.keys) }
      case .pluck(let array, _): note(array)
      }
    }
    var byKey: [[UInt8]: (Int, Shape)] = [:]
    var direct = ContiguousArray<Int>()
    var generic = ContiguousArray<Int>()
    for (index, property) in type.properties.enumerated() {
      guard case .path(let keys) = property.location, keys.count == 1,
        property.rules?.transforms.isEmpty ?? true
      else {
        generic.append(index)
        continue
      }
      let bytes = keys[0].bytes.map { UInt8(bitPattern: $0) }
      guard readers[bytes] == 1 else {
        generic.append(index)
        continue
      }
      byKey[bytes] = (index, shape(property))
      direct.append(index)
    }
    var entries = ContiguousArray<Entry>()
    for (position, key) in want.keys.enumerated() {
      if let (index, shape) = byKey[key] {
        entries.append(.property(index, shape, want.wants[position]))
      } else {
        entries.append(.collect(want.wants[position]))
      }
    }
    return DirectPlan(type: type, want: want, entries: entries, direct: direct, generic: generic)
  }

  /// The JSON type a `.scalar` property takes as it is, and whether null is allowed.
  struct Scalar {
    let type: json_type
    let optional: Bool
  }

  /// How the value of a directly read property is read.
  private static func shape(_ property: PropertySpec) -> Shape {
    if property.rules == nil {
      let optional: Bool
      if case .optional = property.type { optional = true } else { optional = false }
      switch property.type.unwrapped {
      case .string: return .scalar(Scalar(type: JSON_STRING, optional: optional))
      case .int: return .scalar(Scalar(type: JSON_INTEGER, optional: optional))
      case .bool: return .scalar(Scalar(type: JSON_TRUE, optional: optional))
      case .double: return .scalar(Scalar(type: JSON_REAL, optional: optional))
      default: break
      }
    }
    switch property.type.unwrapped {
    case .model(let index): return .model(index)
    case .array(.model(let index)):
      let validation = property.rules?.validation
      if validation?.minLength != nil || validation?.maxLength != nil { return .value }
      return .models(index)
    default: return .value
    }
  }
}
