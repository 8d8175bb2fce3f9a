/// A statement's SQL text as the key of a connection's prepared statements,
/// hashed by its length and its first and last 64 bytes instead of every
/// byte. A store's statements differ within those (the table's name is near
/// one end, and the row counts of a multi-row statement change its length),
/// while a multi-row upsert runs to kilobytes: hashing all of it on every
/// use was about 3% of a record read from a file (Benchmarks/README.md, "A
/// record read from its row"). Two texts are still equal only when every
/// byte is, so a collision costs a comparison, never a wrong statement.
struct SQLTextKey: Hashable {
  /// The SQL text.
  let text: String

  /// The bytes hashed from each end.
  static let endBytes = 64

  static func == (left: SQLTextKey, right: SQLTextKey) -> Bool { left.text == right.text }

  func hash(into hasher: inout Hasher) {
    let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
      hasher.combine(bytes.count)
      let raw = UnsafeRawBufferPointer(bytes)
      if bytes.count <= 2 * Self.endBytes {
        hasher.combine(bytes: raw)
      } else {
        hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.prefix(Self.endBytes)))
        hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.suffix(Self.endBytes)))
      }
    }
    if hashed == nil { hasher.combine(text) }
  }
}
