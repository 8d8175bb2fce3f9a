import CJansson

/// How `DirectReader` fills one model's slots straight from the text: for
/// each key of the model's parse plan, either the one property that reads
/// it (its slot is filled as the value is read, with no jansson object for
/// the model), an object that only key paths go through (`user` for
/// `user.id` and `user.screen_name`: its members fill those properties'
/// slots as they are read), or "collect" (the value is built as the parse
/// plan says and kept for the properties that need the object: lists of key
/// paths, plucks, and keys read by more than one property in other ways).
///
/// Keys the model does not map are skipped (`unknownKeys: ignore`), kept
/// whole in the model's unknown keys (`keep`), or make the reader give up
/// (`reject`: the mapper then reports them). Models with a host transformer
/// have none (a host callback is never called for a value the reader may
/// then read again on the DOM path). A class cluster has none of its own:
/// the reader first reads which subtype an object chooses
/// (`PrunedParser.chosenSubtype`), then uses that subtype's plan.
final class DirectPlan: @unchecked Sendable {
  /// What the reader does with the value of one wanted key.
  enum Entry {
    /// The property at this index reads this key alone: its slot is filled
    /// from the value, read as `Shape` says, or built as `Want` and mapped.
    case property(Int, Shape, Want)
    /// Built as `Want` and kept in an object for the generic properties.
    case collect(Want)
    /// An object only key paths go through: read member by member as the
    /// `PathPlan` says.
    case descend(PathPlan)
    /// An object only plucks go through (`entities` for properties at
    /// `entities.hashtags[].text` and `entities.urls[].expanded_url`): its
    /// arrays read element by element as the `PluckPlan` says.
    case plucks(PluckPlan)
  }

  /// The arrays of an object that only plucks go through: for each of its
  /// wanted keys (an array), the properties plucked from its elements.
  final class PluckPlan: @unchecked Sendable {
    /// The object's wanted keys (the parse plan's want for it, sealed).
    let want: ObjectWant
    /// One entry per key of `want`.
    let arrays: ContiguousArray<ArrayPlucks>
    /// Every property plucked through the object.
    let properties: ContiguousArray<Int>

    init(want: ObjectWant, arrays: ContiguousArray<ArrayPlucks>, properties: ContiguousArray<Int>) {
      self.want = want
      self.arrays = arrays
      self.properties = properties
    }
  }

  /// The properties plucked from the elements of one array.
  final class ArrayPlucks: @unchecked Sendable {
    /// The wanted keys of an element (sealed).
    let element: ObjectWant
    /// The properties, each with the position of its key in `element`.
    let properties: ContiguousArray<Int>
    let positions: ContiguousArray<Int>
    /// How each of `element`'s keys is built (by position).
    let wants: ContiguousArray<Want>
    /// When every property is a `[T]` of a scalar without rules (and the
    /// properties plucking one key agree on it): the scalar of each of
    /// `element`'s keys, read into a `Slot.list` per property without
    /// building jansson arrays; nil otherwise.
    let kept: ContiguousArray<Scalar>?

    init(
      element: ObjectWant, properties: ContiguousArray<Int>, positions: ContiguousArray<Int>,
      wants: ContiguousArray<Want>, kept: ContiguousArray<Scalar>?
    ) {
      self.element = element
      self.properties = properties
      self.positions = positions
      self.wants = wants
      self.kept = kept
      positionsDistinct = Set(positions).count == positions.count
    }

    /// True when no two properties pluck the same key.
    let positionsDistinct: Bool
  }

  /// The members of an object that only key paths go through (`user` for
  /// properties at `user.id` and `user.screen_name`).
  final class PathPlan: @unchecked Sendable {
    /// The wanted members (the parse plan's want for the object, sealed).
    let want: ObjectWant
    /// One entry per key of `want`: `.property` or `.descend`.
    let entries: ContiguousArray<Entry>
    /// Every property whose key path goes through the object: emptied when
    /// the key is met again (the last duplicate wins), and each given the
    /// null value when the object is null.
    let properties: ContiguousArray<Int>
    /// The keys from the model to the object, for the null value's path.
    let prefix: [PathStep]
    /// `entries` as `ScalarEntry`s (read without copying an entry).
    let scalars: ContiguousArray<ScalarEntry>

    init(
      want: ObjectWant, entries: ContiguousArray<Entry>, properties: ContiguousArray<Int>, prefix: [PathStep]
    ) {
      self.want = want
      self.entries = entries
      self.properties = properties
      self.prefix = prefix
      scalars = DirectPlan.scalarEntries(entries)
    }
  }

