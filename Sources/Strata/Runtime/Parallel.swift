import CJansson
import Glibc

/// Pieces of one call run at once, one per core: the first on the calling
/// thread, each other on a helper thread of its own, all joined before the
/// call returns.
///
/// How many threads a call may use is `threads`: the environment variable
/// `STRATA_THREADS` when it holds a number from 1 to 64 (1 keeps every call
/// on its calling thread), else the CPUs this process may run on, at most 8.
/// A host that runs one call per core already (a server's workers) sets it
/// to 1. Calls made at once share that number (`budget`).
package enum Parallel {
  /// The most threads one call may use (at least 1).
  package static let threads: Int = {
    if let text = getenv("STRATA_THREADS"), let number = Int(String(cString: text)), (1...64).contains(number)
    {
      return number
    }
    let count = Int(strata_cpu_count())
    return max(1, min(count, 8))
  }()

  /// The threads split calls may use across the process: `threads` in all.
  package static let budget = ThreadBudget(limit: threads)

  /// A number of threads shared by calls made at once: each call reserves
  /// what is left beside the threads the others hold, at least its own
  /// calling thread, so calls made from several threads of the host share
  /// the cores instead of each starting `limit` threads of its own.
  package final class ThreadBudget: @unchecked Sendable {
    /// The most threads the calls may hold together (their calling threads
    /// beyond it only).
    package let limit: Int
    /// How many they hold now, on a cache line of its own.
    private let held: UnsafeMutablePointer<Int>

    /// A budget of `limit` threads, none held.
    package init(limit: Int) {
      self.limit = limit
      held = .allocate(capacity: 8)
      held.initialize(repeating: 0, count: 8)
    }

    deinit { held.deallocate() }

    /// How many threads the calls hold now.
    package var inUse: Int { strata_word_load(held) }

    /// Reserves up to `wanted` threads, the calling thread among them: at
    /// most what the limit leaves now, and at least 1. Give them back with
    /// `give` once the call's threads are joined.
    package func reserve(_ wanted: Int) -> Int {
      while true {
        let now = strata_word_load(held)
        let granted = max(1, min(wanted, limit - now))
        if strata_word_swap(held, now, now + granted) != 0 { return granted }
      }
    }

    /// Gives back `granted` threads that `reserve` granted.
    package func give(_ granted: Int) {
      _ = strata_word_add(held, -granted)
    }
  }

  /// `body(0)` on the calling thread and `body(1)` ... `body(count - 1)`
  /// each on a helper thread (a stack of `DeepStack.helperStack`), their
  /// answers in order once all have returned. A piece whose thread cannot
  /// be started runs on the calling thread after the first: the same
  /// answers, fewer cores.
  package static func run<R>(_ count: Int, _ body: (Int) -> R) -> [R] {
    guard count > 1 else { return count == 1 ? [body(0)] : [] }
    return withoutActuallyEscaping(body) { escaping in
      let jobs = (1..<count).map { index in Job { escaping(index) } }
      let threads = jobs.map { job in HelperThread.start { job.run() } }
      let first = escaping(0)
      for (index, thread) in threads.enumerated() {
        if let thread {
          pthread_join(thread, nil)
        } else {
          jobs[index].run()
        }
      }
      // every job ran (joined, or in place), so each has its answer
      return [first] + jobs.compactMap { job in job.answer }
    }
  }

  /// A piece's work and its answer.
  private final class Job<R> {
    let work: () -> R
    var answer: R? = nil
    init(_ work: @escaping () -> R) { self.work = work }
    func run() { answer = work() }
  }
}
