import CJansson
import Strata

/// The archive of a model (new reference), or NULL.
@_cdecl("strata_model_archive")
public func strata_model_archive(
  _ model: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let object = Handles.model(model) else {
      ErrorReporting.fail(.argument, "the model is NULL", error)
      return nil
    }
    guard let archive = Archive.make(object) else {
      ErrorReporting.fail(.oom, "out of memory", error)
      return nil
    }
    ErrorReporting.succeed(error)
    return archive
  }
}

/// Restores a model from an archive (borrowed), or NULL.
@_cdecl("strata_unarchive")
public func strata_unarchive(
  _ schema: OpaquePointer?, _ archive: UnsafeMutablePointer<json_t>?, _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let schema = Handles.schema(schema) else {
      ErrorReporting.fail(.argument, "the schema is NULL", error)
      return nil
    }
    guard let archive else {
      ErrorReporting.fail(.argument, "the archive is NULL", error)
      return nil
    }
    return Archive.restore(schema, archive).toC(error)
  }
}

/// Restores a model from the JSON text of an archive, or NULL.
@_cdecl("strata_unarchiveb")
public func strata_unarchiveb(
  _ schema: OpaquePointer?, _ buffer: UnsafePointer<CChar>?, _ length: Int, _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let schema = Handles.schema(schema) else {
      ErrorReporting.fail(.argument, "the schema is NULL", error)
      return nil
    }
    return parseBuffer(buffer, length).flatMap { archive in
      defer { json_decref(archive) }
      return Archive.restore(schema, archive)
    }.toC(error)
  }
}

/// The changes from one schema to another that matter to old data (new reference), or NULL.
@_cdecl("strata_schema_compare")
public func strata_schema_compare(
  _ oldSchema: OpaquePointer?, _ newSchema: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let old = Handles.schema(oldSchema), let new = Handles.schema(newSchema) else {
      ErrorReporting.fail(.argument, "a schema is NULL", error)
      return nil
    }
    guard let changes = SchemaCompatibility(old: old, new: new).json() else {
      ErrorReporting.fail(.oom, "out of memory", error)
      return nil
    }
    ErrorReporting.succeed(error)
    return changes
  }
}
