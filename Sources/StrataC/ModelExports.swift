import CJansson
import Strata

/// Adds a reference to a model.
@_cdecl("strata_model_incref")
public func strata_model_incref(_ model: OpaquePointer?) -> OpaquePointer? {
  guard let model else { return nil }
  _ = Unmanaged<ModelObject>.fromOpaque(UnsafeRawPointer(model)).retain()
  return model
}

/// Releases a reference to a model.
@_cdecl("strata_model_decref")
public func strata_model_decref(_ model: OpaquePointer?) {
  deepCall { () -> Void in
    guard let model else { return }
    Unmanaged<ModelObject>.fromOpaque(UnsafeRawPointer(model)).release()
  }
}

/// The model's name (borrowed), or NULL.
@_cdecl("strata_model_name")
public func strata_model_name(_ model: OpaquePointer?) -> UnsafePointer<CChar>? {
  guard let object = Handles.model(model) else { return nil }
  return UnsafePointer(object.type.cName)
}

/// The model's schema (borrowed), or NULL.
@_cdecl("strata_model_schema")
public func strata_model_schema(_ model: OpaquePointer?) -> OpaquePointer? {
  guard let object = Handles.model(model) else { return nil }
  return OpaquePointer(Unmanaged.passUnretained(object.schema).toOpaque())
}

/// 1 when the property holds a value or null, 0 when absent, -1 on error.
@_cdecl("strata_model_has")
public func strata_model_has(
  _ model: OpaquePointer?, _ property: UnsafePointer<CChar>?, _ error: UnsafeMutableRawPointer?
) -> Int32 {
  guard let (object, name) = propertyArguments(model, property, error) else { return -1 }
  guard let state = object.state(name) else {
    ErrorReporting.fail(
      .argument, "model '\(object.name)' has no property '\(name)'" + object.propertyHint(name), error)
    return -1
  }
  ErrorReporting.succeed(error)
  return Int32(state)
}

/// The canonical value of a property (new reference), NULL when absent or on error.
@_cdecl("strata_model_get")
public func strata_model_get(
  _ model: OpaquePointer?, _ property: UnsafePointer<CChar>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let (object, name) = propertyArguments(model, property, error) else { return nil }
    guard object.state(name) != nil else {
      ErrorReporting.fail(
        .argument, "model '\(object.name)' has no property '\(name)'" + object.propertyHint(name), error)
      return nil
    }
    // a value kept without jansson (an integer, text) is made now, which can fail
    guard let value = object.canonicalValue(name) else {
      if object.state(name) == 1 {
        ErrorReporting.fail(.oom, "out of memory", error)
      } else {
        ErrorReporting.succeed(error)
      }
      return nil
    }
    ErrorReporting.succeed(error)
    return value
  }
}

/// A date property's instant: 1 with seconds/nanoseconds, 0 absent or null, -1 on error.
@_cdecl("strata_model_get_date")
public func strata_model_get_date(
  _ model: OpaquePointer?, _ property: UnsafePointer<CChar>?, _ seconds: UnsafeMutablePointer<Int64>?,
  _ nanoseconds: UnsafeMutablePointer<Int32>?, _ error: UnsafeMutableRawPointer?
) -> Int32 {
  guard let (object, name) = propertyArguments(model, property, error) else { return -1 }
  guard let seconds, let nanoseconds else {
    ErrorReporting.fail(.argument, "the seconds or nanoseconds pointer is NULL", error)
    return -1
  }
  return object.dateValue(name).toC(error, failed: -1) { value in
    guard let value else { return 0 }
    seconds.pointee = value.seconds
    nanoseconds.pointee = value.nanoseconds
    return 1
  }
}

/// The canonical dictionary (new reference).
@_cdecl("strata_model_dictionary")
public func strata_model_dictionary(
  _ model: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let object = Handles.model(model) else {
      ErrorReporting.fail(.argument, "the model is NULL", error)
      return nil
    }
    ErrorReporting.succeed(error)
    return object.dictionary()
  }
}

/// The model serialized back to JSON (new reference).
@_cdecl("strata_model_to_json")
public func strata_model_to_json(
  _ model: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let object = Handles.model(model) else {
      ErrorReporting.fail(.argument, "the model is NULL", error)
      return nil
    }
    return object.serialized().toC(error)
  }
}

/// 1 when equal, 0 when not.
@_cdecl("strata_model_equal")
public func strata_model_equal(_ a: OpaquePointer?, _ b: OpaquePointer?) -> Int32 {
  deepCall { () -> Int32 in
    switch (Handles.model(a), Handles.model(b)) {
    case (nil, nil): return 1
    case (let x?, let y?): return x.isEqual(to: y) ? 1 : 0
    default: return 0
    }
  }
}

/// A hash consistent with strata_model_equal (0 for NULL).
@_cdecl("strata_model_hash")
public func strata_model_hash(_ model: OpaquePointer?) -> UInt64 {
  deepCall { () -> UInt64 in
    Handles.model(model)?.hash64 ?? 0
  }
}

/// A deep copy (new reference), or NULL.
@_cdecl("strata_model_copy")
public func strata_model_copy(_ model: OpaquePointer?) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let object = Handles.model(model) else { return nil }
    return Handles.retained(object.copy())
  }
}

private func propertyArguments(
  _ model: OpaquePointer?, _ property: UnsafePointer<CChar>?, _ error: UnsafeMutableRawPointer?
) -> (ModelObject, String)? {
  guard let object = Handles.model(model) else {
    ErrorReporting.fail(.argument, "the model is NULL", error)
    return nil
  }
  guard let name = Handles.string(property) else {
    ErrorReporting.fail(.argument, "the property name is NULL", error)
    return nil
  }
  return (object, name)
}
