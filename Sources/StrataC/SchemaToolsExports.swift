import CJansson
import Glibc
import Strata

// The schema tools of the header's "Schema tools" section: JSON Schema,
// class diagrams, typed Python classes (docs/tools.md, docs/codegen.md).

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
      ErrorReporting.fail(.oom, "out of memory", error)
      return nil
    }
    ErrorReporting.succeed(error)
    return copy
  }
}

/// The JSON Schema (draft 2020-12) of a model's API JSON or canonical dictionary (new reference), or NULL.
@_cdecl("strata_schema_json_schema")
public func strata_schema_json_schema(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ canonical: Int32,
  _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  let report = error
  return deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let (schema, name) = Handles.schemaAndModel(schema, model, report) else { return nil }
    do throws(StrataError) {
      guard let out = try schema.jsonSchema(for: name, canonical: canonical != 0).makeJansson() else {
        ErrorReporting.fail(.oom, "out of memory", report)
        return nil
      }
      ErrorReporting.succeed(report)
      return out
    } catch {
      ErrorReporting.fail(error, report)
      return nil
    }
  }
}

/// A class diagram of the schema's models ("mermaid" or "dot"), freed with strata_free(), or NULL.
@_cdecl("strata_schema_diagram")
public func strata_schema_diagram(
  _ schema: OpaquePointer?, _ format: UnsafePointer<CChar>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<CChar>? {
  deepCall { () -> UnsafeMutablePointer<CChar>? in
    guard let schema = Handles.schema(schema) else {
      ErrorReporting.fail(.argument, "the schema is NULL", error)
      return nil
    }
    guard let name = Handles.string(format) else {
      ErrorReporting.fail(.argument, "the diagram format is NULL", error)
      return nil
    }
    guard let kind = DiagramFormat(rawValue: name) else {
      ErrorReporting.fail(.argument, "unknown diagram format '\(name)': expected mermaid or dot", error)
      return nil
    }
    guard let text = strdup(schema.diagram(kind)) else {
      ErrorReporting.fail(.oom, "out of memory", error)
      return nil
    }
    ErrorReporting.succeed(error)
    return text
  }
}
