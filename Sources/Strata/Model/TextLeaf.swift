import CJansson
import Glibc

/// A string leaf kept outside jansson: its UTF-8 bytes in a chunk of text
/// that the models of one call share (`TextWriter`), so that a string read
/// from bytes costs no allocation of its own. Counted like a json_t: the
/// slot that holds one owns a reference to its chunk (`retain`/`release`),
/// and the chunk is freed with its last string.
///
/// In its chunk a string is `[UInt32 offset of this entry from the chunk's
/// start][UInt32 byte count][bytes][NUL]`; a chunk starts with its
/// reference count (one word, changed atomically: models are freed on any
/// thread).
package struct TextLeaf {
  /// The entry's start in its chunk.
  let entry: UnsafeMutableRawPointer

  /// The bytes before an entry's text.
  static let entryHeader = 8
  /// The bytes before a chunk's first entry.
  static let chunkHeader = 16

  /// The string's length in bytes.
  @inline(__always) package var count: Int { Int(entry.load(fromByteOffset: 4, as: UInt32.self)) }

  /// The string's UTF-8 bytes (valid while a reference is held), followed by a NUL.
  @inline(__always) package var bytes: UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: (entry + Self.entryHeader).assumingMemoryBound(to: UInt8.self), count: count)
  }

  /// The string.
  package var string: String { String(decoding: bytes, as: UTF8.self) }

  /// The reference count at the start of the entry's chunk.
  @inline(__always) private var counter: UnsafeMutablePointer<Int> {
    (entry - Int(entry.load(as: UInt32.self))).assumingMemoryBound(to: Int.self)
  }

  /// Another reference to the chunk.
  @inline(__always) package func retain() { _ = strata_word_add(counter, 1) }

  /// Drops a reference to the chunk, freeing it with its last one.
  @inline(__always) package func release() { TextLeaf.release(chunk: counter) }

  /// Drops a reference to the chunk whose count is at `counter`.
  @inline(__always) static func release(chunk counter: UnsafeMutablePointer<Int>) {
    if strata_word_add(counter, -1) == 1 { free(counter) }
  }

  /// The string as a new jansson value, nil when out of memory.
  package func makeJSON() -> JPtr? {
    bytes.withMemoryRebound(to: CChar.self) { chars in
      guard let start = chars.baseAddress else { return json_string("") }
      return json_stringn_nocheck(start, chars.count)
    }
  }
}

/// Where one call's string leaves go: chunks of text filled in turn
/// (`TextLeaf`). Each string stored takes a reference to its chunk, and the
/// writer holds one to the chunk it is filling, dropped when it moves on or
/// is freed; a chunk lives as long as any string in it. Used by one thread.
package final class TextWriter {
  /// The chunk being filled (its count includes the writer's reference).
  private var chunk: UnsafeMutableRawPointer? = nil
  /// Bytes of `chunk` in use, and its size.
  private var used = 0
  private var capacity = 0

  /// The largest chunk asked for to fill; a longer string gets a chunk of its own.
  static let chunkSize = 16 * 1024

  package init() {}

  deinit {
    if let chunk { TextLeaf.release(chunk: chunk.assumingMemoryBound(to: Int.self)) }
  }

  /// `bytes` (UTF-8, already checked) kept as a leaf; nil when out of memory
  /// or too long for a leaf's count. `remaining` is how many input bytes are
  /// left to read: no chunk is made larger than the text they can hold.
  @inline(__always)
  package func store(_ bytes: UnsafeBufferPointer<UInt8>, remaining: Int) -> TextLeaf? {
    // the entry, its NUL, rounded up to keep entries 8-aligned
    let size = (TextLeaf.entryHeader + bytes.count + 1 + 7) & ~7
    if size > capacity - used, !refill(size, remaining: remaining) { return nil }
    guard let chunk else { return nil }
    let entry = chunk + used
    entry.storeBytes(of: UInt32(truncatingIfNeeded: used), as: UInt32.self)
    entry.storeBytes(of: UInt32(truncatingIfNeeded: bytes.count), toByteOffset: 4, as: UInt32.self)
    let text = entry + TextLeaf.entryHeader
    if let start = bytes.baseAddress { text.copyMemory(from: start, byteCount: bytes.count) }
    text.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
    used += size
    _ = strata_word_add(chunk.assumingMemoryBound(to: Int.self), 1)
    return TextLeaf(entry: entry)
  }

  /// Starts a chunk with room for an entry of `size` bytes; false when out
  /// of memory or when the entry is too long to keep.
  @inline(never)
  private func refill(_ size: Int, remaining: Int) -> Bool {
    guard size <= Int(UInt32.max) - TextLeaf.chunkHeader else { return false }
    // room for this entry and what the rest of the input could give, up to a chunk
    let wanted = max(size, min(Self.chunkSize, size + remaining + 64)) + TextLeaf.chunkHeader
    guard let made = malloc(wanted) else { return false }
    made.storeBytes(of: 1, as: Int.self)
    if let chunk { TextLeaf.release(chunk: chunk.assumingMemoryBound(to: Int.self)) }
    chunk = made
    used = TextLeaf.chunkHeader
    capacity = wanted
    return true
  }
}