  /// How a directly read property's value is read.
  enum Shape {
    /// Built as its `Want` says, then mapped by `Mapper.propertyValue`.
    case value
    /// A `string`, `int`, `bool`, `double` or `url` (or `T?`) without
    /// rules: a value of that JSON type (for a `url`, a string that is an
    /// absolute URL) is the slot as built (null is `.null` for `T?`);
    /// anything else goes to `Mapper.propertyValue`.
    case scalar(Scalar)
    /// A `date` (or `date?`) whose rules say no more than its text format
    /// and time zone: a string in that format is kept as its canonical text
    /// (`Slot.text`); anything else (null too) goes to `Mapper.propertyValue`.
    case date(DateScalar)
    /// A `[T]` (or `[T]?`) of a `.scalar` type without rules (the scalar's
    /// `optional` says whether elements may be null): an array whose every
    /// element is such a value is kept element by element (`Slot.list`);
    /// anything else goes to `Mapper.propertyValue`.
    case list(Scalar)
    /// A `string` (or `string?`) whose only rule is its `enum`: a string is
    /// looked up in the mapping from its decoded bytes, and the slot holds
    /// the mapping's own model value (retained); anything else, and a
    /// string outside the mapping without a default, goes to
    /// `Mapper.propertyValue` (which reports it).
    case enumerated(EnumMap)
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
  /// `entries` as `ScalarEntry`s: the hot case, read without copying an
  /// entry (which would retain the classes in its `Want`).
  let scalars: ContiguousArray<ScalarEntry>
  /// The properties filled from an entry, in property order.
  let direct: ContiguousArray<Int>
  /// The properties mapped by `Mapper.property` over the collected members.
  let generic: ContiguousArray<Int>
  /// Each property's type and rules (read per value without copying its spec).
  let types: ContiguousArray<TypeRef>
  let rules: ContiguousArray<ValueRules?>
  /// What the model does with the keys it does not map.
  let unknownKeys: UnknownKeys
  /// The keys the model maps without reading them (the discriminators of
  /// the clusters that choose it): skipped, never unknown.
  private let quietKeys: [[UInt8]]

  private init(
    type: ModelType, want: ObjectWant, entries: ContiguousArray<Entry>, direct: ContiguousArray<Int>,
    generic: ContiguousArray<Int>
  ) {
    self.type = type
    self.want = want
    self.entries = entries
    scalars = Self.scalarEntries(entries)
    self.direct = direct
    self.generic = generic
    types = ContiguousArray(type.properties.map(\.type))
    rules = ContiguousArray(type.properties.map(\.rules))
    unknownKeys = type.unknownKeys
    let wanted = Set(want.keys)
    quietKeys = type.mappedKeys.map { Array($0.utf8) }.filter { !wanted.contains($0) }.sorted {
      $0.lexicographicallyPrecedes($1)
    }
  }

  /// True when `key` (not one of `want`'s) is mapped all the same.
  func isQuiet(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
    quietKeys.contains { $0.elementsEqual(key) }
  }

  /// The direct plan of `type` over its parse plan `want`, or nil when the
  /// model must be mapped from a jansson object.
  static func make(_ type: ModelType, want: ObjectWant) -> DirectPlan? {
    guard type.cluster == nil, want.sealed, !want.keepAll || type.unknownKeys != .ignore else { return nil }
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
    // The plain key paths (no transformer) of each first key.
    var paths: [[UInt8]: [(property: Int, keys: ArraySlice<Key>)]] = [:]
    for (index, property) in type.properties.enumerated() {
      guard case .path(let keys) = property.location, let first = keys.first,
        property.rules?.transforms.isEmpty ?? true
      else { continue }
      paths[first.bytes.map { UInt8(bitPattern: $0) }, default: []].append((index, keys[...]))
    }
    // The plucks through an object's array (`entities.hashtags[].text`) of each first key.
    var plucks: [[UInt8]: [Pluck]] = [:]
    for (index, property) in type.properties.enumerated() {
      guard case .pluck(let array, let element) = property.location, array.count == 2, element.count == 1
      else {
        continue
      }
      func bytes(_ key: Key) -> [UInt8] { key.bytes.map { UInt8(bitPattern: $0) } }
      plucks[bytes(array[0]), default: []].append(
        Pluck(property: index, array: bytes(array[1]), element: bytes(element[0])))
    }
    var entries = ContiguousArray<Entry>()
    var direct = ContiguousArray<Int>()
    for (position, key) in want.keys.enumerated() {
      // Read directly when every property reading the key is a plain key path.
      if let group = paths[key], group.count == readers[key],
        let entry = entry(group, want.wants[position], type, prefix: [])
      {
        entries.append(entry)
        direct.append(contentsOf: group.map(\.property))
      } else if let group = plucks[key], group.count == readers[key],
        let plan = pluckPlan(group, want.wants[position], type)
      {
        // or when every property reading it is a pluck through one of its arrays
        entries.append(.plucks(plan))
        direct.append(contentsOf: group.map(\.property))
      } else {
        entries.append(.collect(want.wants[position]))
      }
    }
    direct.sort()
    let generic = ContiguousArray((0..<type.properties.count).filter { !direct.contains($0) })
    return DirectPlan(type: type, want: want, entries: entries, direct: direct, generic: generic)
  }

