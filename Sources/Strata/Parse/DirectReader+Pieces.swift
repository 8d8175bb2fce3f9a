import Glibc

/// A top-level array read in pieces, one per core (`ArraySplit`).
extension DirectReader {
  /// How `many` splits a long array by default: pieces of at least
  /// `pieceBytes` bytes (1 MiB, or `STRATA_PIECE_BYTES` when it holds a
  /// number from 16 up: the fuzzers split short texts with it), at most
  /// `threads` of them (`Parallel.threads`).
  package static let splitting: Splitting = {
    var pieceBytes = 1 << 20
    if let text = getenv("STRATA_PIECE_BYTES"), let number = Int(String(cString: text)), number >= 16 {
      pieceBytes = number
    }
    return Splitting(pieceBytes: pieceBytes, threads: Parallel.threads)
  }()

  /// How a long array is split: pieces of at least `pieceBytes` bytes, at
  /// most `threads` of them.
  package struct Splitting: Sendable {
    /// The fewest bytes a piece may have.
    package var pieceBytes: Int
    /// The most pieces.
    package var threads: Int
    /// Pieces of at least `pieceBytes` bytes, at most `threads` of them.
    package init(pieceBytes: Int, threads: Int) {
      self.pieceBytes = pieceBytes
      self.threads = threads
    }
  }

  /// How a piece's read of elements ended.
  enum PieceEnd: Equatable {
    /// At the array's `]`, with nothing but spaces after it.
    case end
    /// At the start of piece `index`, which it claimed.
    case piece(Int)
    /// On an error of any kind.
    case failed
    /// Its piece was abandoned: its models are of no use.
    case abandoned
  }

  /// What a split read did, for tests: how many pieces it made and how
  /// many of them were linked into the answer.
  package final class PieceReport {
    /// The pieces the array was split into (1: read whole).
    package var pieces = 0
    /// The pieces whose models are in the answer (the first included).
    package var linked = 0
    /// An empty report.
    package init() {}
  }

  /// What one piece read: its models, and where it stopped (the piece it
  /// claimed, or the split's count at the array's end).
  struct PieceRead {
    var models: [ModelObject]
    var stop: Int
  }

  /// The models of the array whose first element is at `position`, read in
  /// pieces on several threads when the text is long enough, as one piece
  /// otherwise; nil on any error (the caller maps the text on the
  /// error-collecting path). `plans`: the schema's direct plans.
  mutating func elementsInPieces(
    _ type: ModelType, plans: ContiguousArray<DirectPlan?>, splitting: Splitting, report: PieceReport?
  ) -> [ModelObject]? {
    let base = parser.base
    let end = parser.end
    let first = parser.position
    let length = end - first
    let wanted = min(splitting.threads, length / max(splitting.pieceBytes, 1))
    let head = ArraySplit.head(base, at: first, end: end)
    var starts = [first]
    if wanted > 1 {
      for index in 1..<wanted {
        let from = first + length * index / wanted
        let to = first + length * (index + 1) / wanted
        if let start = ArraySplit.candidate(base, end: end, from: from, to: to, head: head),
          start > starts[starts.count - 1]
        {
          starts.append(start)
        }
      }
    }
    var out: [ModelObject] = []
    report?.pieces = starts.count
    report?.linked = 1
    guard starts.count > 1 else {
      guard elements(type, into: &out, piece: 0, split: nil) == .end, numbers.allConsumed else { return nil }
      return out
    }
    let split = ArraySplit(starts: starts)
    let schema = self.schema
    let reads = Parallel.run(starts.count) { index -> PieceRead? in
      guard index == 0 else {
        let to = index + 1 < starts.count ? starts[index + 1] : end
        return Self.piece(index, base, end, type, schema, plans, split, head: head, to: to)
      }
      let ended = elements(type, into: &out, piece: 0, split: split)
      switch ended {
      case .end where numbers.allConsumed: return PieceRead(models: [], stop: split.count)
      case .piece(let next) where numbers.allConsumed: return PieceRead(models: [], stop: next)
      default:
        split.abandonAll()
        return nil
      }
    }
    // the chain of claims from the first piece: each link's models follow
    var index = 0
    while true {
      guard index < reads.count, let read = reads[index] else { return nil }
      if index > 0 {
        out.append(contentsOf: read.models)
        report?.linked += 1
      }
      if read.stop >= split.count { return out }
      guard read.stop > index else { return nil }
      index = read.stop
    }
  }

  /// Reads piece `index` of `split` on its own thread: from its start to the
  /// array's end or to a later piece's start; when the read fails from a
  /// start nobody has claimed, from the next guess before `to`. nil when
  /// the piece failed for good or was abandoned.
  static func piece(
    _ index: Int, _ base: UnsafePointer<UInt8>, _ end: Int, _ type: ModelType, _ schema: Schema,
    _ plans: ContiguousArray<DirectPlan?>, _ split: ArraySplit, head: (start: Int, length: Int), to: Int
  ) -> PieceRead? {
    let memos = KeyMemos()
    var start = split.load(index).start
    while true {
      var reader = DirectReader(
        UnsafeBufferPointer(start: base, count: end), schema, plans, memos: memos, sharing: true)
      reader.parser.position = start
      reader.parser.depth = 1
      var models: [ModelObject] = []
      let ended = reader.elements(type, into: &models, piece: index, split: split)
      reader.finish()
      switch ended {
      case .end where reader.numbers.allConsumed: return PieceRead(models: models, stop: split.count)
      case .piece(let next) where reader.numbers.allConsumed: return PieceRead(models: models, stop: next)
      case .abandoned: return nil
      default:
        // a guess that failed: try the next one, unless the piece before
        // has claimed this one (then the failure is the array's)
        let from = max(reader.parser.position, start + 1)
        guard let next = ArraySplit.candidate(base, end: end, from: from, to: to, head: head) else {
          _ = split.abandon(index, at: start)
          return nil
        }
        guard split.move(index, from: start, to: next) else { return nil }
        start = next
      }
    }
  }

  /// Reads elements from `position` (the start of one) to the array's end,
  /// appending their models to `out`. With a split, it watches the later
  /// pieces' starts: it stops at the first one an element starts at
  /// exactly (claiming that piece), abandons one it passes inside an
  /// element (when its own read is known to be the array's: the first
  /// piece, or a claimed one), and stops when its own piece is abandoned.
  mutating func elements(_ type: ModelType, into out: inout [ModelObject], piece: Int, split: ArraySplit?)
    -> PieceEnd
  {
    var watched = piece + 1
    var watch = split.map { watched < $0.count ? $0.load(watched).start : Int.max } ?? Int.max
    while true {
      if let split {
        if piece > 0 && split.state(piece) == .abandoned { return .abandoned }
        let at = parser.position
        while at >= watch {
          let (start, state) = split.load(watched)
          if state != .abandoned && at < start {
            watch = start
            break
          }
          if state != .abandoned && at == start {
            if split.claim(watched, at: start) { return .piece(watched) }
            continue  // its word changed under us: look again
          }
          if state == .free && (piece == 0 || split.state(piece) == .claimed)
            && !split.abandon(watched, at: start)
          {
            continue
          }
          watched += 1
          watch = watched < split.count ? split.load(watched).start : Int.max
        }
      }
      guard let object = root(type) else { return .failed }
      out.append(object)
      switch parser.afterMember(closing: UInt8(ascii: "]")) {
      case .more: continue
      case .closed:
        parser.skipSpace()
        return parser.position == parser.end && !parser.failed ? .end : .failed
      case .failed: return .failed
      }
    }
  }
}
