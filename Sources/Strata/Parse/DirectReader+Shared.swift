/// Nested objects read once and shared where their text comes again
/// (`SharedModels`).
extension DirectReader {
  /// The nested object at `position` read as `plan`'s model: the model
  /// read earlier from the same bytes at the same depth, found after
  /// skipping them, or read now and kept (`SharedModels`); nil on any error.
  mutating func nestedObject(_ plan: DirectPlan) -> ModelObject? {
    guard let shared else { return object(plan) }
    let memo = memos.memo(ObjectIdentifier(plan))
    let start = parser.position
    let id = ObjectIdentifier(plan)
    let depth = parser.depth << 16 | mapper.depth
    memo.sharedSeen += 1
    var hash: UInt64? = nil
    if SharedModels.worthTrying(memo) {
      guard parser.skip() else { return nil }
      let length = parser.position - start
      parser.position = start
      if length <= SharedModels.longest {
        let bytesHash = InternTable.hash(parser.base + start, length)
        if let found = shared.find(
          bytesHash, parser.base, start: start, length: length, plan: id, depth: depth)
        {
          memo.sharedHits += 1
          parser.position = start + length
          return found
        }
        hash = bytesHash
      }
    }
    let standIns = numbers.count
    guard let made = object(plan) else { return nil }
    let length = parser.position - start
    guard length <= SharedModels.longest else { return made }
    let bytesHash = hash ?? InternTable.hash(parser.base + start, length)
    // not looked up first: whether it would have been found keeps the count true
    if hash == nil,
      shared.find(bytesHash, parser.base, start: start, length: length, plan: id, depth: depth) != nil
    {
      memo.sharedHits += 1
      return made
    }
    // a model holding stand-ins of out-of-range numbers is not shared
    if numbers.count == standIns {
      shared.store(bytesHash, start: start, length: length, plan: id, depth: depth, object: made)
    }
    return made
  }
}
