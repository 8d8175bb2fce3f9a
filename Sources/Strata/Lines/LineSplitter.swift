import Glibc

/// One line found by a `LineSplitter`.
package enum LineEvent {
  /// A line that is not blank, without its "\n" and trailing "\r". The bytes
  /// are borrowed for the duration of the call that receives them.
  case text(line: Int, bytes: UnsafeBufferPointer<UInt8>)
  /// A line longer than the limit: its bytes were dropped as they came.
  case tooLong(line: Int, limit: Int)
}

/// Splits a stream of bytes into JSON lines (docs/lines.md), in constant
/// memory: bytes are fed in chunks of any size, a line that ends inside a
/// chunk is handed over in place, and only a line that spans chunks is
/// gathered, up to the limit. A longer line is dropped byte by byte until its
/// newline and reported as `tooLong`.
///
/// Lines end at "\n"; a trailing "\r" is removed; lines holding only JSON
/// whitespace are skipped but counted; a last line without "\n" is a line;
/// numbers are 1-based.
package struct LineSplitter {
  /// The default longest line, in bytes (without the newline): 64 MiB.
  package static let defaultLimit = 64 << 20

  /// The longest line accepted, in bytes.
  package let limit: Int
  /// The start of a line that spans chunks.
  private var carry: [UInt8] = []
  /// True while dropping the rest of a line that is too long.
  private var skipping = false
  /// The number of the last line completed.
  package private(set) var line = 0

  /// A splitter refusing lines longer than `limit` bytes (at least 1).
  package init(limit: Int = LineSplitter.defaultLimit) {
    self.limit = max(limit, 1)
  }

  /// What a `quick` reader made of the bytes at the start of a line.
  package enum QuickLine {
    /// Not read: the line is split and handed over the ordinary way.
    case declined
    /// A whole line was read, `length` bytes with its "\n"; it delivered the
    /// line's outcome itself, and `going` is false to stop.
    case read(length: Int, going: Bool)
  }

  /// Splits `bytes`, calling `emit` for each line completed in them; the
  /// start of an unfinished line is kept for the next call. Returns false as
  /// soon as `emit` does (the rest of `bytes` is then not read).
  package mutating func feed(_ bytes: UnsafeRawBufferPointer, _ emit: (LineEvent) -> Bool) -> Bool {
    feed(bytes, quick: { _, _ in .declined }, emit)
  }

  /// `feed`, offering `quick` each line that starts within `bytes` and ends
  /// there too (the bytes from its start to the end of `bytes`, and its
  /// number) before its newline is searched for: a reader that finds the
  /// line's end as it reads saves the search. A line it reads must be no longer than the
  /// limit; one it declines is split as usual.
  package mutating func feed(
    _ bytes: UnsafeRawBufferPointer, quick: (UnsafeBufferPointer<UInt8>, Int) -> QuickLine,
    _ emit: (LineEvent) -> Bool
  ) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let count = bytes.count
    var start = 0
    // Lines that start past the last newline end in a later chunk: not offered.
    let lastNewline = Self.lastNewline(base.assumingMemoryBound(to: UInt8.self), count)
    while start < count {
      if start < lastNewline, carry.isEmpty, !skipping {
        let rest = UnsafeBufferPointer(
          start: (base + start).assumingMemoryBound(to: UInt8.self), count: count - start)
        if case .read(let length, let going) = quick(rest, line + 1) {
          line += 1
          start += length
          if !going { return false }
          continue
        }
      }
      guard let found = memchr(base + start, 0x0A, count - start) else {
        keep(base + start, count - start)
        return true
      }
      let end = base.distance(to: UnsafeRawPointer(found))
      let going = complete(base + start, end - start, emit)
      start = end + 1
      if !going { return false }
    }
    return true
  }

  /// Ends the input: a last line without "\n" is completed. Returns false if
  /// `emit` did.
  package mutating func finish(_ emit: (LineEvent) -> Bool) -> Bool {
    guard skipping || !carry.isEmpty else { return true }
    return complete(nil, 0, emit)
  }

  /// Hands over one line that is complete on its own (an element of a
  /// sequence of lines): one trailing "\n" is removed first.
  package mutating func single(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (LineEvent) -> Bool) -> Bool {
    var count = bytes.count
    if count > 0, let base = bytes.baseAddress, base[count - 1] == 0x0A { count -= 1 }
    line += 1
    if count > limit { return emit(.tooLong(line: line, limit: limit)) }
    return deliver(UnsafeBufferPointer(rebasing: bytes[0..<count]), emit)
  }

  /// The index of the last "\n" of the `count` bytes at `base`, or -1:
  /// eight bytes at a time from the end.
  static func lastNewline(_ base: UnsafePointer<UInt8>, _ count: Int) -> Int {
    var end = count
    while end >= 8 {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + end - 8).loadUnaligned(as: UInt64.self))
      let x = word ^ 0x0A0A_0A0A_0A0A_0A0A
      // high bit of each zero byte (exact: no borrow reaches a byte above a zero one
      // when tested byte by byte as below)
      let zero = ~(((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | x | 0x7F7F_7F7F_7F7F_7F7F)
      if zero != 0 { return end - 8 + (63 - zero.leadingZeroBitCount) / 8 }
      end -= 8
    }
    while end > 0 {
      end -= 1
      if base[end] == 0x0A { return end }
    }
    return -1
  }

  private mutating func keep(_ pointer: UnsafeRawPointer, _ count: Int) {
    if skipping { return }
    if count > limit - carry.count {
      skipping = true
      carry = []
      return
    }
    carry.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count))
  }

  private mutating func complete(_ pointer: UnsafeRawPointer?, _ count: Int, _ emit: (LineEvent) -> Bool)
    -> Bool
  {
    line += 1
    if skipping {
      skipping = false
      return emit(.tooLong(line: line, limit: limit))
    }
    if carry.isEmpty {
      guard let pointer else { return true }
      if count > limit { return emit(.tooLong(line: line, limit: limit)) }
      return deliver(
        UnsafeBufferPointer(start: pointer.assumingMemoryBound(to: UInt8.self), count: count), emit)
    }
    if count > limit - carry.count {
      carry = []
      return emit(.tooLong(line: line, limit: limit))
    }
    if let pointer { carry.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count)) }
    let going = carry.withUnsafeBufferPointer { deliver($0, emit) }
    if carry.capacity > 1 << 20 { carry = [] } else { carry.removeAll(keepingCapacity: true) }
    return going
  }

  /// Removes a trailing "\r", skips a blank line, hands over the rest.
  private func deliver(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (LineEvent) -> Bool) -> Bool {
    var count = bytes.count
    if count > 0, bytes[count - 1] == 0x0D { count -= 1 }
    var blank = true
    for index in 0..<count {
      let byte = bytes[index]
      if byte != 0x20 && byte != 0x09 && byte != 0x0D && byte != 0x0A {
        blank = false
        break
      }
    }
    if blank { return true }
    return emit(.text(line: line, bytes: UnsafeBufferPointer(rebasing: bytes[0..<count])))
  }
}
