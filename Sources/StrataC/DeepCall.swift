import Strata

/// Runs the work of an export where the stack allows it: in place, or on a
/// helper thread when the calling thread's stack is too small for the
/// deepest values (see `DeepStack`). The error list a helper thread records
/// becomes the calling thread's, so `strata_errors()` reads it as usual.
@inline(__always) func deepCall<R>(_ body: () -> R) -> R {
  if DeepStack.hasRoom() { return body() }
  var handoff: ErrorReporting.Handoff? = nil
  let result = DeepStack.onHelper { () -> R in
    let value = body()
    handoff = ErrorReporting.takeHandoff()
    return value
  }
  if let handoff { ErrorReporting.adopt(handoff) }
  return result
}
