import CJansson
import Glibc
import Strata

/// The library version as a C string made once from the header's
/// STRATA_VERSION (`strataVersion`), never freed nor changed (so safe to
/// share between threads).
nonisolated(unsafe) private let versionText: UnsafeMutablePointer<CChar>? = strdup(strataVersion)

/// The library's version, "MAJOR.MINOR.PATCH" (borrowed, static).
@_cdecl("strata_version")
public func strata_version() -> UnsafePointer<CChar>? {
  UnsafePointer(versionText)
}

/// Every error of the calling thread's most recent failed call (new reference), or NULL.
@_cdecl("strata_errors")
public func strata_errors() -> UnsafeMutablePointer<json_t>? {
  ErrorReporting.current()
}

/// Releases a json_t reference; NULL is ignored.
@_cdecl("strata_json_decref")
public func strata_json_decref(_ json: UnsafeMutablePointer<json_t>?) {
  deepCall { () -> Void in
    if let json { json_decref(json) }
  }
}

/// Compact JSON text of any value, freed with strata_free(); NULL for NULL.
@_cdecl("strata_json_dumps")
public func strata_json_dumps(_ json: UnsafePointer<json_t>?) -> UnsafeMutablePointer<CChar>? {
  deepCall { () -> UnsafeMutablePointer<CChar>? in
    guard let json else { return nil }
    let flags = Int(JSON_ENCODE_ANY | JSON_COMPACT) | ((17 & 0x1F) << 11)
    return json_dumps(json, flags)
  }
}

/// Parses JSON text (any value); a new reference or NULL with a syntax error.
@_cdecl("strata_json_loadb")
public func strata_json_loadb(
  _ buffer: UnsafePointer<CChar>?, _ length: Int, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    parseBuffer(buffer, length).toC(error)
  }
}

/// Frees memory the library handed over; NULL is ignored.
@_cdecl("strata_free")
public func strata_free(_ pointer: UnsafeMutableRawPointer?) {
  free(pointer)
}

/// The bytes of a C buffer, or an `argument` error for NULL or a negative length.
func checkedBuffer(_ buffer: UnsafePointer<CChar>?, _ length: Int) -> Result<
  UnsafeBufferPointer<UInt8>, StrataError
> {
  guard let buffer else {
    return .failure(StrataError([ErrorDetail(path: "", code: .argument, message: "the buffer is NULL")]))
  }
  guard length >= 0 else {
    return .failure(StrataError([ErrorDetail(path: "", code: .argument, message: "the length is negative")]))
  }
  return .success(
    UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: length))
}

/// Parses a C buffer of JSON text (a new reference), checked as `checkedBuffer` checks it.
func parseBuffer(_ buffer: UnsafePointer<CChar>?, _ length: Int) -> Result<
  UnsafeMutablePointer<json_t>, StrataError
> {
  checkedBuffer(buffer, length).flatMap { JSONText.parse($0) }
}
