import CJansson
import Glibc

/// Keeps recursion inside the calling thread's stack. Strata runs on threads
/// it does not own (a C host's workers may have 128 KiB stacks), so nesting is
/// bounded by the stack that is left, not only by `maxDepth`: when less than a
/// safety margin remains, mapping stops with a `depth` error instead of
/// overflowing the stack and killing the host.
enum StackGuard {
  /// The lowest stack address that recursion may use on this thread, or 0
  /// if unknown; computed once per thread and kept, plus one, in a C
  /// thread-local (`strata_thread_stack_limit`, 0 until computed): every
  /// call through the C API asks.
  static func limit() -> UInt {
    let slot = strata_thread_stack_limit()
    if slot.pointee != 0 { return UInt(slot.pointee) &- 1 }
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
    slot.pointee = CUnsignedLong(limit &+ 1)
    return limit
  }

  /// True when the current stack position is above `limit` (there is room
  /// to recurse). The position is the frame's address, not a local's: under
  /// AddressSanitizer a local may live on a heap "fake stack".
  @inline(__always) static func hasRoom(_ limit: UInt) -> Bool {
    UInt(strata_frame_address()) > limit
  }
}
