import CJansson
import Strata

/// The RFC 6902 JSON Patch from `a` to `b` (new reference), or NULL.
@_cdecl("strata_model_diff")
public func strata_model_diff(
  _ a: OpaquePointer?, _ b: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let (left, right) = pair(a, b, error) else { return nil }
    return ModelDiff.jsonPatch(left, right).toC(error)
  }
}

/// The lifted merge patch from `a` to `b` (new reference), or NULL.
@_cdecl("strata_model_diff_merge")
public func strata_model_diff_merge(
  _ a: OpaquePointer?, _ b: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let (left, right) = pair(a, b, error) else { return nil }
    return ModelDiff.mergePatch(left, right).toC(error)
  }
}

/// A new model: `model` with a JSON Patch (borrowed) applied, or NULL.
@_cdecl("strata_model_patch")
public func strata_model_patch(
  _ model: OpaquePointer?, _ patch: UnsafeMutablePointer<json_t>?, _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let (object, patch) = patchArguments(model, patch, error) else { return nil }
    return ModelDiff.patched(object, patch).toC(error)
  }
}

/// A new model: `model` with a lifted merge patch (borrowed) applied, or NULL.
@_cdecl("strata_model_merge_patch")
public func strata_model_merge_patch(
  _ model: OpaquePointer?, _ patch: UnsafeMutablePointer<json_t>?, _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let (object, patch) = patchArguments(model, patch, error) else { return nil }
    return ModelDiff.mergePatched(object, patch).toC(error)
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
