import CJansson

/// Arrays of plain leaves read straight into a `Slot.list`: a `[string]`,
/// `[int]`, `[double]`, `[bool]` or `[url]` without rules, given at its key
/// (`DirectPlan.Shape.list`) or plucked from an array of objects
/// (`DirectPlan.ArrayPlucks.kept`). Each element is kept as the byte parser
/// reads it (`Slot.integer`, `.real`, `.text`; jansson's static `true`,
/// `false` and `null`), so no jansson array or element is built. Anything
/// the fast way does not take (an element of another type, a number
/// jansson would not read, a null where elements may not be null, text that
/// is not JSON) makes it give up with the position where it was: the
/// caller then reads the array the ordinary way, which gives the mapper's
/// value or its error. When the parser's `failed` is set by then (text that
/// is not JSON, met while skipping a member), the caller fails at once
/// instead: the ordinary way would fail on the same text, and it starts
/// from a clear `failed` (a value built while it is set is not kept, and
/// so would leak).
extension DirectReader {
  /// The elements a kept list has room for when its first is read.
  static var listRoom: Int { 4 }

  /// The leaf of `scalar`'s JSON type at `position`, moved past (null where
  /// `scalar` is optional); nil for anything else, `position` then
  /// anywhere in the value.
  @inline(__always)
  mutating func keptLeaf(_ scalar: DirectPlan.Scalar) -> Slot? {
    guard parser.position < parser.end else { return nil }
    let first = parser.base[parser.position]
    if first == UInt8(ascii: "n") {
      guard parser.literal("null") else { return nil }
      return Self.nullElement(scalar)
    }
    switch scalar.type {
    case JSON_STRING:
      guard first == UInt8(ascii: "\""), parser.decodeString() else { return nil }
      let remaining = parser.end - parser.position
      let writer = texts
      return parser.withString { scalar.kept($0, writer, remaining: remaining) }.map { .text($0) }
    case JSON_INTEGER:
      return parser.integer().map { .integer($0) }
    case JSON_REAL:
      return parser.real().map { .real($0) }
    default:
      if first == UInt8(ascii: "t"), parser.literal("true"), let yes = json_true() { return .leaf(yes) }
      if first == UInt8(ascii: "f"), parser.literal("false"), let no = json_false() { return .leaf(no) }
      return nil
    }
  }

  /// A null element of a list of `scalar` (jansson's static null), or nil
  /// when its elements may not be null.
  @inline(__always)
  private static func nullElement(_ scalar: DirectPlan.Scalar) -> Slot? {
    guard scalar.optional, let null = json_null() else { return nil }
    return .leaf(null)
  }

  /// The array at `position` (at its `[`) as a `.list` of `scalar` leaves,
  /// moved past; nil, with `position` back at the `[`, when an element is
  /// anything else.
  mutating func keptList(_ scalar: DirectPlan.Scalar) -> Slot? {
    let start = parser.position
    var out = ContiguousArray<Slot>()
    if readList(scalar, into: &out) { return .list(out) }
    for element in out { element.release() }
    parser.position = start
    return nil
  }

  /// The elements of the array at `position` appended to `out`; false on
  /// anything `keptLeaf` does not take.
  private mutating func readList(_ scalar: DirectPlan.Scalar, into out: inout ContiguousArray<Slot>) -> Bool {
    parser.depth += 1
    defer { parser.depth -= 1 }
    guard parser.depth < PrunedParser.depthLimit else { return false }
    parser.position += 1
    parser.skipSpace()
    if parser.position < parser.end && parser.base[parser.position] == UInt8(ascii: "]") {
      parser.position += 1
      return true
    }
    // room for the short lists most are at once (growing from empty
    // would allocate at one, two and four elements)
    out.reserveCapacity(Self.listRoom)
    while true {
      guard let element = keptLeaf(scalar) else { return false }
      out.append(element)
      switch parser.afterMember(closing: UInt8(ascii: "]")) {
      case .more: continue
      case .closed: return true
      case .failed: return false
      }
    }
  }

