import CJansson
import Glibc

/// The objects a `PrunedParser` built during one parse, by their bytes: an
/// object whose text (and plan) equals one built before is that same value
/// again (retained), found by a hash of its bytes and a `memcmp`, instead
/// of being built once more. An API response repeats its users, labels and
/// milestones byte for byte in record after record; the graph's importer
/// then finds a record given again with the very object it came from last
/// time, without comparing values.
///
/// Entries refer to the parser's input by offset, so a table serves one
/// input; it holds at most `limit` values and starts over past that.
package final class InternTable {
  private struct Entry {
    var start: Int
    var length: Int
    var plan: ObjectIdentifier
    var value: JPtr
  }

  private var entries: [UInt64: Entry] = [:]
  /// The most values held at once.
  static let limit = 4096

  /// An empty table.
  package init() {}

  deinit { clear() }

  /// Releases every value held.
  package func clear() {
    for entry in entries.values { JValue.release(entry.value) }
    entries = [:]
  }

  /// The value built earlier from the `length` bytes at `start` of `base`
  /// under `plan` (borrowed), or nil.
  func find(_ hash: UInt64, _ base: UnsafePointer<UInt8>, start: Int, length: Int, plan: ObjectIdentifier)
    -> JPtr?
  {
    guard let entry = entries[hash], entry.length == length, entry.plan == plan,
      entry.start == start || memcmp(base + entry.start, base + start, length) == 0
    else { return nil }
    return entry.value
  }

  /// Keeps `value` (retained) as what the bytes at `start` build under `plan`.
  func store(_ hash: UInt64, start: Int, length: Int, plan: ObjectIdentifier, value: JPtr) {
    if entries.count >= Self.limit { clear() }
    if let old = entries.updateValue(
      Entry(start: start, length: length, plan: plan, value: JValue.retain(value)), forKey: hash)
    {
      JValue.release(old.value)
    }
  }

  /// A hash of `length` bytes at `bytes`, eight at a time.
  static func hash(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> UInt64 {
    var hash: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(truncatingIfNeeded: length)
    let raw = UnsafeRawPointer(bytes)
    var offset = 0
    while offset + 8 <= length {
      let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
      hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
      hash ^= hash >> 31
      offset += 8
    }
    var tail: UInt64 = 0
    var shift: UInt64 = 0
    while offset < length {
      tail |= UInt64(bytes[offset]) << shift
      shift += 8
      offset += 1
    }
    hash = (hash ^ tail) &* 0x9E37_79B9_7F4A_7C15
    return hash ^ (hash >> 29)
  }
}
