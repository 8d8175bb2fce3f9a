import CJansson

/// The slots of directly read leaf properties (`DirectPlan.Shape`'s
/// `.scalar`, `.date` and `.enumerated`): each value read from the text
/// and kept without jansson where it can be (`Slot.integer`, `.real`,
/// `.text`, an enum's own model value), otherwise built and given to the
/// mapper (`mapped`), which keeps, converts or reports it as on the DOM path.
extension DirectReader {
  /// The slot of property `index` of `plan`'s model, of `scalar` shape,
  /// from the value at `position`: the value as built when it has the
  /// scalar's JSON type, otherwise what the mapper makes of it; nil on any error.
  @inline(__always) mutating func scalarSlot(
    _ plan: DirectPlan, _ index: Int, _ scalar: DirectPlan.Scalar
  )
    -> Slot?
  {
    if scalar.type == JSON_INTEGER, let integer = parser.integer() { return .integer(integer) }
    if scalar.type == JSON_REAL, let real = parser.real() { return .real(real) }
    if scalar.type == JSON_STRING, parser.position < parser.end,
      parser.base[parser.position] == UInt8(ascii: "\"")
    {
      return stringSlot(plan, index, scalar)
    }
    guard let value = parser.value(.all), !parser.failed else { return nil }
    let kind = JValue.kind(value)
    // stand-ins of out-of-range numbers go to the mapper, which reports them
    if numbers.isEmpty
      && ((kind == scalar.type && (!scalar.url || URLCheck.isAbsolute(JValue.stringBytes(value))))
        || (scalar.type == JSON_TRUE && kind == JSON_FALSE) || (scalar.optional && kind == JSON_NULL))
    {
      if kind == JSON_NULL {
        JValue.release(value)
        return .null
      }
      return .leaf(value)
    }
    return mapped(value, plan, index)
  }

  /// The slot of a plain string property from the string at `position`:
  /// its text kept in `texts`, or (not a URL where one must be, out of
  /// memory) what the mapper makes of it; nil on any error.
  private mutating func stringSlot(_ plan: DirectPlan, _ index: Int, _ scalar: DirectPlan.Scalar) -> Slot? {
    keptString(plan, index) { bytes, writer, remaining in scalar.kept(bytes, writer, remaining: remaining) }
  }

  /// The slot of a `.date` property from the string at `position`: the
  /// canonical text of the date it spells, kept in `texts`, or (not a date
  /// of the format, out of memory) what the mapper makes of it (its error);
  /// nil on any error.
  mutating func dateSlot(_ plan: DirectPlan, _ index: Int, _ date: DirectPlan.DateScalar) -> Slot? {
    keptString(plan, index) { bytes, writer, remaining in
      guard let parsed = date.format.date(text: bytes, defaultOffset: date.timezone) else { return nil }
      if case .iso8601 = date.format, Mapper.isCanonicalDate(bytes) {
        return writer.store(bytes, remaining: remaining)
      }
      return RFC3339Formatter.withBytes(parsed) { writer.store($0, remaining: remaining) }
    }
  }

  /// The slot of an `.enumerated` property from the string at `position`:
  /// the mapping's model value for it (as `EnumMap.forward` finds it, from
  /// the decoded bytes, with no jansson string made), or, outside the
  /// mapping without a default, what the mapper makes of it (its error);
  /// nil on any error.
  mutating func enumSlot(_ plan: DirectPlan, _ index: Int, _ map: EnumMap) -> Slot? {
    guard parser.decodeString() else {
      _ = parser.fail()
      return nil
    }
    if let model = parser.withString({ map.forward(bytes: $0) }) { return .leaf(JValue.retain(model)) }
    guard let made = parser.madeString() else { return nil }
    return mapped(made, plan, index)
  }

  /// The slot of a string property from the string at `position`: the text
  /// `keep` stores from its decoded bytes (given the writer and the input
  /// bytes left), or, when `keep` gives nil, what the mapper makes of the
  /// string; nil on any error.
  @inline(__always)
  private mutating func keptString(
    _ plan: DirectPlan, _ index: Int, _ keep: (UnsafeBufferPointer<UInt8>, TextWriter, Int) -> TextLeaf?
  ) -> Slot? {
    guard parser.decodeString() else {
      _ = parser.fail()
      return nil
    }
    let remaining = parser.end - parser.position
    let writer = texts
    if let kept = parser.withString({ keep($0, writer, remaining) }) { return .text(kept) }
    guard let made = parser.madeString() else { return nil }
    return mapped(made, plan, index)
  }
}
