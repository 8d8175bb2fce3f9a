import CJansson
import Glibc
import Strata

/// Maps a JSON value (borrowed) onto a new model.
@_cdecl("strata_map")
public func strata_map(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ json: UnsafeMutablePointer<json_t>?,
  _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let (schema, name) = Handles.schemaAndModel(schema, model, error) else { return nil }
    guard let json else {
      ErrorReporting.fail(.argument, "the JSON input is NULL", error)
      return nil
    }
    return schema.mapValue(name, json).toC(error)
  }
}

/// Maps JSON text onto a new model.
@_cdecl("strata_mapb")
public func strata_mapb(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ buffer: UnsafePointer<CChar>?, _ length: Int,
  _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let (schema, name) = Handles.schemaAndModel(schema, model, error) else { return nil }
    return checkedBuffer(buffer, length).flatMap { bytes in
      return schema.mapBytes(name, bytes)
    }.toC(error)
  }
}

/// Maps every element of a JSON array (borrowed) onto new models.
@_cdecl("strata_map_many")
public func strata_map_many(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ json: UnsafeMutablePointer<json_t>?,
  _ count: UnsafeMutablePointer<Int>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  deepCall { () -> UnsafeMutablePointer<OpaquePointer?>? in
    count?.pointee = 0
    guard let (schema, name) = Handles.schemaAndModel(schema, model, error) else { return nil }
    guard let count else {
      ErrorReporting.fail(.argument, "the count pointer is NULL", error)
      return nil
    }
    guard let json else {
      ErrorReporting.fail(.argument, "the JSON input is NULL", error)
      return nil
    }
    return schema.mapValues(name, json).toC(error, count: count)
  }
}

/// Maps JSON text holding an array onto new models.
@_cdecl("strata_map_manyb")
public func strata_map_manyb(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ buffer: UnsafePointer<CChar>?, _ length: Int,
  _ count: UnsafeMutablePointer<Int>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  deepCall { () -> UnsafeMutablePointer<OpaquePointer?>? in
    count?.pointee = 0
    guard let (schema, name) = Handles.schemaAndModel(schema, model, error) else { return nil }
    guard let count else {
      ErrorReporting.fail(.argument, "the count pointer is NULL", error)
      return nil
    }
    return checkedBuffer(buffer, length).flatMap { bytes in
      return schema.mapManyBytes(name, bytes)
    }.toC(error, count: count)
  }
}