  /// The entry of one key for the properties in `group`, whose key paths all
  /// start with it (their remaining keys after it): the one property that
  /// ends there, or an object the others all go through; nil when neither
  /// (several end there, or one ends there while others go on).
  private static func entry(
    _ group: [(property: Int, keys: ArraySlice<Key>)], _ want: Want, _ type: ModelType, prefix: [PathStep]
  ) -> Entry? {
    if group.count == 1, group[0].keys.count == 1 {
      let index = group[0].property
      return .property(index, shape(type.properties[index]), want)
    }
    guard group.allSatisfy({ $0.keys.count > 1 }), case .object(let reference) = want else { return nil }
    let object = reference.plan
    guard object.sealed, !object.keepAll, let first = group.first?.keys.first else { return nil }
    let here = prefix + [PathStep.name(first.name)]
    var byKey: [[UInt8]: [(property: Int, keys: ArraySlice<Key>)]] = [:]
    for member in group {
      let rest = member.keys.dropFirst()
      guard let next = rest.first else { return nil }
      byKey[next.bytes.map { UInt8(bitPattern: $0) }, default: []].append((member.property, rest))
    }
    var entries = ContiguousArray<Entry>()
    var covered = 0
    for (position, key) in object.keys.enumerated() {
      guard let members = byKey[key] else {
        // a key the parse plan wants for another reader of the same object
        return nil
      }
      guard let inner = entry(members, object.wants[position], type, prefix: here) else { return nil }
      entries.append(inner)
      covered += 1
    }
    guard covered == byKey.count else { return nil }
    return .descend(
      PathPlan(
        want: object, entries: entries, properties: ContiguousArray(group.map(\.property).sorted()),
        prefix: here))
  }

  /// A property at `first.array[].element`.
  private struct Pluck {
    let property: Int
    let array: [UInt8]
    let element: [UInt8]
  }

  /// The pluck plan of an object whose parse plan is `want`, for the plucks
  /// of `group` (all through it); nil when its plan holds anything else.
  private static func pluckPlan(_ group: [Pluck], _ want: Want, _ type: ModelType) -> PluckPlan? {
    guard case .object(let reference) = want else { return nil }
    let object = reference.plan
    guard object.sealed, !object.keepAll else { return nil }
    var arrays = ContiguousArray<ArrayPlucks>()
    for key in object.keys {
      let members = group.filter { $0.array == key }
      guard !members.isEmpty,
        case .elements(.object(let elementReference))? = key.withUnsafeBufferPointer({ object.want($0) })
      else { return nil }
      let element = elementReference.plan
      guard element.sealed, !element.keepAll else { return nil }
      var positions = ContiguousArray<Int>()
      for member in members {
        guard let position = member.element.withUnsafeBufferPointer({ element.find($0) }) else { return nil }
        positions.append(position)
      }
      var wants = ContiguousArray<Want>()
      for key in element.keys {
        guard let want = key.withUnsafeBufferPointer({ element.want($0) }) else { return nil }
        wants.append(want)
      }
      guard wants.count == element.keys.count else { return nil }
      arrays.append(
        ArrayPlucks(
          element: element, properties: ContiguousArray(members.map(\.property)), positions: positions,
          wants: wants,
          kept: keptScalars(members.map { type.properties[$0.property] }, positions, keys: element.keys.count)
        ))
    }
    guard arrays.count == object.keys.count,
      arrays.reduce(0, { $0 + $1.properties.count }) == group.count
    else { return nil }
    return PluckPlan(
      want: object, arrays: arrays, properties: ContiguousArray(group.map(\.property).sorted()))
  }

