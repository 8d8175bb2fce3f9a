/// API responses read straight into models: the keys down to the records
/// and to the metadata are followed member by member, the records and the
/// metadata read as `DirectReader` reads any object, and every other member
/// of the response skipped. Anything the DOM path would report (a missing
/// root, a root through a non-object, an error in a record) makes the
/// reader give up, so that the error-collecting path reports it.
extension DirectReader {
  /// What one key on the way down leads to.
  private enum Target {
    case records
    case metadata
  }

  /// What has been read so far (nil: not met, or met again and reset).
  private struct Found {
    var records: [ModelObject]? = nil
    var metadata: ModelObject?? = nil
  }

  /// The records of `type` at `root` and the metadata of `meta.type` at
  /// `meta.keys` of a response text, or nil to map it on the error-collecting path.
  /// `records`: read for a graph import (`DirectReader.records`), each
  /// record partially.
  package static func response(
    _ bytes: UnsafeBufferPointer<UInt8>, _ type: ModelType, root: [Key],
    meta: (keys: [Key], type: ModelType)?,
    in schema: Schema, records: Bool = false
  ) -> ResponseObjects? {
    guard bytes.baseAddress != nil, bytes.count > 0 else { return nil }
    var reader = DirectReader(bytes, schema, nil, sharing: true, records: records)
    defer { reader.finish() }
    reader.parser.skipSpace()
    var found = Found()
    if root.isEmpty {
      // the whole response is the records; metadata beside them is left to the other path
      guard meta == nil, let records = reader.records(type) else { return nil }
      found.records = records
    } else {
      var paths: [(keys: ArraySlice<Key>, target: Target)] = [(root[...], .records)]
      if let meta {
        // metadata that is the whole response is left to the other path
        guard !meta.keys.isEmpty else { return nil }
        paths.append((meta.keys[...], .metadata))
      }
      guard reader.parser.position < reader.parser.end,
        reader.parser.base[reader.parser.position] == UInt8(ascii: "{"),
        reader.walk(paths, type, meta?.type, &found)
      else { return nil }
    }
    reader.parser.skipSpace()
    guard reader.parser.position == reader.parser.end, !reader.parser.failed,
      reader.records ? reader.numbers.isEmpty : reader.numbers.allConsumed,
      let records = found.records
    else { return nil }
    return ResponseObjects(records: records, metadata: found.metadata ?? nil)
  }

  /// Reads the object at `position`, following `paths` (each the keys still
  /// to follow and what their end holds) into `found`; false to give up.
  private mutating func walk(
    _ paths: [(keys: ArraySlice<Key>, target: Target)], _ type: ModelType, _ metaType: ModelType?,
    _ found: inout Found
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
      guard let matching = parser.memberKey({ Self.paths(paths, at: $0) }) else { return false }
      if matching.isEmpty {
        if !parser.skip() { return false }
      } else if !member(matching, type, metaType, &found) {
        return false
      }
      switch parser.afterMember(closing: UInt8(ascii: "}")) {
      case .more: continue
      case .closed: return true
      case .failed: return false
      }
    }
  }

  /// The value of a member on the way down: what `paths` (their first key
  /// is this member's) lead to; false to give up.
  private mutating func member(
    _ paths: [(keys: ArraySlice<Key>, target: Target)], _ type: ModelType, _ metaType: ModelType?,
    _ found: inout Found
  ) -> Bool {
    // met again: the last one wins, so forget what an earlier one gave
    for path in paths {
      switch path.target {
      case .records: found.records = nil
      case .metadata: found.metadata = nil
      }
    }
    let ends = paths.filter { $0.keys.count == 1 }
    if let end = ends.first {
      // a key that is the end of one path and the way down of another: the other path
      guard ends.count == paths.count, ends.count == 1 else { return false }
      switch end.target {
      case .records:
        guard let records = records(type) else { return false }
        found.records = records
      case .metadata:
        guard let metaType else { return false }
        if parser.literal("null") {
          found.metadata = .some(nil)
        } else {
          guard parser.position < parser.end, parser.base[parser.position] == UInt8(ascii: "{"),
            let object = root(metaType)
          else { return false }
          found.metadata = .some(object)
        }
      }
      return true
    }
    guard parser.position < parser.end else { return false }
    if parser.literal("null") {
      // through null: no records and no metadata, and no error
      for path in paths {
        switch path.target {
        case .records: found.records = []
        case .metadata: found.metadata = .some(nil)
        }
      }
      return true
    }
    guard parser.base[parser.position] == UInt8(ascii: "{") else { return false }
    return walk(paths.map { ($0.keys.dropFirst(), $0.target) }, type, metaType, &found)
  }

  /// The paths whose next key is `key`.
  private static func paths(
    _ paths: [(keys: ArraySlice<Key>, target: Target)], at key: UnsafeBufferPointer<UInt8>
  ) -> [(keys: ArraySlice<Key>, target: Target)] {
    paths.filter { path in
      guard let first = path.keys.first, first.length == key.count else { return false }
      return first.bytes.withUnsafeBufferPointer { own in
        own.withMemoryRebound(to: UInt8.self) { $0.elementsEqual(key) }
      }
    }
  }

  /// The records at `position`: an array of objects, one object, or null
  /// (none); nil to give up.
  private mutating func records(_ type: ModelType) -> [ModelObject]? {
    guard parser.position < parser.end else { return nil }
    // a graph import's records are read partially
    partial = self.records
    defer { partial = false }
    switch parser.base[parser.position] {
    case UInt8(ascii: "{"): return root(type).map { [$0] }
    case UInt8(ascii: "n"): return parser.literal("null") ? [] : nil
    case UInt8(ascii: "["): break
    default: return nil
    }
    parser.depth += 1
    defer { parser.depth -= 1 }
    guard parser.depth < PrunedParser.depthLimit else { return nil }
    parser.position += 1
    parser.skipSpace()
    var out: [ModelObject] = []
    if parser.position < parser.end && parser.base[parser.position] == UInt8(ascii: "]") {
      parser.position += 1
      return out
    }
    while true {
      guard parser.position < parser.end, parser.base[parser.position] == UInt8(ascii: "{"),
        let object = root(type)
      else { return nil }
      out.append(object)
      switch parser.afterMember(closing: UInt8(ascii: "]")) {
      case .more: continue
      case .closed: return out
      case .failed: return nil
      }
    }
  }
}
