/// A growable run of bytes that the byte parser decodes escaped strings
/// into: appends write through a pointer after one capacity check, without
/// the copy-on-write and bounds checks of an `Array` append per byte. One
/// scratch belongs to one parser (a parser is never copied).
final class ByteScratch {
  /// The bytes' storage.
  private var base: UnsafeMutablePointer<UInt8>
  /// How many bytes `base` holds room for.
  private var capacity: Int
  /// How many bytes are in use.
  private(set) var count = 0

  /// An empty scratch with room for `capacity` bytes.
  init(capacity: Int = 256) {
    self.capacity = capacity
    base = .allocate(capacity: capacity)
  }

  deinit {
    base.deallocate()
  }

  /// The bytes in use (valid until the next change).
  @inline(__always) var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

  /// Empties the scratch, keeping its storage.
  @inline(__always) func removeAll() { count = 0 }

  /// Makes room for `more` bytes after those in use.
  @inline(__always) func reserve(_ more: Int) {
    if count + more > capacity { grow(count + more) }
  }

  @inline(never) private func grow(_ needed: Int) {
    let larger = max(needed, capacity * 2)
    let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
    moved.update(from: base, count: count)
    base.deallocate()
    base = moved
    capacity = larger
  }

  /// Appends the `length` bytes at `source`.
  @inline(__always) func append(_ source: UnsafePointer<UInt8>, _ length: Int) {
    reserve(length)
    (base + count).update(from: source, count: length)
    count += length
  }

  /// Appends one byte.
  @inline(__always) func append(_ byte: UInt8) {
    reserve(1)
    base[count] = byte
    count += 1
  }

  /// Appends the UTF-8 encoding of the Unicode scalar value `scalar`.
  @inline(__always) func appendUTF8(_ scalar: UInt32) {
    reserve(4)
    let at = base + count
    switch scalar {
    case 0..<0x80:
      at[0] = UInt8(truncatingIfNeeded: scalar)
      count += 1
    case 0x80..<0x800:
      at[0] = UInt8(truncatingIfNeeded: 0xC0 | (scalar >> 6))
      at[1] = UInt8(truncatingIfNeeded: 0x80 | (scalar & 0x3F))
      count += 2
    case 0x800..<0x10000:
      at[0] = UInt8(truncatingIfNeeded: 0xE0 | (scalar >> 12))
      at[1] = UInt8(truncatingIfNeeded: 0x80 | ((scalar >> 6) & 0x3F))
      at[2] = UInt8(truncatingIfNeeded: 0x80 | (scalar & 0x3F))
      count += 3
    default:
      at[0] = UInt8(truncatingIfNeeded: 0xF0 | (scalar >> 18))
      at[1] = UInt8(truncatingIfNeeded: 0x80 | ((scalar >> 12) & 0x3F))
      at[2] = UInt8(truncatingIfNeeded: 0x80 | ((scalar >> 6) & 0x3F))
      at[3] = UInt8(truncatingIfNeeded: 0x80 | (scalar & 0x3F))
      count += 4
    }
  }
}