  /// The scalar of each of an element's `keys` keys, for the plucked
  /// `properties` at `positions` among them: nil unless each is a `[T]` of
  /// a scalar without rules, every key is plucked, and the properties of a
  /// key agree on its scalar.
  private static func keptScalars(_ properties: [PropertySpec], _ positions: ContiguousArray<Int>, keys: Int)
    -> ContiguousArray<Scalar>?
  {
    var scalars = [Scalar?](repeating: nil, count: keys)
    for (property, position) in zip(properties, positions) {
      guard property.rules == nil, case .array(let element) = property.type.unwrapped,
        let scalar = Scalar(element), position < keys
      else { return nil }
      if let other = scalars[position], other != scalar { return nil }
      scalars[position] = scalar
    }
    var kept = ContiguousArray<Scalar>()
    for scalar in scalars {
      guard let scalar else { return nil }
      kept.append(scalar)
    }
    return kept
  }

  /// The JSON type a `.scalar` property takes as it is, and whether null is allowed.
  struct Scalar: Equatable {
    let type: json_type
    let optional: Bool
    /// A `url`: the string must also be an absolute URL (`URLCheck`).
    var url = false

    init(type: json_type, optional: Bool, url: Bool = false) {
      self.type = type
      self.optional = optional
      self.url = url
    }

    /// The scalar of a `string`, `int`, `bool`, `double` or `url` (or
    /// `T?`); nil for any other type.
    init?(_ type: TypeRef) {
      let optional: Bool
      if case .optional = type { optional = true } else { optional = false }
      switch type.unwrapped {
      case .string: self.init(type: JSON_STRING, optional: optional)
      case .int: self.init(type: JSON_INTEGER, optional: optional)
      case .bool: self.init(type: JSON_TRUE, optional: optional)
      case .double: self.init(type: JSON_REAL, optional: optional)
      case .url: self.init(type: JSON_STRING, optional: optional, url: true)
      default: return nil
      }
    }

    /// A string of this scalar (its decoded bytes) kept by `writer`; nil
    /// when it is not an absolute URL where one must be, or out of memory.
    @inline(__always)
    func kept(_ bytes: UnsafeBufferPointer<UInt8>, _ writer: TextWriter, remaining: Int) -> TextLeaf? {
      if url && !URLCheck.isAbsolute(bytes) { return nil }
      return writer.store(bytes, remaining: remaining)
    }
  }

  /// An entry that is a `.property` of `.scalar` shape, as plain values:
  /// the property's index and its scalar, or a `property` of -1 for any
  /// other entry.
  struct ScalarEntry {
    let property: Int
    let scalar: Scalar
  }

  /// The `ScalarEntry` of each of `entries`.
  static func scalarEntries(_ entries: ContiguousArray<Entry>) -> ContiguousArray<ScalarEntry> {
    ContiguousArray(
      entries.map { entry in
        if case .property(let index, .scalar(let scalar), _) = entry {
          return ScalarEntry(property: index, scalar: scalar)
        }
        return ScalarEntry(property: -1, scalar: Scalar(type: JSON_NULL, optional: false))
      })
  }

  /// What a `.date` property's text is read with: its format and the
  /// offset of text without a zone, as `Mapper.date` reads them.
  final class DateScalar {
    let format: DateFormat
    let timezone: Int

    init(format: DateFormat, timezone: Int) {
      self.format = format
      self.timezone = timezone
    }
  }

  /// How the value of a directly read property is read.
  private static func shape(_ property: PropertySpec) -> Shape {
    if case .date = property.type.unwrapped {
      guard let rules = property.rules else { return .date(DateScalar(format: .iso8601, timezone: 0)) }
      if rules.transforms.isEmpty && rules.enumMap == nil && rules.validation == nil
        && rules.dateFormat.isText
      {
        return .date(DateScalar(format: rules.dateFormat, timezone: rules.timezone))
      }
      return .value
    }
    if let rules = property.rules, let map = rules.enumMap, rules.transforms.isEmpty, rules.validation == nil,
      case .string = property.type.unwrapped
    {
      return .enumerated(map)
    }
    if property.rules == nil {
      if let scalar = Scalar(property.type) { return .scalar(scalar) }
      if case .array(let element) = property.type.unwrapped, let scalar = Scalar(element) {
        return .list(scalar)
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