  /// The slots of `array`'s properties from the array at `position` (at its
  /// `[`), each a `.list` of the values plucked from its elements, as
  /// `kept` reads them (null where an element is null or lacks the key,
  /// when the property's elements may be null); false, with `position` back
  /// at the `[` and the slots untouched, when the fast way does not take
  /// the array.
  mutating func keptPlucks(
    _ array: DirectPlan.ArrayPlucks, _ kept: ContiguousArray<DirectPlan.Scalar>,
    _ slots: ModelSlots
  ) -> Bool {
    let start = parser.position
    let count = array.properties.count
    // the array's level, as the ordinary way counts it
    parser.depth += 1
    defer { parser.depth -= 1 }
    guard parser.depth < PrunedParser.depthLimit else { return false }
    // the lists being built and an element's values, on the stack
    return withUnsafeTemporaryAllocation(of: ContiguousArray<Slot>.self, capacity: count) { lists in
      lists.initialize(repeating: ContiguousArray())
      defer { lists.deinitialize() }
      let read = withUnsafeTemporaryAllocation(of: Slot.self, capacity: kept.count) { values in
        values.initialize(repeating: .absent)
        defer {
          for value in values { value.release() }
          values.deinitialize()
        }
        return keptElements(array, kept, lists, values)
      }
      guard read else {
        for list in lists { for element in list { element.release() } }
        parser.position = start
        return false
      }
      for (at, index) in array.properties.enumerated() { slots[index] = .list(lists[at]) }
      return true
    }
  }

  /// The elements of the array at `position` (at its `[`), their values
  /// appended to `lists` (one per property of `array`); `values` is the
  /// room for one element's values (all absent, and left so).
  private mutating func keptElements(
    _ array: DirectPlan.ArrayPlucks, _ kept: ContiguousArray<DirectPlan.Scalar>,
    _ lists: UnsafeMutableBufferPointer<ContiguousArray<Slot>>, _ values: UnsafeMutableBufferPointer<Slot>
  ) -> Bool {
    parser.position += 1
    parser.skipSpace()
    if parser.position < parser.end && parser.base[parser.position] == UInt8(ascii: "]") {
      parser.position += 1
      return true
    }
    // room for the short lists most are at once, as in `readList`
    for at in lists.indices { lists[at].reserveCapacity(Self.listRoom) }
    while true {
      guard parser.position < parser.end else { return false }
      switch parser.base[parser.position] {
      case UInt8(ascii: "n"):
        // through a null element each plucked value is null
        guard parser.literal("null") else { return false }
        for at in lists.indices {
          guard let null = Self.nullElement(kept[array.positions[at]]) else { return false }
          lists[at].append(null)
        }
      case UInt8(ascii: "{"):
        guard keptElement(array, kept, values) else { return false }
        for at in lists.indices {
          let position = array.positions[at]
          if case .absent = values[position] {
            guard let null = Self.nullElement(kept[position]) else { return false }
            lists[at].append(null)
          } else if array.positionsDistinct {
            // the one property of this key: the value moves
            lists[at].append(values[position])
            values[position] = .absent
          } else {
            lists[at].append(values[position].shared())
          }
        }
        for position in values.indices where values[position].isPresent {
          values[position].release()
          values[position] = .absent
        }
      default: return false
      }
      switch parser.afterMember(closing: UInt8(ascii: "]")) {
      case .more: continue
      case .closed: return true
      case .failed: return false
      }
    }
  }

  /// The values of the element object at `position` into `values`, by key
  /// position in `array.element` (the last of a key met twice).
  private mutating func keptElement(
    _ array: DirectPlan.ArrayPlucks, _ kept: ContiguousArray<DirectPlan.Scalar>,
    _ values: UnsafeMutableBufferPointer<Slot>
  ) -> Bool {
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
        guard let value = keptLeaf(kept[found]) else { return false }
        values[found].release()
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
