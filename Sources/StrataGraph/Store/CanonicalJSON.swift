import CJansson
import Glibc
import Strata

/// The canonical JSON text of a value, as the graph store keeps keys and
/// bodies: compact (no spaces), object keys sorted by their UTF-8 bytes, reals
/// with 17 significant digits (jansson's `JSON_COMPACT | JSON_SORT_KEYS |
/// JSON_ENCODE_ANY`). Equal values give equal text whatever their key order,
/// and a number never equals a string: `5` is `5`, `"5"` is `"5"`.
package enum CanonicalJSON {
  /// How deep a stored value may nest (jansson's writer recurses).
  static let depthLimit = Nesting.documentLimit

  /// jansson flags of the canonical form.
  static let flags = Int(JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) | JSONText.JSON_REAL_PRECISION_17

  /// The canonical text of `value` (borrowed); `what` names it in errors.
  /// A value nested deeper than `depthLimit` is a `depth` error.
  /// With `sortKeys: false` (bodies, which are parsed back, never compared
  /// as text) object members keep their order, which is cheaper to write.
  package static func text(_ value: JPtr, what: String = "a value", sortKeys: Bool = true) throws(StrataError)
    -> String
  {
    if Nesting.exceeds(value, depthLimit) { throw Nesting.tooDeep(what, depthLimit) }
    if !sortKeys, let written = CompactJSONWriter.text(value) { return written }
    guard let dumped = json_dumps(value, sortKeys ? flags : flags & ~Int(JSON_SORT_KEYS)) else {
      throw StrataError(code: .argument, message: "cannot write \(what) as JSON text")
    }
    defer { free(dumped) }
    return String(cString: dumped)
  }

  /// Parses stored canonical text back into a value (a new reference). Text
  /// that does not parse means the file was changed behind the store's back:
  /// an `io` error naming `what`.
  package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, what: String) throws(StrataError) -> JPtr {
    switch JSONText.parseBytes(bytes) {
    case .success(let value): return value
    case .failure(let error):
      throw StrataError(
        code: .io, message: "\(what) is not valid JSON (the file is damaged): \(error.description)")
    }
  }
}
