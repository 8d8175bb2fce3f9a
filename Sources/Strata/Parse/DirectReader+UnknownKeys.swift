import CJansson

/// The members a directly read model does not map, under `unknownKeys:
/// keep` or `reject` (docs/parsing.md).
extension DirectReader {
  /// A member the model does not read, of a model that keeps or rejects
  /// unknown keys (`key`: its raw range, or nil when `decoded` holds it): a
  /// key it maps all the same is skipped, an unknown one is kept whole in
  /// `unknown` (`keep`; the last duplicate wins in place, as in jansson's
  /// object) or makes the reader give up (`reject`, or a kept value nested
  /// too deep: the mapper reports them). False to give up.
  mutating func unknownMember(
    _ plan: DirectPlan, _ key: Range<Int>?, _ decoded: [UInt8], _ unknown: inout JPtr?
  ) -> Bool {
    let quiet =
      key.map { plan.isQuiet(UnsafeBufferPointer(start: parser.base + $0.lowerBound, count: $0.count)) }
      ?? decoded.withUnsafeBufferPointer { plan.isQuiet($0) }
    if quiet { return parser.skip() }
    guard plan.unknownKeys == .keep, let value = parser.value(.all), !parser.failed else { return false }
    guard !Nesting.exceeds(value, maxDepth - mapper.depth), let into = unknown ?? json_object() else {
      JValue.release(value)
      return false
    }
    unknown = into
    if let key {
      JValue.setMember(
        into, UnsafeBufferPointer(start: parser.base + key.lowerBound, count: key.count), value)
    } else {
      decoded.withUnsafeBufferPointer { JValue.setMember(into, $0, value) }
    }
    return true
  }
}
