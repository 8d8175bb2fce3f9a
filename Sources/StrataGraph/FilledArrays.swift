/// Arrays of one value repeated, made by appending to reserved capacity,
/// which the compiler specializes for the element type. The standard
/// library's `init(repeating:count:)` allocates through an unspecialized
/// function that looks up the storage's generic metadata on every call:
/// about 700 instructions, three times per record read from its row
/// (Benchmarks/README.md, "Rows handed to their records"; `Slot.absentSlots`
/// does the same for the mapper).
extension RangeReplaceableCollection {
  /// `count` copies of `value`.
  static func filled(with value: Element, count: Int) -> Self {
    var made = Self()
    made.reserveCapacity(count)
    for _ in 0..<count { made.append(value) }
    return made
  }
}
