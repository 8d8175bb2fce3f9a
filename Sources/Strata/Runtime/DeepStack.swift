import Glibc

/// Runs work that recurses through models and JSON values on a stack large
/// enough for it.
///
/// Everything Strata stores nests at most `maxDepth` levels (JSON text is
/// parsed up to jansson's 2,048), so the stack any call can need is bounded.
/// A host's thread may have less than that left (musl's threads have 128
/// KiB; Go and JVM threads often 1 MiB): such a call runs on a helper thread
/// with a large stack while the calling thread waits, and gives the same
/// answer it gives anywhere else. Threads with room (the main thread and
/// glibc's default 8 MiB threads) run the work in place.
package enum DeepStack {
  /// The stack a call may use at most, with room to spare.
  package static let needed: UInt = 2 << 20
  /// The helper thread's stack: four times what a call needs, and small
  /// enough for glibc to keep in its cache of thread stacks (a fresh 64 MiB
  /// stack made each hop cost about 170 µs instead of about 30).
  package static let helperStack = 8 << 20

  /// True when the calling thread has `needed` bytes of stack left.
  @inline(__always) package static func hasRoom() -> Bool {
    let limit = StackGuard.limit()
    return limit == 0 || StackGuard.hasRoom(limit &+ needed)
  }

  /// `body()`, in place when the stack has room, else on a helper thread.
  @inline(__always) package static func run<R>(_ body: () -> R) -> R {
    if hasRoom() { return body() }
    return onHelper(body)
  }

  /// `body()` on a new thread with a `helperStack` stack; the caller waits.
  /// If no thread can be started, `body` runs in place (and the guards of
  /// mapping still turn a stack that runs out into `depth` errors).
  package static func onHelper<R>(_ body: () -> R) -> R {
    withoutActuallyEscaping(body) { escaping in
      var result: R? = nil
      if let thread = HelperThread.start({ result = escaping() }) {
        pthread_join(thread, nil)
      }
      guard let result else { return escaping() }
      return result
    }
  }
}
