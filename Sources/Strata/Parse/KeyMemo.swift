#if canImport(_Builtin_intrinsics.intel)
  import _Builtin_intrinsics.intel
#endif

/// The member keys met in the objects read under one plan, in the order they
/// came, so that the next object's keys are recognized by one comparison of
/// bytes each instead of being scanned, checked and looked up.
///
/// APIs write the objects of one array with the same keys in the same order.
/// The memo keeps, per position in that order, the bytes from a key's
/// opening quote through its colon and the spaces after it (`"id": `), and
/// what the plan's lookup gave for it. When the text at the reader's
/// position repeats those bytes, it is the same key, already checked as
/// JSON (no escapes, no control bytes; the colon in place), so the lookup's
/// answer is reused. Anything else takes the ordinary path, which notes the
/// key when the memo has no entry at that position yet.
///
/// A key missing from an object (the next entry matches) or one the memo
/// has not seen (an extra key; the walk stays where it is) costs one or two
/// failed comparisons. The memo is a hint only: a hit is decided by the
/// bytes alone, so a stale or foreign entry can never give a wrong answer.
/// One memo serves one reader on one thread.
final class KeyMemo {
  /// One remembered key.
  struct Entry {
    /// Where its bytes start in `storage`.
    let offset: Int
    /// How many bytes: quote, key, quote, spaces, colon, spaces.
    let span: Int
    /// The key's own length (between the quotes).
    let keyLength: Int
    /// What the plan's lookup gave (an index into its entries), or -1 for
    /// a key the plan does not want.
    let found: Int
  }

  /// The entries, in the order keys came.
  private var entries = ContiguousArray<Entry>()
  /// The entries' bytes, each in a slot of `slotSize`, plus 16 bytes so a
  /// block load from any slot stays inside.
  private let storage: UnsafeMutablePointer<UInt8>

  /// Keys kept per memo.
  static let limit = 256
  /// The longest span kept (longer keys always take the ordinary path).
  static let slotSize = 64

  init() {
    storage = .allocate(capacity: Self.limit * Self.slotSize + 16)
    storage.initialize(repeating: 0, count: Self.limit * Self.slotSize + 16)
  }

  deinit {
    storage.deallocate()
  }

  /// The entry whose bytes the text at `position` repeats: the one at
  /// `cursor` or the one after it (a key this object lacks). `cursor`
  /// moves past the entry matched.
  @inline(__always) func match(_ base: UnsafePointer<UInt8>, _ position: Int, _ end: Int, cursor: inout Int)
    -> Entry?
  {
    var index = cursor
    let last = min(cursor + 2, entries.count)
    while index < last {
      let entry = entries[index]
      if position + entry.span <= end
        && same(base + position, storage + entry.offset, entry.span, end - position)
      {
        cursor = index + 1
        return entry
      }
      index += 1
    }
    return nil
  }

  /// Notes a key read the ordinary way at `start` (its bytes, `span` long,
  /// through the spaces after the colon) when the walk is at the memo's
  /// end; otherwise the walk stays (an extra key). Spans with a newline are
  /// not kept (the reader of JSON lines must see every newline it skips).
  func note(
    _ base: UnsafePointer<UInt8>, start: Int, span: Int, keyLength: Int, found: Int, cursor: inout Int
  ) {
    guard cursor == entries.count, entries.count < Self.limit, span <= Self.slotSize else { return }
    for index in (start + keyLength + 2)..<(start + span) where base[index] == 0x0A { return }
    let offset = entries.count * Self.slotSize
    (storage + offset).update(from: base + start, count: span)
    entries.append(Entry(offset: offset, span: span, keyLength: keyLength, found: found))
    cursor += 1
  }

  /// True when the `count` bytes at `text` equal those at `kept` (a slot,
  /// readable 16 bytes past `count`); `room` bytes are readable at `text`.
  @inline(__always) private func same(
    _ text: UnsafePointer<UInt8>, _ kept: UnsafePointer<UInt8>, _ count: Int, _ room: Int
  ) -> Bool {
    #if canImport(_Builtin_intrinsics.intel)
      if room >= 16 {
        var offset = 0
        while offset + 16 <= count {
          if !block(text + offset, kept + offset, 16) { return false }
          offset += 16
        }
        if offset == count { return true }
        if room >= offset + 16 { return block(text + offset, kept + offset, count - offset) }
        // the last bytes, read as the block ending at `count`
        return block(text + count - 16, kept + count - 16, 16)
      }
    #endif
    var offset = 0
    while offset < count {
      if text[offset] != kept[offset] { return false }
      offset += 1
    }
    return true
  }

  #if canImport(_Builtin_intrinsics.intel)
    /// True when the first `count` (1...16) of the 16 bytes at `a` and `b` are equal.
    @inline(__always) private func block(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int)
      -> Bool
    {
      let left = _mm_loadu_si128(UnsafeRawPointer(a).assumingMemoryBound(to: __m128i.self))
      let right = _mm_loadu_si128(UnsafeRawPointer(b).assumingMemoryBound(to: __m128i.self))
      let equal = UInt32(truncatingIfNeeded: _mm_movemask_epi8(_mm_cmpeq_epi8(left, right)))
      let wanted: UInt32 = count >= 16 ? 0xFFFF : (1 << UInt32(count)) &- 1
      return equal & wanted == wanted
    }
  #endif
}

/// The key memos of one reader or one run of JSON lines, one per object
/// plan or path plan (by the plan's identity), made on first use. Not
/// shared between threads. The plans must outlive it (the reader and the
/// line mapping hold the schema's direct plans), so that no other plan
/// can take a remembered plan's address.
final class KeyMemos {
  /// An open-addressing table from a plan's address to its memo: looked
  /// up once per object read, so cheaper than a `Dictionary` (whose
  /// seeded hashing showed in profiles of many small objects).
  private var keys: [UInt] = Array(repeating: 0, count: 16)
  private var memos: [KeyMemo?] = Array(repeating: nil, count: 16)
  private var used = 0

  /// An empty set of memos.
  init() {}

  /// The memo of the plan `id`.
  @inline(__always) func memo(_ id: ObjectIdentifier) -> KeyMemo {
    let key = UInt(bitPattern: id) | 1
    let mask = keys.count - 1
    var slot = Self.slot(key, mask)
    while true {
      if keys[slot] == key, let memo = memos[slot] { return memo }
      if keys[slot] == 0 { return add(key) }
      slot = (slot + 1) & mask
    }
  }

  @inline(never) private func add(_ key: UInt) -> KeyMemo {
    if (used + 1) * 2 > keys.count {
      let oldKeys = keys
      let oldMemos = memos
      keys = Array(repeating: 0, count: oldKeys.count * 2)
      memos = Array(repeating: nil, count: oldKeys.count * 2)
      used = 0
      for (index, old) in oldKeys.enumerated() where old != 0 {
        if let memo = oldMemos[index] { insert(old, memo) }
      }
    }
    let memo = KeyMemo()
    insert(key, memo)
    return memo
  }

  /// The first slot of `key` in a table of `mask + 1` slots.
  @inline(__always) private static func slot(_ key: UInt, _ mask: Int) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
  }

  private func insert(_ key: UInt, _ memo: KeyMemo) {
    let mask = keys.count - 1
    var slot = Self.slot(key, mask)
    while keys[slot] != 0 { slot = (slot + 1) & mask }
    keys[slot] = key
    memos[slot] = memo
    used += 1
  }
}
