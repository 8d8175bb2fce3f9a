/// Objects that only key paths go through (`user` for `user.id` and
/// `user.screen_name`), read member by member as their `PathPlan` says.
extension DirectReader {
  /// Reads the value at `position` for an object only key paths go through:
  /// its wanted members fill the slots of the properties they end at; null
  /// gives each of those properties its null value, as the mapper does for
  /// a key path through null. False on any error, or on any other value
  /// (the mapper reports a key path through a non-object).
  mutating func descend(
    _ path: DirectPlan.PathPlan, _ plan: DirectPlan, _ slots: ModelSlots
  ) -> Bool {
    guard parser.position < parser.end else { return false }
    // a key met again replaces what its earlier value gave
    for index in path.properties {
      slots[index].release()
      slots[index] = .absent
    }
    switch parser.base[parser.position] {
    case UInt8(ascii: "{"): break
    case UInt8(ascii: "n"):
      guard parser.literal("null") else { return false }
      for index in path.properties {
        mapper.clearsNull = partial && !plan.type.properties[index].required
        slots[index] = mapper.nullValue(
          plan.types[index], Mapper.Owner(model: plan.type, property: index), extra: path.prefix)
      }
      mapper.clearsNull = false
      return mapper.errors.isEmpty
    default: return false
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
    let memo = memos.memo(ObjectIdentifier(path))
    var cursor = 0
    while true {
      // written out rather than through `parser.memberKey`: a hot loop on
      // payloads read through key paths (Benchmarks/README.md, "Choices the
      // figures made")
      let found: Int?
      if let hit = memo.match(parser.base, parser.position, parser.end, cursor: &cursor) {
        found = hit.found < 0 ? nil : hit.found
        parser.position += hit.span
        parser.skipSpace()
      } else {
        let start = parser.position
        guard let key = parser.memberKeyAndColon() else { return false }
        if let raw = key {
          found = path.want.find(UnsafeBufferPointer(start: parser.base + raw.lowerBound, count: raw.count))
          memo.note(
            parser.base, start: start, span: parser.position - start, keyLength: raw.count,
            found: found ?? -1,
            cursor: &cursor)
        } else {
          found = parser.withString { path.want.find($0) }
        }
      }
      if let found, found < path.scalars.count, case let scalar = path.scalars[found], scalar.property >= 0 {
        guard let slot = scalarSlot(plan, scalar.property, scalar.scalar) else { return false }
        slots[scalar.property].release()
        slots[scalar.property] = slot
      } else if let found, found < path.entries.count {
        switch path.entries[found] {
        case .property(let index, let shape, let want):
          guard let slot = property(plan, index, shape, want) else { return false }
          slots[index].release()
          slots[index] = slot
        case .descend(let inner):
          guard descend(inner, plan, slots) else { return false }
        case .collect, .plucks: return false
        }
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
