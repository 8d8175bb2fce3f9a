import CJansson
import Glibc
import Strata

// The one way from an engine `Result` to what a C function returns: on
// success the converted value and a cleared error, on failure the C
// failure value (NULL or -1) and the errors recorded for the thread
// (ErrorReporting). A conversion that cannot allocate is an `oom` error.

extension Result where Failure == StrataError {
  /// The C return of this outcome: `convert(value)` after a success (nil
  /// from it: out of memory, an `oom` error), `failed` after a failure;
  /// `error` (may be NULL) is filled either way.
  func toC<Out>(_ error: UnsafeMutableRawPointer?, failed: Out, _ convert: (Success) -> Out?) -> Out {
    switch self {
    case .failure(let failure):
      ErrorReporting.fail(failure, error)
      return failed
    case .success(let value):
      guard let out = convert(value) else {
        ErrorReporting.fail(.oom, "out of memory", error)
        return failed
      }
      ErrorReporting.succeed(error)
      return out
    }
  }
}

extension Result where Success == Void, Failure == StrataError {
  /// 0, or -1 with the errors.
  func toC(_ error: UnsafeMutableRawPointer?) -> Int32 { toC(error, failed: -1) { 0 } }
}

extension Result where Success == UnsafeMutablePointer<json_t>, Failure == StrataError {
  /// The value (a new reference), or NULL with the errors.
  func toC(_ error: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<json_t>? {
    toC(error, failed: nil) { $0 }
  }
}

extension Result where Success == ModelObject, Failure == StrataError {
  /// A new model reference, or NULL with the errors.
  func toC(_ error: UnsafeMutableRawPointer?) -> OpaquePointer? {
    toC(error, failed: nil) { Handles.retained($0) }
  }
}

extension Result where Success == Schema, Failure == StrataError {
  /// A new schema reference, or NULL with the errors.
  func toC(_ error: UnsafeMutableRawPointer?) -> OpaquePointer? {
    toC(error, failed: nil) { Handles.retained($0) }
  }
}

extension Result where Success == [ModelObject], Failure == StrataError {
  /// A malloc'd array of new model references (its length in `count`), or
  /// NULL with the errors.
  func toC(_ error: UnsafeMutableRawPointer?, count: UnsafeMutablePointer<Int>) -> UnsafeMutablePointer<
    OpaquePointer?
  >? {
    toC(error, failed: nil) { objects in
      guard let array = Handles.modelArray(objects) else { return nil }
      count.pointee = objects.count
      return array
    }
  }
}
