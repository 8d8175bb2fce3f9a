/// Nested objects read once and shared where their text comes again
/// (`SharedModels`).
extension DirectReader {
  /// The nested object at `position` read as `plan`'s model: the model
  /// read earlier from the same bytes at the same depth, or read now and
  /// kept (`SharedModels`); nil on any error.
  mutating func nestedObject(_ plan: DirectPlan) -> ModelObject? {
    guard let shared else { return object(plan) }
    let start = parser.position
    let id = ObjectIdentifier(plan)
    // a model read partially is not the one read whole
    let depth = parser.depth << 17 | (partial ? 1 << 16 : 0) | mapper.depth
    let key = SharedModels.key(parser.base + start, available: parser.end - start)
    if let (found, length) = shared.find(
      key, parser.base, start: start, end: parser.end, plan: id, depth: depth)
    {
      parser.position = start + length
      return found
    }
    let standIns = numbers.count
    guard let made = object(plan) else { return nil }
    // a model holding stand-ins of out-of-range numbers is not shared
    if numbers.count == standIns {
      shared.store(key, start: start, length: parser.position - start, plan: id, depth: depth, object: made)
    }
    return made
  }
}
