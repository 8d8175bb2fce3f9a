import Glibc
import Strata

/// C handles are retained Swift objects: `strata_schema_t *` is a `Schema`,
/// `strata_model_t *` a `ModelObject`; incref/decref are retain/release.
enum Handles {
  static func schema(_ handle: OpaquePointer?) -> Schema? {
    guard let handle else { return nil }
    return Unmanaged<Schema>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
  }

  static func model(_ handle: OpaquePointer?) -> ModelObject? {
    guard let handle else { return nil }
    return Unmanaged<ModelObject>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
  }

  /// A new reference handle for a schema.
  static func retained(_ schema: Schema) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(schema).toOpaque())
  }

  /// A new reference handle for a model.
  static func retained(_ model: ModelObject) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(model).toOpaque())
  }

  /// A Swift string from a C string argument.
  static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    return String(cString: pointer)
  }

  /// The schema and model name arguments of a call, or nil after an
  /// `argument` error naming the one that is NULL.
  static func schemaAndModel(
    _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ error: UnsafeMutableRawPointer?
  ) -> (Schema, String)? {
    guard let schema = Handles.schema(schema) else {
      ErrorReporting.fail(.argument, "the schema is NULL", error)
      return nil
    }
    guard let name = Handles.string(model) else {
      ErrorReporting.fail(.argument, "the model name is NULL", error)
      return nil
    }
    return (schema, name)
  }

  /// A malloc'd array of new model references (one NULL slot when empty), or nil.
  static func modelArray(_ objects: [ModelObject]) -> UnsafeMutablePointer<OpaquePointer?>? {
    let capacity = max(objects.count, 1)
    guard let raw = malloc(capacity * MemoryLayout<OpaquePointer?>.stride) else { return nil }
    let array = raw.bindMemory(to: OpaquePointer?.self, capacity: capacity)
    for (position, object) in objects.enumerated() { (array + position).initialize(to: retained(object)) }
    if objects.isEmpty { array.initialize(to: nil) }
    return array
  }
}
