import CJansson
import Glibc
import Strata

/// Maps an API response (borrowed): the records at the model's root and the metadata.
@_cdecl("strata_map_response")
public func strata_map_response(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ response: UnsafeMutablePointer<json_t>?,
  _ options: UnsafeMutablePointer<json_t>?, _ count: UnsafeMutablePointer<Int>?,
  _ metadata: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  deepCall { () -> UnsafeMutablePointer<OpaquePointer?>? in
    count?.pointee = 0
    metadata?.pointee = nil
    guard let (schema, name, count) = responseArguments(schema, model, count, error) else { return nil }
    guard let response else {
      ErrorReporting.fail(.argument, "the JSON response is NULL", error)
      return nil
    }
    return mapResponse(schema, name, response, options, count, metadata, error)
  }
}

/// Maps an API response given as JSON text.
@_cdecl("strata_map_responseb")
public func strata_map_responseb(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ buffer: UnsafePointer<CChar>?, _ length: Int,
  _ options: UnsafeMutablePointer<json_t>?, _ count: UnsafeMutablePointer<Int>?,
  _ metadata: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  deepCall { () -> UnsafeMutablePointer<OpaquePointer?>? in
    count?.pointee = 0
    metadata?.pointee = nil
    guard let (schema, name, count) = responseArguments(schema, model, count, error) else { return nil }
    let mapped = checkedBuffer(buffer, length).flatMap { bytes in
      ResponseRequest.read(options).flatMap { schema.mapResponseBytes(name, bytes, $0) }
    }
    return handOver(mapped, count, metadata, error)
  }
}

private func responseArguments(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ count: UnsafeMutablePointer<Int>?,
  _ error: UnsafeMutableRawPointer?
) -> (Schema, String, UnsafeMutablePointer<Int>)? {
  guard let (schema, name) = Handles.schemaAndModel(schema, model, error) else { return nil }
  guard let count else {
    ErrorReporting.fail(.argument, "the count pointer is NULL", error)
    return nil
  }
  return (schema, name, count)
}

private func mapResponse(
  _ schema: Schema, _ name: String, _ response: UnsafeMutablePointer<json_t>,
  _ options: UnsafeMutablePointer<json_t>?, _ count: UnsafeMutablePointer<Int>,
  _ metadata: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  let mapped = ResponseRequest.read(options).flatMap { schema.mapResponseValue(name, response, $0) }
  return handOver(mapped, count, metadata, error)
}

/// The records of a mapped response as a new array, the metadata through
/// `metadata`; NULL after the errors.
private func handOver(
  _ result: Result<ResponseObjects, StrataError>, _ count: UnsafeMutablePointer<Int>,
  _ metadata: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  result.toC(error, failed: nil) { objects in
    guard let array = Handles.modelArray(objects.records) else { return nil }
    count.pointee = objects.records.count
    if let metadata, let object = objects.metadata { metadata.pointee = Handles.retained(object) }
    return array
  }
}
