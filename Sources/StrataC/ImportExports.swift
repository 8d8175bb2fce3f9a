import CJansson
import Glibc
import Strata
import StrataGraph

// The four import calls: with or without the response's metadata, from a
// json_t or from UTF-8 text. One body (importInto) reads the options, runs
// the import and hands over the records, the report and the metadata.

/// Imports the records of `model` in `data` (borrowed).
@_cdecl("strata_context_import")
public func strata_context_import(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ data: UnsafeMutablePointer<json_t>?,
  _ options: UnsafeMutablePointer<json_t>?, _ keep: KeepCallback?, _ payload: UnsafeMutableRawPointer?,
  _ count: UnsafeMutablePointer<Int>?, _ report: UnsafeMutablePointer<UnsafeMutablePointer<json_t>?>?,
  _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  strata_context_import_response(context, model, data, options, keep, payload, count, nil, report, error)
}

/// Imports the records of `model` in JSON text.
@_cdecl("strata_context_importb")
public func strata_context_importb(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ buffer: UnsafePointer<CChar>?, _ length: Int,
  _ options: UnsafeMutablePointer<json_t>?, _ keep: KeepCallback?, _ payload: UnsafeMutableRawPointer?,
  _ count: UnsafeMutablePointer<Int>?, _ report: UnsafeMutablePointer<UnsafeMutablePointer<json_t>?>?,
  _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  strata_context_import_responseb(
    context, model, buffer, length, options, keep, payload, count, nil, report, error)
}

/// Imports the records of `model` in `data` (borrowed) and hands over the
/// response's metadata (a new reference, or NULL) as well.
@_cdecl("strata_context_import_response")
public func strata_context_import_response(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ data: UnsafeMutablePointer<json_t>?,
  _ options: UnsafeMutablePointer<json_t>?, _ keep: KeepCallback?, _ payload: UnsafeMutableRawPointer?,
  _ count: UnsafeMutablePointer<Int>?, _ metadata: UnsafeMutablePointer<OpaquePointer?>?,
  _ report: UnsafeMutablePointer<UnsafeMutablePointer<json_t>?>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  deepCall { () -> UnsafeMutablePointer<OpaquePointer?>? in
    let out = ImportOutputs(count: count, metadata: metadata, report: report)
    guard let data else {
      ErrorReporting.fail(.argument, "the JSON input is NULL", error)
      return nil
    }
    return importInto(context, model, options, keep, payload, out, error) { engine, name, request in
      engine.importValue(name, data, request)
    }
  }
}

/// Imports the records of `model` in JSON text and hands over the
/// response's metadata (a new reference, or NULL) as well.
@_cdecl("strata_context_import_responseb")
public func strata_context_import_responseb(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ buffer: UnsafePointer<CChar>?, _ length: Int,
  _ options: UnsafeMutablePointer<json_t>?, _ keep: KeepCallback?, _ payload: UnsafeMutableRawPointer?,
  _ count: UnsafeMutablePointer<Int>?, _ metadata: UnsafeMutablePointer<OpaquePointer?>?,
  _ report: UnsafeMutablePointer<UnsafeMutablePointer<json_t>?>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  deepCall { () -> UnsafeMutablePointer<OpaquePointer?>? in
    let out = ImportOutputs(count: count, metadata: metadata, report: report)
    return importInto(context, model, options, keep, payload, out, error) { engine, name, request in
      checkedBuffer(buffer, length).flatMap { engine.importBytes(name, $0, request) }
    }
  }
}

/// The out parameters of an import call, cleared when made (so every
/// failure leaves them 0 and NULL).
private struct ImportOutputs {
  let count: UnsafeMutablePointer<Int>?
  let metadata: UnsafeMutablePointer<OpaquePointer?>?
  let report: UnsafeMutablePointer<UnsafeMutablePointer<json_t>?>?

  init(
    count: UnsafeMutablePointer<Int>?, metadata: UnsafeMutablePointer<OpaquePointer?>?,
    report: UnsafeMutablePointer<UnsafeMutablePointer<json_t>?>?
  ) {
    self.count = count
    self.metadata = metadata
    self.report = report
    count?.pointee = 0
    metadata?.pointee = nil
    report?.pointee = nil
  }
}

private func importInto(
  _ handle: OpaquePointer?, _ model: UnsafePointer<CChar>?,
  _ options: UnsafeMutablePointer<json_t>?, _ keep: KeepCallback?, _ payload: UnsafeMutableRawPointer?,
  _ out: ImportOutputs, _ error: UnsafeMutableRawPointer?,
  _ run: (GraphContext, String, ImportRequest) -> Result<ImportOutcome, StrataError>
) -> UnsafeMutablePointer<OpaquePointer?>? {
  guard let context = Handles.context(handle) else {
    ErrorReporting.fail(.argument, "the context is NULL", error)
    return nil
  }
  guard let name = Handles.string(model) else {
    ErrorReporting.fail(.argument, "the model name is NULL", error)
    return nil
  }
  guard let count = out.count else {
    ErrorReporting.fail(.argument, "the count pointer is NULL", error)
    return nil
  }
  let payloadBits = payload.map { UInt(bitPattern: $0) }
  let keeper: ((ModelObject) -> Bool)? = keep.map { callback in
    { object in
      let handle = OpaquePointer(Unmanaged.passUnretained(object).toOpaque())
      return callback(handle, payloadBits.flatMap { UnsafeMutableRawPointer(bitPattern: $0) }) != 0
    }
  }
  let outcome = ImportRequest.read(options, keep: keeper).flatMap { run(context, name, $0) }
  return outcome.toC(error, failed: nil) { outcome in
    guard let array = Handles.modelArray(outcome.records) else { return nil }
    count.pointee = outcome.records.count
    out.report?.pointee = outcome.report()
    out.metadata?.pointee = outcome.metadata.map { Handles.retained($0) }
    return array
  }
}
