import Glibc

/// A thread started for one piece of a call's work, with a stack of
/// `DeepStack.helperStack`: what `DeepStack`, `Overlap` and `Parallel`
/// start their helpers with.
package enum HelperThread {
  /// Starts `work` on a new thread, to be joined with `pthread_join`; nil
  /// when no thread can be started (then `work` has not run, and the caller
  /// runs it in place).
  package static func start(_ work: @escaping () -> Void) -> pthread_t? {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Work(work)).toOpaque()
    guard pthread_attr_setstacksize(&attributes, DeepStack.helperStack) == 0,
      pthread_create(&thread, &attributes, run, context) == 0
    else {
      Unmanaged<Work>.fromOpaque(context).release()
      return nil
    }
    return thread
  }

  /// The work handed to a thread.
  private final class Work {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
  }

  /// The thread's start routine: runs its work (and releases it).
  private static let run: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
    if let raw { Unmanaged<Work>.fromOpaque(raw).takeRetainedValue().body() }
    return nil
  }
}
