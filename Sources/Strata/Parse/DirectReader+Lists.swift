/// Arrays of models read directly, element by element.
extension DirectReader {
  /// What reading an array of models directly gave.
  enum ListOutcome {
    case read(Slot)
    /// An error: give up.
    case failed
    /// An element that is not an object: read the array the ordinary way.
    case other
  }

  /// An array of model `model`, every element an object read directly
  /// (each choosing its subtype, for a class cluster).
  mutating func list(_ model: Int) -> ListOutcome {
    // as Mapper.slot for arrays: one level of the mapper's nesting
    guard mapper.canDescend() else { return .failed }
    mapper.depth += 1
    defer { mapper.depth -= 1 }
    parser.depth += 1
    defer { parser.depth -= 1 }
    guard parser.depth < PrunedParser.depthLimit else { return .failed }
    parser.position += 1
    parser.skipSpace()
    var out = ContiguousArray<Slot>()
    if parser.position < parser.end && parser.base[parser.position] == UInt8(ascii: "]") {
      parser.position += 1
      return .read(.array(out))
    }
    while true {
      guard parser.position < parser.end, parser.base[parser.position] == UInt8(ascii: "{"),
        let plan = directPlan(model)
      else {
        for slot in out { slot.release() }
        return parser.failed ? .failed : .other
      }
      guard let object = nestedObject(plan) else {
        for slot in out { slot.release() }
        return .failed
      }
      out.append(.model(object))
      switch parser.afterMember(closing: UInt8(ascii: "]")) {
      case .more: continue
      case .closed: return .read(.array(out))
      case .failed:
        for slot in out { slot.release() }
        return .failed
      }
    }
  }
}
