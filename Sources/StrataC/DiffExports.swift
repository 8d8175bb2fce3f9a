import CJansson
import Strata

/// The RFC 6902 JSON Patch from `a` to `b` (new reference), or NULL.
@_cdecl("strata_model_diff")
public func strata_model_diff(
  _ a: OpaquePointer?, _ b: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let (left, right) = pair(a, b, error) else { return nil }
    return finishJSON(ModelDiff.jsonPatch(left, right), error)
  }
}

/// The lifted merge patch from `a` to `b` (new reference), or NULL.
@_cdecl("strata_model_diff_merge")
public func strata_model_diff_merge(
  _ a: OpaquePointer?, _ b: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let (left, right) = pair(a, b, error) else { return nil }
    return finishJSON(ModelDiff.mergePatch(left, right), error)
  }
}

/// A new model: `model` with a JSON Patch (borrowed) applied, or NULL.
@_cdecl("strata_model_patch")
public func strata_model_patch(
  _ model: OpaquePointer?, _ patch: UnsafeMutablePointer<json_t>?, _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let (object, patch) = patchArguments(model, patch, error) else { return nil }
    return finishModel(ModelDiff.patched(object, patch), error)
  }
}

/// A new model: `model` with a lifted merge patch (borrowed) applied, or NULL.
@_cdecl("strata_model_merge_patch")
public func strata_model_merge_patch(
  _ model: OpaquePointer?, _ patch: UnsafeMutablePointer<json_t>?, _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let (object, patch) = patchArguments(model, patch, error) else { return nil }
    return finishModel(ModelDiff.mergePatched(object, patch), error)
  }
}

private func pair(
  _ a: OpaquePointer?, _ b: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> (ModelObject, ModelObject)? {
  guard let left = Handles.model(a), let right = Handles.model(b) else {
    ErrorReporting.fail(.argument, "a model is NULL", error)
    return nil
  }
  return (left, right)
}

private func patchArguments(
  _ model: OpaquePointer?, _ patch: UnsafeMutablePointer<json_t>?, _ error: UnsafeMutableRawPointer?
) -> (ModelObject, UnsafeMutablePointer<json_t>)? {
  guard let object = Handles.model(model) else {
    ErrorReporting.fail(.argument, "the model is NULL", error)
    return nil
  }
  guard let patch else {
    ErrorReporting.fail(.argument, "the patch is NULL", error)
    return nil
  }
  return (object, patch)
}

/// Hands a JSON result to C: the value, or NULL with the errors.
func finishJSON(
  _ result: Result<UnsafeMutablePointer<json_t>, StrataError>, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  switch result {
  case .success(let value):
    ErrorReporting.succeed(error)
    return value
  case .failure(let failure):
    ErrorReporting.fail(failure, error)
    return nil
  }
}

/// Hands the outcome of a call that returns nothing to C: 0, or -1 with the errors.
func finishStatus(_ result: Result<Void, StrataError>, _ error: UnsafeMutableRawPointer?) -> Int32 {
  switch result {
  case .success:
    ErrorReporting.succeed(error)
    return 0
  case .failure(let failure):
    ErrorReporting.fail(failure, error)
    return -1
  }
}

/// Hands a new model to C: a new reference, or NULL with the errors.
func finishModel(_ result: Result<ModelObject, StrataError>, _ error: UnsafeMutableRawPointer?)
  -> OpaquePointer?
{
  switch result {
  case .success(let object):
    ErrorReporting.succeed(error)
    return Handles.retained(object)
  case .failure(let failure):
    ErrorReporting.fail(failure, error)
    return nil
  }
}
