import CJansson
import Glibc

/// The pieces of one top-level array read on several threads at once
/// (`DirectReader.many`): where each piece starts, and who reads it.
///
/// Where an element starts cannot be known without reading every byte
/// before it (a `{` may be inside a string or a nested array), so a piece
/// past the first starts at a guess: a `{` after `}` and `,` near its share
/// of the text, whose first key is the first element's (`candidate`).
/// There are several pieces per thread. Each thread *takes* the next piece
/// nobody has taken and reads it; the calling thread begins with the
/// first, whose start is known.
///
/// A guess is checked by a read that comes to it from a known start: when
/// one of that read's elements starts exactly at the guess, the guess is
/// an element's start. If the piece there is taken, the read stops and
/// *claims* it (the array's models go on with that piece's); if nobody has
/// taken it yet, the read *continues* through it, so no thread waits for a
/// piece another has not begun. When the read passes the guess inside an
/// element, the guess was wrong: the piece is *abandoned*, and the read
/// goes on. A piece whose read fails from a guess not yet claimed tries
/// the next guess in its share (a `{` in a nested array of objects fails at
/// once: its array ends in `]` before the text does).
///
/// So a piece's models are used only when a chain of claims links it to
/// the first piece, and every link was checked by a read that began at a
/// true start: the answer is the one read alone gives, whatever the bytes.
/// A wrong guess costs only the work of the read that made it; a core that
/// is slow or busy holds up the call by one piece at most.
///
/// Each piece's state is one word, `start << 3 | state`, on a cache line
/// of its own.
final class ArraySplit: @unchecked Sendable {
  /// A piece's state, in the word's three low bits.
  enum State: Int {
    /// Nobody has taken it: a thread may take it, a read may continue through it.
    case unstarted = 0
    /// A thread reads it from its start, a guess nobody has checked; on a
    /// failure the start may move on to the next guess.
    case taken = 1
    /// A read from a known start stopped at its start: its read is the
    /// array's from there on, and its start no longer moves.
    case claimed = 2
    /// Its read is of no use: it stops at its next element.
    case abandoned = 3
    /// A read went through its start without stopping: nobody takes it.
    case continued = 4
  }

  /// Words per piece: 64 bytes, so that no two pieces share a cache line.
  private static let stride = 8
  /// How many pieces.
  let count: Int
  /// The pieces' words, then the number of the next piece to offer.
  private let words: UnsafeMutablePointer<Int>

  /// Pieces that start at `starts` (the first at the array's first
  /// element, claimed from the start: the calling thread reads it; the
  /// others unstarted), in increasing order.
  init(starts: [Int]) {
    count = starts.count
    words = .allocate(capacity: (count + 1) * Self.stride)
    words.initialize(repeating: 0, count: (count + 1) * Self.stride)
    for (index, start) in starts.enumerated() {
      words[index * Self.stride] = start << 3 | (index == 0 ? State.claimed : State.unstarted).rawValue
    }
    words[count * Self.stride] = 1
  }

  deinit { words.deallocate() }

  @inline(__always) private func word(_ index: Int) -> UnsafeMutablePointer<Int> {
    words + index * Self.stride
  }

  /// Piece `index`'s start and state now.
  @inline(__always) func load(_ index: Int) -> (start: Int, state: State) {
    let value = strata_word_load(word(index))
    return (value >> 3, State(rawValue: value & 7) ?? .abandoned)
  }

  /// Piece `index`'s state now.
  @inline(__always) func state(_ index: Int) -> State { load(index).state }

  /// Changes piece `index` from `state` at `start` to `next` at `to`;
  /// false when its word was not that.
  @inline(__always) private func swap(_ index: Int, _ start: Int, _ state: State, _ to: Int, _ next: State)
    -> Bool
  {
    strata_word_swap(word(index), start << 3 | state.rawValue, to << 3 | next.rawValue) != 0
  }

  /// The next piece nobody has taken, now taken by the caller; nil when
  /// none is left.
  func take() -> Int? {
    while true {
      let index = strata_word_add(word(count), 1)
      guard index < count else { return nil }
      if take(index) { return index }
      // continued through or abandoned (a taken piece is offered once)
    }
  }

  /// Takes piece `index` if nobody has (the next one offered, or one of a
  /// schedule of the reads made in advance:
  /// `DirectReader.Splitting.schedule`); true if it did.
  func take(_ index: Int) -> Bool {
    let (start, state) = load(index)
    return state == .unstarted && swap(index, start, .unstarted, start, .taken)
  }

  /// Claims piece `index`, found taken or claimed at `start`: its read is
  /// final. False when its word is not that (it moved, or was abandoned).
  func claim(_ index: Int, at start: Int) -> Bool {
    swap(index, start, .taken, start, .claimed)
      || strata_word_load(word(index)) == start << 3 | State.claimed.rawValue
  }

  /// Marks unstarted piece `index` as read through by the caller; false
  /// when it is no longer unstarted at `start`.
  func continueThrough(_ index: Int, at start: Int) -> Bool {
    swap(index, start, .unstarted, start, .continued)
  }

  /// Abandons piece `index` if it is still `state` (unstarted or taken)
  /// at `start`; true if it did.
  func abandon(_ index: Int, at start: Int, _ state: State) -> Bool {
    swap(index, start, state, start, .abandoned)
  }

  /// Moves taken piece `index` from `start` on to `next`; false when it
  /// is no longer taken at `start` (claimed there, or abandoned).
  func move(_ index: Int, from start: Int, to next: Int) -> Bool {
    swap(index, start, .taken, next, .taken)
  }

  /// Abandons every piece but the first, whatever its state, and offers
  /// none any more: the first piece failed, so nothing any piece reads will
  /// be used.
  func abandonAll() {
    strata_word_store(word(count), count)
    for index in 1..<count {
      strata_word_store(word(index), strata_word_load(word(index)) & ~7 | State.abandoned.rawValue)
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
