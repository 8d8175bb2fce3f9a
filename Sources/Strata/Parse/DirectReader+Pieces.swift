import Glibc

/// A top-level array read in pieces on several threads (`ArraySplit`).
extension DirectReader {
  /// How `many` splits a long array by default: pieces of at least
  /// `pieceBytes` bytes (256 KiB, or `STRATA_PIECE_BYTES` when it holds a
  /// number from 16 up: the fuzzers split short texts with it), eight per
  /// thread at most, on at most `threads` threads (`Parallel.threads`),
  /// shared with the calls made at the same time (`Parallel.budget`).
  package static let splitting: Splitting = {
    var pieceBytes = 256 << 10
    if let text = getenv("STRATA_PIECE_BYTES"), let number = Int(String(cString: text)), number >= 16 {
      pieceBytes = number
    }
    return Splitting(pieceBytes: pieceBytes, threads: Parallel.threads, budget: Parallel.budget)
  }()

  /// How a long array is split: pieces of at least `pieceBytes` bytes,
  /// `perThread` per thread at most, on at most `threads` threads.
  package struct Splitting: Sendable {
    /// The fewest bytes a piece may have.
    package var pieceBytes: Int
    /// The most threads.
    package var threads: Int
    /// The most pieces per thread.
    package var perThread: Int
    /// The threads shared with calls made at once (`Parallel.budget`), or
    /// nil to use `threads` whatever other calls use (for tests).
    package var budget: Parallel.ThreadBudget?
    /// For tests: read the pieces one after another on the calling
    /// thread, in an order shuffled by this seed (the first piece
    /// anywhere in it), instead of on threads. Each read meets the pieces
    /// read before it as taken and those after it as unstarted, so every
    /// way a read can meet a piece is taken, in an order that repeats.
    package var schedule: UInt64?
    /// Pieces of at least `pieceBytes` bytes, `perThread` per thread at
    /// most, on at most `threads` threads (or in the order `schedule` makes).
    package init(
      pieceBytes: Int, threads: Int, perThread: Int = 8, budget: Parallel.ThreadBudget? = nil,
      schedule: UInt64? = nil
    ) {
      self.pieceBytes = pieceBytes
      self.threads = threads
      self.perThread = perThread
      self.budget = budget
      self.schedule = schedule
    }
  }

  /// How a read of elements ended.
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

  /// What a split read did, for tests: how many pieces and threads it
  /// used, and how many reads were linked into the answer.
  package final class PieceReport {
    /// The pieces the array was split into (1: read whole).
    package var pieces = 0
    /// The threads that read them.
    package var threads = 0
    /// The reads whose models are in the answer (the first included);
    /// each covers one taken piece and the pieces it continued through.
    package var linked = 0
    /// An empty report.
    package init() {}
  }

  /// What the read of one taken piece gave: its models (of the pieces it
  /// continued through too), and where it stopped (the piece it claimed,
  /// or the split's count at the array's end).
  struct PieceRead {
    var models: [ModelObject]
    var stop: Int
  }

  /// Each taken piece's read, written by the thread that read it and read
  /// once all threads are joined.
  final class PieceReads: @unchecked Sendable {
    let slots: UnsafeMutablePointer<PieceRead?>
    let count: Int
    init(_ count: Int) {
      self.count = count
      slots = .allocate(capacity: count)
      slots.initialize(repeating: nil, count: count)
    }
    deinit {
      slots.deinitialize(count: count)
      slots.deallocate()
    }
  }

