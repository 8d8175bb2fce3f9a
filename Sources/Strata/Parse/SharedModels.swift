import Glibc

/// The nested models one direct read made, by their bytes: a nested object
/// whose text equals one read before, at the same depth and under the same
/// plan, is that same model again (retained) instead of a new one.
///
/// An API response repeats its users, labels and milestones byte for byte
/// in record after record (the issues payload: 72,968 nested objects, 1,564
/// different texts). Each one read anew costs its model, its slot array and
/// a jansson value or two per leaf; shared, it costs a skip, a hash and a
/// `memcmp`. Sharing is safe because a nested model is never changed in
/// place (`Merging`, `Slot.shared`): a `Model` copies before it changes, and
/// C and Python see nested models only as values.
///
/// Text is mapped the same wherever it stands: the mapper reads a nested
/// object from its own members only (class clusters choose by them too),
/// so equal bytes give an equal model. The depth is part of the match, so
/// a shared model never skips a nesting limit that reading it again would
/// have met.
///
/// Looking an object up first costs a skip of its bytes, which pays only
/// when objects of its plan repeat. So every object of up to `longest`
/// bytes is hashed once read, and each plan counts how many of its objects
/// were, or would have been, found (`KeyMemo.sharedSeen`, `sharedHits`):
/// a plan is looked up first during its first `trial` objects and then
/// while at least one in eight is found. A model whose objects never repeat
/// (a retweeted status, longer than `longest` anyway) soon costs nothing;
/// one whose objects start repeating later (users, as more of them have
/// been met) starts being looked up then.
///
/// Entries refer to the reader's input by offset, so a table serves one
/// input; it holds at most `limit` models.
final class SharedModels {
  private struct Entry {
    var start: Int
    var length: Int
    var plan: ObjectIdentifier
    var depth: Int
    var object: ModelObject
  }

  private var entries: [UInt64: Entry] = [:]
  /// The most models held at once; past it, new ones are not kept.
  static let limit = 4096
  /// Objects of a plan looked up first before its count decides.
  static let trial = 32
  /// The longest object text kept (a longer one is read each time).
  static let longest = 1024

  /// An empty table.
  init() {}

  /// True when objects of `memo`'s plan are worth looking up first: during
  /// the trial, and after it while at least one in eight is found.
  @inline(__always) static func worthTrying(_ memo: KeyMemo) -> Bool {
    memo.sharedSeen <= trial || memo.sharedHits &* 8 >= memo.sharedSeen
  }

  /// The model read earlier from the `length` bytes at `start` of `base`
  /// under `plan` at `depth` (borrowed), or nil.
  func find(
    _ hash: UInt64, _ base: UnsafePointer<UInt8>, start: Int, length: Int, plan: ObjectIdentifier, depth: Int
  ) -> ModelObject? {
    guard let entry = entries[hash], entry.length == length, entry.plan == plan, entry.depth == depth,
      entry.start == start || memcmp(base + entry.start, base + start, length) == 0
    else { return nil }
    return entry.object
  }

  /// Keeps `object` as what the bytes at `start` read as under `plan` at `depth`.
  func store(_ hash: UInt64, start: Int, length: Int, plan: ObjectIdentifier, depth: Int, object: ModelObject)
  {
    guard entries.count < Self.limit || entries[hash] != nil else { return }
    entries[hash] = Entry(start: start, length: length, plan: plan, depth: depth, object: object)
  }
}
