import CJansson
import Glibc

/// Keeps recursion inside the calling thread's stack. Strata runs on threads
/// it does not own (a C host's workers may have 128 KiB stacks), so nesting is
/// bounded by the stack that is left, not only by `maxDepth`: when less than a
/// safety margin remains, mapping stops with a `depth` error instead of
/// overflowing the stack and killing the host.
enum StackGuard {
  /// The per-thread lowest address recursion may reach (the stack's end plus
  /// the margin), computed once per thread.
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    _ = pthread_key_create(&key, nil)
    return key
  }()

  /// The lowest stack address that recursion may use on this thread, or 0 if unknown.
  static func limit() -> UInt {
    if let cached = pthread_getspecific(key) { return UInt(bitPattern: cached) }
    var attributes = pthread_attr_t()
    var limit: UInt = 0
    if pthread_getattr_np(pthread_self(), &attributes) == 0 {
      var base: UnsafeMutableRawPointer? = nil
      var size = 0
      if pthread_attr_getstack(&attributes, &base, &size) == 0, let base {
        // Keep a quarter of a small stack, or 64 KiB of a large one, in reserve.
        let margin = UInt(min(size / 4, 64 * 1024))
        limit = UInt(bitPattern: base) &+ margin
      }
      pthread_attr_destroy(&attributes)
    }
    _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: limit))
    return limit
  }

  /// True when the current stack position is above `limit` (there is room
  /// to recurse). The position is the frame's address, not a local's: under
  /// AddressSanitizer a local may live on a heap "fake stack".
  @inline(__always) static func hasRoom(_ limit: UInt) -> Bool {
    UInt(strata_frame_address()) > limit
  }
}
