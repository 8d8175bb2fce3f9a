import Glibc
import Strata

/// Lets go of a large graph on a helper thread, as Redis's lazy free does:
/// closing a context of many records hands what it held to a thread of
/// its own and returns, instead of waiting while every record, object and
/// value is freed one by one (for 20,000 issues, about as long as their
/// import's writes).
///
/// Only what nobody else can reach is handed over: the records' links and
/// the cache's index, taken out of the records on the calling thread
/// (`GraphMemory.clear`). A record handle the host still holds keeps its
/// object, whose reference count is atomic; the helper only releases.
/// Graphs smaller than `from` records, and any graph while `most` helpers
/// are still at work or when no thread can start, are let go of in place.
/// A process that exits while a helper is at work waits for it (an
/// `atexit` handler): memory is never left half freed, and leak checkers
/// run after it see none.
enum ReleaseAside {
  /// Graphs of fewer records are let go of in place: a thread costs more than it saves.
  static let from = 4096
  /// At most this many helpers at once; past it, in place (memory stays bounded).
  static let most = 2

  /// What a helper drops.
  private final class Held {
    let values: [Any]
    init(_ values: consuming [Any]) { self.values = values }
  }

  /// Drops `values` (whose last references the caller gives up) on a
  /// helper thread with a stack of `DeepStack.helperStack` (releasing
  /// nested values recurses), or in place when `most` helpers are at work
  /// or no thread can start.
  static func release(_ values: consuming [Any]) {
    guard gate.enter() else { return }
    gate.waitsAtExit()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    var thread = pthread_t()
    // the box is the values' only holder from here on: the helper's release frees them
    let context = Unmanaged.passRetained(Held(consume values)).toOpaque()
    let started =
      pthread_attr_setstacksize(&attributes, DeepStack.helperStack) == 0
      && pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) == 0
      && pthread_create(&thread, &attributes, drop, context) == 0
    if !started {
      Unmanaged<Held>.fromOpaque(context).release()
      gate.leave()
    }
  }

  /// The helpers at work, under a mutex.
  private final class Gate: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let idle = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var working = 0
    private var registered = false

    init() {
      pthread_mutex_init(mutex, nil)
      pthread_cond_init(idle, nil)
    }

    /// Makes the process wait at exit for the helpers at work (once). A
    /// child made by `fork` has none of its parent's helpers: it starts
    /// with none at work (and never frees what they held).
    func waitsAtExit() {
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      if !registered {
        registered =
          pthread_atfork(
            ReleaseAside.beforeFork, ReleaseAside.afterForkInParent, ReleaseAside.afterForkInChild)
          == 0 && atexit(ReleaseAside.atExit) == 0
      }
    }

    /// `fork` holds the mutex across it, so the child's copy is consistent.
    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// In a child made by `fork`: no helper is at work there.
    func forgetHelpers() {
      working = 0
      pthread_mutex_unlock(mutex)
    }

    /// Waits until no helper is at work.
    func waitIdle() {
      pthread_mutex_lock(mutex)
      while working > 0 { pthread_cond_wait(idle, mutex) }
      pthread_mutex_unlock(mutex)
    }

    /// True when a helper may start (counted as at work).
    func enter() -> Bool {
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      guard working < ReleaseAside.most else { return false }
      working += 1
      return true
    }

    /// A helper is done.
    func leave() {
      pthread_mutex_lock(mutex)
      working -= 1
      if working == 0 { pthread_cond_broadcast(idle) }
      pthread_mutex_unlock(mutex)
    }
  }

  private static let gate = Gate()

  /// The `atexit` handler: waits for the helpers at work.
  private static let atExit: @convention(c) () -> Void = { ReleaseAside.gate.waitIdle() }
  /// The `pthread_atfork` handlers.
  private static let beforeFork: @convention(c) () -> Void = { ReleaseAside.gate.lock() }
  private static let afterForkInParent: @convention(c) () -> Void = { ReleaseAside.gate.unlock() }
  private static let afterForkInChild: @convention(c) () -> Void = { ReleaseAside.gate.forgetHelpers() }

  /// The helper's start routine: releases what it was given, then leaves the gate.
  private static let drop: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
    if let raw { Unmanaged<Held>.fromOpaque(raw).release() }
    ReleaseAside.gate.leave()
    return nil
  }
}
