import CJansson
import Glibc

/// The pieces of one top-level array read on several threads at once
/// (`DirectReader.many`): where each piece starts, and whether the piece
/// before it has taken it.
///
/// Where an element starts cannot be known without reading every byte
/// before it (a `{` may be inside a string or a nested array), so a piece
/// past the first starts at a guess: a `{` after `}` and `,` near its share
/// of the text, whose first key is the first element's (`candidate`). The
/// guess is checked by the piece before it, which reads the text from a
/// known start: when one of its elements starts exactly at the guess, the
/// guess is an element's start, and that piece stops there and *claims* the
/// next (its read is then the array's from there on). When the piece before
/// passes the guess inside an element, the guess was wrong: the piece is
/// *abandoned* and the piece before reads on. A piece whose read fails from
/// a guess not yet claimed tries the next guess in its share (a `{` in a
/// nested array of objects fails at once: its array ends in `]` before the
/// text does).
///
/// So a piece's models are used only when a chain of claims links it to
/// the first piece, and every link was checked by a read that began at a
/// true start: the answer is the one read alone gives, whatever the bytes.
/// A wrong guess costs only the work of the piece that made it.
///
/// Each piece's state is one word, `start << 2 | state`, on a cache line
/// of its own: the piece's current start, and free (it may still move
/// on), claimed (it may not move; its read is final), or abandoned (stop
/// reading: nobody will use the answer).
final class ArraySplit: @unchecked Sendable {
  /// A piece's state, in the word's two low bits.
  enum State: Int {
    /// Its start is a guess nobody has checked yet; it may still move on.
    case free = 0
    /// The piece before stopped at its start: its read is the array's.
    case claimed = 1
    /// Its read is of no use: it stops at its next element.
    case abandoned = 2
  }

  /// Words per piece: 64 bytes, so that no two pieces share a cache line.
  private static let stride = 8
  /// How many pieces.
  let count: Int
  private let words: UnsafeMutablePointer<Int>

  /// Pieces that start at `starts` (the first at the array's first
  /// element, claimed from the start; the others free), in increasing order.
  init(starts: [Int]) {
    count = starts.count
    words = .allocate(capacity: count * Self.stride)
    words.initialize(repeating: 0, count: count * Self.stride)
    for (index, start) in starts.enumerated() {
      words[index * Self.stride] = start << 2 | (index == 0 ? State.claimed : State.free).rawValue
    }
  }

  deinit { words.deallocate() }

  /// Piece `index`'s start and state now.
  @inline(__always) func load(_ index: Int) -> (start: Int, state: State) {
    let word = strata_word_load(words + index * Self.stride)
    return (word >> 2, State(rawValue: word & 3) ?? .abandoned)
  }

  /// Piece `index`'s state now.
  @inline(__always) func state(_ index: Int) -> State { load(index).state }

  /// Takes piece `index`, found free or claimed at `start`: its read is
  /// final. False when its word is not that (it moved, or was abandoned).
  func claim(_ index: Int, at start: Int) -> Bool {
    let word = words + index * Self.stride
    if strata_word_swap(word, start << 2 | State.free.rawValue, start << 2 | State.claimed.rawValue) != 0 {
      return true
    }
    return strata_word_load(word) == start << 2 | State.claimed.rawValue
  }

  /// Abandons piece `index` if it is still free at `start`; true if it did.
  func abandon(_ index: Int, at start: Int) -> Bool {
    strata_word_swap(
      words + index * Self.stride, start << 2 | State.free.rawValue, start << 2 | State.abandoned.rawValue)
      != 0
  }

  /// Moves free piece `index` from `start` on to `next`; false when it is
  /// no longer free at `start` (claimed there, or abandoned).
  func move(_ index: Int, from start: Int, to next: Int) -> Bool {
    strata_word_swap(
      words + index * Self.stride, start << 2 | State.free.rawValue, next << 2 | State.free.rawValue) != 0
  }

  /// Abandons every piece but the first, whatever its state: the first
  /// piece failed, so nothing any piece reads will be used.
  func abandonAll() {
    for index in 1..<count {
      let word = words + index * Self.stride
      strata_word_store(word, strata_word_load(word) & ~3 | State.abandoned.rawValue)
    }
  }

  // MARK: guesses

  /// The first element's opening bytes that a guess must repeat: from its
  /// `{` through the colon after its first key (spaces included, so a
  /// pretty-printed array's guesses must have its elements' indentation);
  /// empty when they are longer than 48 bytes or hold a backslash.
  static func head(_ base: UnsafePointer<UInt8>, at start: Int, end: Int) -> (start: Int, length: Int) {
    var index = start
    while index < end && index - start < 48 {
      let c = base[index]
      if c == UInt8(ascii: "\\") { break }
      if c == UInt8(ascii: ":") { return (start, index + 1 - start) }
      index += 1
    }
    return (start, 0)
  }

  /// The first `{` in `from..<to` that follows a `}` and a `,` (spaces
  /// between them allowed) and begins with the bytes of `head`; nil when
  /// there is none. A guess, not a finding: it may lie inside a string or
  /// a nested array.
  static func candidate(
    _ base: UnsafePointer<UInt8>, end: Int, from: Int, to: Int, head: (start: Int, length: Int)
  ) -> Int? {
    var index = max(from, 2)
    let limit = min(to, end - head.length)
    while index < limit {
      guard let found = memchr(base + index, Int32(UInt8(ascii: "{")), limit - index) else { return nil }
      let brace = UnsafeRawPointer(found) - UnsafeRawPointer(base)
      index = brace + 1
      var back = brace - 1
      while back > 0 && isSpace(base[back]) { back -= 1 }
      guard back > 0, base[back] == UInt8(ascii: ",") else { continue }
      back -= 1
      while back > 0 && isSpace(base[back]) { back -= 1 }
      guard base[back] == UInt8(ascii: "}") else { continue }
      if head.length > 0 && memcmp(base + brace, base + head.start, head.length) != 0 { continue }
      return brace
    }
    return nil
  }

  /// JSON's four space characters.
  @inline(__always) private static func isSpace(_ c: UInt8) -> Bool {
    c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09
  }
}
