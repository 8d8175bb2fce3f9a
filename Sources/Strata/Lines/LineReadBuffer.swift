import Glibc

/// The read buffer of JSON lines from a byte source (C `strata_map_lines`
/// and `strata_map_lines_file`, Swift `LineMapper`): each read lands after
/// the unfinished line the previous one left, which is moved to the front,
/// so every line shorter than the buffer reaches the splitter whole and is
/// parsed in place. A line longer than the buffer is handed over as it
/// comes, and the splitter gathers it (up to its limit). 256 KiB: sizes
/// from 64 KiB to 1 MiB measured the same (Benchmarks/README.md, "Where the
/// time goes (direct reading)"), and the smallest of them that keeps long
/// lines rare costs the least memory.
package final class LineReadBuffer {
  /// The buffer's size in bytes: 256 KiB.
  package static let defaultCapacity = 256 << 10

  private let capacity: Int
  private let base: UnsafeMutableRawPointer
  /// The bytes of an unfinished line at the front.
  private var held = 0

  /// An empty buffer of `capacity` bytes (at least 1).
  package init(capacity: Int = LineReadBuffer.defaultCapacity) {
    self.capacity = max(capacity, 1)
    base = .allocate(byteCount: self.capacity, alignment: 16)
  }

  deinit { base.deallocate() }

  /// Where the next read goes: the buffer after the held bytes (never empty).
  package var room: UnsafeMutableRawBufferPointer {
    UnsafeMutableRawBufferPointer(start: base + held, count: capacity - held)
  }

  /// Takes the `count` bytes just read into `room` (at most its size):
  /// hands `body` the bytes up to the last newline, or the whole buffer when
  /// it is full without one, and keeps the rest at the front for the next
  /// read. Returns false when `body` did (true when it was not called: no
  /// newline yet and room to read more).
  package func add(_ count: Int, _ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
    let filled = held + count
    let newline = LineSplitter.lastNewline(
      (base + held).assumingMemoryBound(to: UInt8.self), count)
    let end: Int
    if newline >= 0 {
      end = held + newline + 1
    } else if filled < capacity {
      held = filled
      return true
    } else {
      end = filled
    }
    let going = body(UnsafeRawBufferPointer(start: base, count: end))
    held = filled - end
    if held > 0 { memmove(base, base + end, held) }
    return going
  }

  /// At the end of the input: hands `body` the held bytes (a last line
  /// without "\n"), if any, and empties the buffer. Returns false when `body` did.
  package func finish(_ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
    guard held > 0 else { return true }
    let count = held
    held = 0
    return body(UnsafeRawBufferPointer(start: base, count: count))
  }
}
