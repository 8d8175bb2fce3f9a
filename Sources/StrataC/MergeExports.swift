import CJansson
import Strata

/// Merges `other` into `model` in place; 0 on success, -1 on error.
@_cdecl("strata_model_merge")
public func strata_model_merge(
  _ model: OpaquePointer?, _ other: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> Int32 {
  deepCall { () -> Int32 in
    guard let target = Handles.model(model), let source = Handles.model(other) else {
      ErrorReporting.fail(.argument, "the model or the other model is NULL", error)
      return -1
    }
    guard target.schema === source.schema else {
      ErrorReporting.fail(.argument, "the two models belong to different schemas", error)
      return -1
    }
    return target.merge(source).toC(error)
  }
}

/// Updates `model` in place from a JSON object (borrowed); 0 on success, -1 on error.
@_cdecl("strata_model_update")
public func strata_model_update(
  _ model: OpaquePointer?, _ json: UnsafeMutablePointer<json_t>?, _ error: UnsafeMutableRawPointer?
) -> Int32 {
  deepCall { () -> Int32 in
    guard let target = Handles.model(model) else {
      ErrorReporting.fail(.argument, "the model is NULL", error)
      return -1
    }
    guard let json else {
      ErrorReporting.fail(.argument, "the JSON input is NULL", error)
      return -1
    }
    return target.update(json).toC(error)
  }
}

/// Updates `model` in place from JSON text; 0 on success, -1 on error.
@_cdecl("strata_model_updateb")
public func strata_model_updateb(
  _ model: OpaquePointer?, _ buffer: UnsafePointer<CChar>?, _ length: Int, _ error: UnsafeMutableRawPointer?
) -> Int32 {
  deepCall { () -> Int32 in
    guard let target = Handles.model(model) else {
      ErrorReporting.fail(.argument, "the model is NULL", error)
      return -1
    }
    return parseBuffer(buffer, length).flatMap { json in
      defer { json_decref(json) }
      return target.update(json)
    }.toC(error)
  }
}
