import Glibc

/// Two halves of one piece of work run at once on two cores: a producer on
/// a helper thread hands batches over to a consumer on the calling thread,
/// in order, at most `depth` batches ahead.
///
/// The calling thread does everything that touches shared state (the
/// graph); the producer only builds new values nobody else sees until they
/// are handed over (the batches are passed under a mutex, so all the
/// producer wrote is visible to the consumer). When no thread can be
/// started, the producer runs first in place and the consumer after it,
/// with every batch kept: the same answer, one core.
package enum Overlap {
  /// The channel between the two halves.
  package final class Channel<Item>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var batches: [[Item]] = []
    private var first = 0
    private var finished = false
    private var stopped = false
    fileprivate var depth: Int

    fileprivate init(depth: Int) {
      self.depth = depth
      pthread_mutex_init(mutex, nil)
      pthread_cond_init(changed, nil)
    }

    deinit {
      pthread_cond_destroy(changed)
      pthread_mutex_destroy(mutex)
      mutex.deallocate()
      changed.deallocate()
    }

    /// The producer hands `batch` over, waiting while `depth` batches are
    /// waiting already. False when the consumer stopped: the batch was not
    /// taken, and the producer should stop too (and drop what it holds).
    package func send(_ batch: [Item]) -> Bool {
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      while !stopped && batches.count - first >= depth { pthread_cond_wait(changed, mutex) }
      if stopped { return false }
      batches.append(batch)
      pthread_cond_broadcast(changed)
      return true
    }

    /// True once the consumer stopped (the producer may end early).
    package var isStopped: Bool {
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return stopped
    }

    /// The next batch, waiting for it; nil once the producer is done and
    /// every batch was taken.
    fileprivate func receive() -> [Item]? {
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      while first == batches.count && !finished { pthread_cond_wait(changed, mutex) }
      guard first < batches.count else { return nil }
      let batch = batches[first]
      batches[first] = []
      first += 1
      if first == batches.count {
        batches.removeAll(keepingCapacity: true)
        first = 0
      }
      pthread_cond_broadcast(changed)
      return batch
    }

    /// The producer is done: no batch follows.
    fileprivate func finish() {
      pthread_mutex_lock(mutex)
      finished = true
      pthread_cond_broadcast(changed)
      pthread_mutex_unlock(mutex)
    }

    /// The consumer is done: the producer's next `send` answers false. The
    /// batches not taken are returned for the consumer to drop.
    fileprivate func stop() -> [[Item]] {
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      stopped = true
      let left = Array(batches[first...])
      batches = []
      first = 0
      pthread_cond_broadcast(changed)
      return left
    }
  }

  /// Runs `produce` on a helper thread (a stack of `DeepStack.helperStack`)
  /// and `consume` on the calling thread with each batch it sends, in
  /// order; a batch given to `consume` is its own. `consume` answers false
  /// to stop: the producer's next `send` fails, and every batch sent but
  /// not given to `consume` goes to `drop`. Returns
  /// what `produce` returned, once it has returned (nil only if the
  /// producer never ran).
  package static func run<Item, Produced>(
    depth: Int = 2, produce: (Channel<Item>) -> Produced, consume: ([Item]) -> Bool, drop: ([Item]) -> Void
  ) -> Produced? {
    withoutActuallyEscaping(produce) { produce in
      let channel = Channel<Item>(depth: depth)
      let job = Job<Produced> {
        let produced = produce(channel)
        channel.finish()
        return produced
      }
      let thread = HelperThread.start { job.run() }
      if thread == nil {
        channel.depth = Int.max
        job.run()
      }
      while let batch = channel.receive() {
        if !consume(batch) {
          for left in channel.stop() { drop(left) }
          break
        }
      }
      if let thread { pthread_join(thread, nil) }
      return job.produced
    }
  }

  /// The producer's work and what it returned.
  private final class Job<Produced> {
    let work: () -> Produced
    var produced: Produced? = nil
    init(_ work: @escaping () -> Produced) { self.work = work }
    func run() { produced = work() }
  }
}
