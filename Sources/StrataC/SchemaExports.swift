import CJansson
import Glibc
import Strata

/// Loads and checks a schema from a JSON document (borrowed).
@_cdecl("strata_schema_load")
public func strata_schema_load(
  _ doc: UnsafeMutablePointer<json_t>?, _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let doc else {
      ErrorReporting.fail(.argument, "the schema document is NULL", error)
      return nil
    }
    return Schema.load(doc).toC(error)
  }
}

/// Loads a schema from JSON text.
@_cdecl("strata_schema_loadb")
public func strata_schema_loadb(
  _ buffer: UnsafePointer<CChar>?, _ length: Int, _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    return parseBuffer(buffer, length).flatMap { doc in
      defer { json_decref(doc) }
      return Schema.load(doc)
    }.toC(error)
  }
}

/// Loads a schema from a file.
@_cdecl("strata_schema_load_file")
public func strata_schema_load_file(
  _ path: UnsafePointer<CChar>?, _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let path = Handles.string(path) else {
      ErrorReporting.fail(.argument, "the path is NULL", error)
      return nil
    }
    return Schema.readFile(path).flatMap { doc in
      defer { json_decref(doc) }
      return Schema.load(doc)
    }.toC(error)
  }
}

/// Adds a reference to a schema.
@_cdecl("strata_schema_incref")
public func strata_schema_incref(_ schema: OpaquePointer?) -> OpaquePointer? {
  guard let schema else { return nil }
  _ = Unmanaged<Schema>.fromOpaque(UnsafeRawPointer(schema)).retain()
  return schema
}

/// Releases a reference to a schema.
@_cdecl("strata_schema_decref")
public func strata_schema_decref(_ schema: OpaquePointer?) {
  deepCall { () -> Void in
    guard let schema else { return }
    Unmanaged<Schema>.fromOpaque(UnsafeRawPointer(schema)).release()
  }
}

/// The schema's version, or -1 for NULL.
@_cdecl("strata_schema_version")
public func strata_schema_version(_ schema: OpaquePointer?) -> Int64 {
  Handles.schema(schema)?.version ?? -1
}

/// The number of models.
@_cdecl("strata_schema_model_count")
public func strata_schema_model_count(_ schema: OpaquePointer?) -> Int {
  Handles.schema(schema)?.modelNames.count ?? 0
}

/// The name of the model at `index` (borrowed), or NULL.
@_cdecl("strata_schema_model_name")
public func strata_schema_model_name(_ schema: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
  guard let schema = Handles.schema(schema) else { return nil }
  return UnsafePointer(schema.modelCName(index))
}