  /// The models of the array whose first element is at `position`, read in
  /// pieces on several threads when the text is long enough, whole
  /// otherwise; nil on any error (the caller maps the text on the
  /// error-collecting path). `plans`: the schema's direct plans.
  mutating func elementsInPieces(
    _ type: ModelType, plans: ContiguousArray<DirectPlan?>, splitting: Splitting, report: PieceReport?
  ) -> [ModelObject]? {
    let base = parser.base
    let end = parser.end
    let first = parser.position
    let length = end - first
    let most = length / max(splitting.pieceBytes, 1)
    // the threads this call may use, beside those other calls use now
    var threads = 1
    var reserved: Parallel.ThreadBudget? = nil
    if most > 1 && splitting.threads > 1 && splitting.schedule == nil {
      reserved = splitting.budget
      threads = reserved?.reserve(splitting.threads) ?? splitting.threads
    }
    defer { reserved?.give(threads) }
    let perThread = max(splitting.perThread, 1)
    let wanted =
      splitting.schedule != nil
      ? min(splitting.threads * perThread, most) : threads > 1 ? min(threads * perThread, most) : 1
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
    report?.threads = 1
    report?.linked = 1
    guard starts.count > 1 else {
      guard elements(type, into: &out, piece: 0, split: nil) == .end, numbers.allConsumed else { return nil }
      return out
    }
    let split = ArraySplit(starts: starts)
    let reads = PieceReads(starts.count)
    let schedule = splitting.schedule.map { Self.shuffled(starts.count, seed: $0) }
    report?.threads = threads
    let schema = self.schema
    let shared = self.shared
    _ = Parallel.run(min(threads, starts.count)) { thread in
      let memos = thread == 0 ? self.memos : KeyMemos()
      let models = thread == 0 ? shared : SharedModels()
      // the read of a piece taken, and of the first
      func read(_ index: Int) {
        let to = index + 1 < starts.count ? starts[index + 1] : end
        reads.slots[index] = Self.piece(
          index, base, end, type, schema, plans, split, head: head, to: to, memos: memos, shared: models)
      }
      func readFirst() -> Bool {
        switch elements(type, into: &out, piece: 0, split: split) {
        case .end where numbers.allConsumed: reads.slots[0] = PieceRead(models: [], stop: split.count)
        case .piece(let next) where numbers.allConsumed: reads.slots[0] = PieceRead(models: [], stop: next)
        default:
          split.abandonAll()
          return false
        }
        return true
      }
      if let schedule {
        for index in schedule {
          if index == 0 {
            guard readFirst() else { return }
          } else if split.take(index) {
            read(index)
          }
        }
        return
      }
      if thread == 0 {
        guard readFirst() else { return }
      }
      while let index = split.take() { read(index) }
    }
    // the chain of claims from the first piece: each link's models follow
    var index = 0
    while true {
      guard let read = reads.slots[index] else { return nil }
      if index > 0 {
        out.append(contentsOf: read.models)
        report?.linked += 1
      }
      if read.stop >= split.count { return out }
      guard read.stop > index else { return nil }
      index = read.stop
    }
  }

  /// `0..<count` shuffled by `seed` (a schedule of reads for tests).
  private static func shuffled(_ count: Int, seed: UInt64) -> [Int] {
    var order = Array(0..<count)
    var state = seed
    for index in stride(from: count - 1, to: 0, by: -1) {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      order.swapAt(index, Int((state >> 33) % UInt64(index + 1)))
    }
    return order
  }

  /// Reads taken piece `index` of `split`: from its start to the array's
  /// end or to the start of a later piece another thread has taken; when
  /// the read fails from a start nobody has claimed, from the next guess
  /// before `to`. nil when the piece failed for good or was abandoned.
  static func piece(
    _ index: Int, _ base: UnsafePointer<UInt8>, _ end: Int, _ type: ModelType, _ schema: Schema,
    _ plans: ContiguousArray<DirectPlan?>, _ split: ArraySplit, head: (start: Int, length: Int), to: Int,
    memos: KeyMemos, shared: SharedModels?
  ) -> PieceRead? {
    var start = split.load(index).start
    while true {
      var reader = DirectReader(
        UnsafeBufferPointer(start: base, count: end), schema, plans, memos: memos, sharing: true,
        shared: shared)
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
        // a guess that failed: try the next one, unless a read has claimed
        // this one (then the failure is the array's)
        let from = max(reader.parser.position, start + 1)
        guard let next = ArraySplit.candidate(base, end: end, from: from, to: to, head: head) else {
          _ = split.abandon(index, at: start, .taken)
          return nil
        }
        guard split.move(index, from: start, to: next) else { return nil }
        start = next
      }
    }
  }

  /// Reads elements from `position` (the start of one) to the array's end,
  /// appending their models to `out`. With a split, it watches the later
  /// pieces' starts. At one an element starts at exactly, it stops and
  /// claims the piece when a thread has taken it, and reads on through it
  /// when none has. It abandons a piece whose start it passes inside an
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
          if at < start {
            watch = start
            break
          }
          if at == start {
            if state == .taken || state == .claimed {
              if split.claim(watched, at: start) { return .piece(watched) }
              continue  // its word changed under us: look again
            }
            if state == .unstarted && !split.continueThrough(watched, at: start) { continue }
            // read on through it (continued, or abandoned: of no use)
          } else if state == .unstarted || state == .taken,
            piece == 0 || split.state(piece) == .claimed,
            !split.abandon(watched, at: start, state)
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
