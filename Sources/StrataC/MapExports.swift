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
    return finishOne(schema.mapValue(name, json), error)
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
    switch checkedBuffer(buffer, length) {
    case .success(let bytes):
      return finishOne(schema.mapBytes(name, bytes), error)
    case .failure(let failure):
      ErrorReporting.fail(failure, error)
      return nil
    }
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
    return finishMany(schema.mapValues(name, json), count, error)
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
    switch checkedBuffer(buffer, length) {
    case .success(let bytes):
      return finishMany(schema.mapManyBytes(name, bytes), count, error)
    case .failure(let failure):
      ErrorReporting.fail(failure, error)
      return nil
    }
  }
}

private func finishOne(_ result: Result<ModelObject, StrataError>, _ error: UnsafeMutableRawPointer?)
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

private func finishMany(
  _ result: Result<[ModelObject], StrataError>, _ count: UnsafeMutablePointer<Int>,
  _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  switch result {
  case .success(let objects):
    let bytes = max(objects.count, 1) * MemoryLayout<OpaquePointer?>.stride
    guard let raw = malloc(bytes) else {
      ErrorReporting.fail(.oom, "out of memory", error)
      return nil
    }
    let array = raw.bindMemory(to: OpaquePointer?.self, capacity: max(objects.count, 1))
    for (position, object) in objects.enumerated() {
      (array + position).initialize(to: Handles.retained(object))
    }
    count.pointee = objects.count
    ErrorReporting.succeed(error)
    return array
  case .failure(let failure):
    ErrorReporting.fail(failure, error)
    return nil
  }
}
