/// The subtype a class cluster chooses for an object, read from the text
/// before the object itself, so that the object can then be read straight
/// into the chosen model. The rules are `Mapper.subtype`'s: a discriminator
/// key's string value, or the first rule whose key is present, hop by hop
/// through clusters of clusters; a key met twice counts with its last value,
/// as in jansson's DOM.
extension PrunedParser {
  /// The model that `type` (a class cluster) chooses for the object at
  /// `position`, where the position is left; nil when the text chooses none
  /// (a missing or unknown discriminator, a non-string one, no rule that
  /// matches, text that is not JSON): the object is then read the ordinary
  /// way, which reports why.
  mutating func chosenSubtype(_ type: ModelType, in schema: Schema) -> ModelType? {
    var current = type
    var hops = 0
    while let cluster = current.cluster {
      hops += 1
      guard hops <= schema.models.count, let next = choice(cluster), next < schema.models.count else {
        return nil
      }
      current = schema.models[next]
    }
    return current
  }

  private mutating func choice(_ cluster: Cluster) -> Int? {
    switch cluster {
    case .key(let key, let table):
      guard let found = scanKeys([key], valueOf: 0), found.present != 0, let tag = found.value,
        !tag.contains(0)
      else { return nil }
      return table[String(decoding: tag, as: UTF8.self)]
    case .rules(let rules):
      guard let found = scanKeys(rules.map(\.has), valueOf: nil) else { return nil }
      for (position, rule) in rules.enumerated() where found.present & (1 << UInt64(position)) != 0 {
        return rule.model
      }
      return nil
    }
  }

  /// Reads the object at `position` (and goes back to its start): which of
  /// `keys` (at most 64) it holds, one bit each, and the decoded value of the
  /// last `keys[valueOf]` when that value is a string (nil otherwise). nil
  /// on text that is not JSON.
  private mutating func scanKeys(_ keys: [Key], valueOf wanted: Int?) -> (present: UInt64, value: [UInt8]?)? {
    guard keys.count <= 64, position < end, base[position] == UInt8(ascii: "{") else { return nil }
    let start = position
    defer { position = start }
    depth += 1
    defer { depth -= 1 }
    guard depth < Self.depthLimit else { return nil }
    var present: UInt64 = 0
    var value: [UInt8]? = nil
    position += 1
    skipSpace()
    if position < end && base[position] == UInt8(ascii: "}") { return (0, nil) }
    while true {
      guard let match = memberKey({ Self.position(of: $0, in: keys) }) else { return nil }
      if let match {
        present |= 1 << UInt64(match)
        if match == wanted {
          value = nil
          if position < end && base[position] == UInt8(ascii: "\"") {
            guard decodeString() else { return nil }
            value = withString { Array($0) }
          } else if !skip() {
            return nil
          }
        } else if !skip() {
          return nil
        }
      } else if !skip() {
        return nil
      }
      switch afterMember(closing: UInt8(ascii: "}")) {
      case .more: continue
      case .closed: return (present, value)
      case .failed: return nil
      }
    }
  }

  /// The position of the key whose bytes are `bytes` in `keys`.
  private static func position(of bytes: UnsafeBufferPointer<UInt8>, in keys: [Key]) -> Int? {
    keys.firstIndex { key in
      key.length == bytes.count
        && key.bytes.withUnsafeBufferPointer { own in
          own.withMemoryRebound(to: UInt8.self) { own in own.elementsEqual(bytes) }
        }
    }
  }
}
