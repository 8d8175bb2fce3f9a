import Glibc
import Strata

/// Python source of typed classes for the schema's models, freed with strata_free(), or NULL.
@_cdecl("strata_schema_codegen_python")
public func strata_schema_codegen_python(
  _ schema: OpaquePointer?, _ document: UnsafePointer<CChar>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<CChar>? {
  deepCall { () -> UnsafeMutablePointer<CChar>? in
    guard let schema = Handles.schema(schema) else {
      ErrorReporting.fail(.argument, "the schema is NULL", error)
      return nil
    }
    let text = schema.pythonModule(document: document.map { String(cString: $0) })
    guard let copy = strdup(text) else {
      ErrorReporting.fail(.argument, "out of memory", error)
      return nil
    }
    ErrorReporting.succeed(error)
    return copy
  }
}
