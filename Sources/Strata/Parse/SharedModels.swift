import Glibc

/// The nested models one direct read made, by their bytes: a nested object
/// whose text equals one read before, at the same depth and under the same
/// plan, is that same model again (retained) instead of a new one.
///
/// An API response repeats its users, labels and milestones byte for byte
/// in record after record (the issues payload: 72,968 nested objects, 1,564
/// different texts). Each one read anew costs its model, its slot array and
/// a jansson value or two per leaf; shared, it costs a hash of its first
/// bytes and a `memcmp` of its text. Sharing is safe because a nested model
/// is never changed in place (`Merging`, `Slot.shared`): a `Model` copies
/// before it changes, and C and Python see nested models only as values.
///
/// Text is mapped the same wherever it stands: the mapper reads a nested
/// object from its own members only (class clusters choose by them too),
/// so equal bytes give an equal model. The depth is part of the match, so
/// a shared model never skips a nesting limit that reading it again would
/// have met.
///
/// An object is looked up by a hash of its first bytes (an id or a name
/// usually comes first; see `key`), and the entry found is checked by comparing
/// its whole text with the bytes at the reader's position. A text is a
/// complete object, and JSON is read the same way from the same bytes, so
/// when they are equal the object at the position ends where the earlier
/// one did: nothing needs to be scanned. A miss costs the hash and one
/// lookup, so no object is read twice.
///
/// Entries refer to the reader's input by offset, so a table serves one
/// input; it holds at most `limit` models (the last one kept for each key).
final class SharedModels {
  private struct Entry {
    var start: Int
    var length: Int
    var plan: ObjectIdentifier
    var depth: Int
    var object: ModelObject
  }

  private var entries: [UInt64: Entry] = [:]
  /// The most models held at once; past it, new keys are not kept.
  static let limit = 4096
  /// How many of an object's first bytes its key is made of.
  static let prefix = 64

  /// An empty table.
  init() {}

  /// The key of the object at `bytes` (`available` bytes to the input's
  /// end): a hash of its first `prefix` bytes, or of those up to its first
  /// `}` if one comes sooner. That `}` lies inside the object or ends it, so
  /// the key depends on the object's own bytes only, not on what follows it.
  @inline(__always) static func key(_ bytes: UnsafePointer<UInt8>, available: Int) -> UInt64 {
    var length = min(available, prefix)
    if let close = memchr(bytes, Int32(UInt8(ascii: "}")), length) {
      length = UnsafeRawPointer(close) - UnsafeRawPointer(bytes) + 1
    }
    return InternTable.hash(bytes, length)
  }

  /// The model read earlier under `plan` at `depth` from text equal to the
  /// bytes at `start` of `base` (which end at `end`), and the length of that
  /// text; nil when there is none.
  func find(
    _ key: UInt64, _ base: UnsafePointer<UInt8>, start: Int, end: Int, plan: ObjectIdentifier, depth: Int
  ) -> (ModelObject, Int)? {
    guard let entry = entries[key], entry.plan == plan, entry.depth == depth, entry.length <= end - start,
      entry.start == start || memcmp(base + entry.start, base + start, entry.length) == 0
    else { return nil }
    return (entry.object, entry.length)
  }

  /// Keeps `object` as what the `length` bytes at `start` read as under
  /// `plan` at `depth`.
  func store(_ key: UInt64, start: Int, length: Int, plan: ObjectIdentifier, depth: Int, object: ModelObject)
  {
    guard entries.count < Self.limit || entries[key] != nil else { return }
    entries[key] = Entry(start: start, length: length, plan: plan, depth: depth, object: object)
  }
}
