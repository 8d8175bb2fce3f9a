import Glibc

/// Ends the read transactions that calls on SQLite files leave open for
/// the next call, once their context has been idle for `idle`.
///
/// A read call on a file (a cold `get`, a query) reads inside a read
/// transaction, so that all it reads is one snapshot. Opening and ending
/// one costs two statements (`BEGIN`, `COMMIT`) and, on SQLite in WAL mode,
/// three system calls (the lock on a read slot of the log's index, taken and
/// given back with `fcntl`, and the file's size): about half of a cold
/// `get` of a small record. So a call whose snapshot is the file as it is
/// now leaves its transaction open, and the context's next call, when the
/// header of the log's index is unchanged (nobody committed since, so the
/// snapshot is still the file as it is), reads in it without opening
/// another (`GraphContext`, "lingering read"). A change, a read block, a
/// commit of any other connection or closing the context ends it first.
///
/// An open read transaction keeps other connections' checkpoints from
/// copying the log back past its snapshot, so it must not stay open while
/// the context is idle: this helper thread ends it `idle` after the
/// context's last call. The thread starts when a context first leaves a
/// read open and sleeps while none does. It only tries the contexts'
/// locks (`pthread_mutex_trylock`) while it holds its own: a context in a
/// call is looked at again later.
enum LingeringReads {
  /// How long a read transaction stays open after its context's last call,
  /// in nanoseconds: 5 ms.
  static let idle: Int64 = 5_000_000

  /// The time now on the monotonic clock, in nanoseconds.
  static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }

  /// Has the helper end `context`'s lingering read once it has been idle
  /// for `idle` (the context asks once; later calls move its own deadline,
  /// which the helper reads when it wakes). False when no helper can run:
  /// the context then ends its read itself.
  static func watch(_ context: GraphContext, until deadline: Int64) -> Bool {
    watcher.add(context, deadline)
  }

  /// Stops watching `context`: called first thing in its `deinit`, so that
  /// the helper, which calls the contexts it watches without retaining them
  /// (under its mutex), never calls one whose deinit has run.
  static func forget(_ context: GraphContext) {
    watcher.remove(context)
  }

  /// A context the helper watches (not retained: `forget` takes it out
  /// before it goes), and when to look at it next.
  private struct Watched {
    let context: Unmanaged<GraphContext>
    var deadline: Int64
  }

  /// The contexts watched and the helper thread, under a mutex. The thread
  /// is started when a context first leaves a read open and runs until the
  /// process ends, asleep while no context is watched; the list keeps its
  /// storage. So, once started, watching allocates nothing (leak checkers
  /// that compare a run's allocations and frees, as libFuzzer's does, see
  /// them even).
  private final class Watcher: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var watched: [Watched] = []
    private var started = false
    private var forkHandlers = false

    init() {
      pthread_mutex_init(mutex, nil)
      var attributes = pthread_condattr_t()
      pthread_condattr_init(&attributes)
      pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
      pthread_cond_init(wake, &attributes)
      pthread_condattr_destroy(&attributes)
      watched.reserveCapacity(16)
    }

    /// Adds `context`, starting the helper if it has not started; false
    /// when no thread can start (nothing is then watched).
    func add(_ context: GraphContext, _ deadline: Int64) -> Bool {
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      if !forkHandlers {
        forkHandlers =
          pthread_atfork(LingeringReads.beforeFork, LingeringReads.afterFork, LingeringReads.afterForkInChild)
          == 0
      }
      if !started {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        var thread = pthread_t()
        started =
          pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) == 0
          && pthread_create(&thread, &attributes, LingeringReads.run, nil) == 0
        guard started else { return false }
      }
      watched.append(Watched(context: Unmanaged.passUnretained(context), deadline: deadline))
      pthread_cond_signal(wake)
      return true
    }

    /// Takes `context` out of the list.
    func remove(_ context: GraphContext) {
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      let target = Unmanaged.passUnretained(context).toOpaque()
      watched.removeAll { $0.context.toOpaque() == target }
    }

    /// The helper's loop: sleeps until the earliest deadline (or until a
    /// context is added), then looks at every context due, in place.
    func loop() {
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      while true {
        guard let earliest = watched.lazy.map(\.deadline).min() else {
          pthread_cond_wait(wake, mutex)
          continue
        }
        let now = LingeringReads.now()
        if earliest > now {
          var until = timespec(
            tv_sec: Int(earliest / 1_000_000_000), tv_nsec: Int(earliest % 1_000_000_000))
          _ = pthread_cond_timedwait(wake, mutex, &until)
          continue
        }
        var index = 0
        while index < watched.count {
          guard watched[index].deadline <= now else {
            index += 1
            continue
          }
          // not retained: the context's deinit waits for this mutex (`forget`)
          let next = watched[index].context._withUnsafeGuaranteedRef { $0.endLingeringRead(ifIdleAt: now) }
          if let next {
            watched[index].deadline = next
            index += 1
          } else {
            watched.remove(at: index)
          }
        }
      }
    }

    /// `fork` holds the mutex across it, so that the child's copy is consistent.
    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// In a child made by `fork`: the helper is not there (the next read
    /// left open starts one), and the parent's contexts are not the
    /// child's to end reads of.
    func forgetHelper() {
      started = false
      watched.removeAll(keepingCapacity: true)
      pthread_mutex_unlock(mutex)
    }
  }

  private static let watcher = Watcher()

  /// The helper's start routine.
  private static let run: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { _ in
    LingeringReads.watcher.loop()
    return nil
  }
  /// The `pthread_atfork` handlers.
  private static let beforeFork: @convention(c) () -> Void = { LingeringReads.watcher.lock() }
  private static let afterFork: @convention(c) () -> Void = { LingeringReads.watcher.unlock() }
  private static let afterForkInChild: @convention(c) () -> Void = { LingeringReads.watcher.forgetHelper() }
}
