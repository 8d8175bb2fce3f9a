import Glibc

/// Freeing a large structure on a helper thread, so that the call that let
/// it go (closing a graph of a million allocations) returns at once.
///
/// What is handed over must be reachable from nowhere else but through
/// references the runtime counts atomically (Swift objects, jansson values):
/// the helper only drops them. The process waits for every helper at exit
/// (`atexit`), so leak checkers see everything freed; a child made by
/// `fork` starts with none pending (the helpers are not in it).
package enum Teardown {
  /// Drops `value` on a helper thread (a stack of `DeepStack.helperStack`,
  /// since freeing nested models recurses). In place when no thread can be
  /// started.
  package static func release<T>(_ value: consuming T) {
    let box = Box<T>(value)
    pthread_mutex_lock(state.mutex)
    state.pending += 1
    pthread_mutex_unlock(state.mutex)
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let context = Unmanaged.passRetained(box as Releasable).toOpaque()
    let started =
      pthread_attr_setstacksize(&attributes, DeepStack.helperStack) == 0
      && pthread_create(&thread, &attributes, run, context) == 0
    if !started {
      Unmanaged<Releasable>.fromOpaque(context).takeRetainedValue().drop()
    }
  }

  /// Waits until every helper started so far has finished.
  package static func waitForAll() {
    pthread_mutex_lock(state.mutex)
    while state.pending > 0 { pthread_cond_wait(state.done, state.mutex) }
    pthread_mutex_unlock(state.mutex)
  }

  /// The count of helpers still freeing, and its lock. Made on first use,
  /// which also registers the wait at exit and the reset after `fork`.
  private final class State: @unchecked Sendable {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    let done = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    var pending = 0

    init() {
      pthread_mutex_init(mutex, nil)
      pthread_cond_init(done, nil)
      atexit { Teardown.waitForAll() }
      pthread_atfork(nil, nil) { Teardown.resetInChild() }
    }
  }

  private static let state = State()

  /// After `fork`, in the child: no helper runs there, whatever the parent had.
  private static func resetInChild() {
    pthread_mutex_init(state.mutex, nil)
    pthread_cond_init(state.done, nil)
    state.pending = 0
  }

  /// Something a helper drops.
  private class Releasable {
    func drop() {}
  }

  /// The value handed over; dropping the box frees it.
  private final class Box<T>: Releasable {
    var value: T?
    init(_ value: consuming T) { self.value = value }
    override func drop() {
      value = nil
      pthread_mutex_lock(Teardown.state.mutex)
      Teardown.state.pending -= 1
      if Teardown.state.pending == 0 { pthread_cond_broadcast(Teardown.state.done) }
      pthread_mutex_unlock(Teardown.state.mutex)
    }
  }

  /// The helper's start routine.
  private static let run: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
    if let raw { Unmanaged<Releasable>.fromOpaque(raw).takeRetainedValue().drop() }
    return nil
  }
}
