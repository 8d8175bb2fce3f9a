import CJansson
import Glibc

/// Numbers outside jansson's range met by the byte parser in the values it
/// builds: an integer beyond 64 bits, or a real that overflows a double
/// (`1e400`). jansson refuses the whole text for either; the byte paths
/// (`strata_mapb`, `strata_map_manyb`, JSON lines) instead build a stand-in
/// value, note it here, and the mapper reports a `type` error at its path
/// (or, for a `double` property, reads an integer beyond 64 bits as the
/// nearest double). A stand-in that reaches anything else (a `json` value,
/// a transformer's input, kept keys) is never consumed, and the text then
/// goes to jansson, which refuses it as the DOM path does. Skipped values
/// are only checked for JSON's grammar, whatever their size.
///
/// The stand-ins are kept alive until the call ends, so their addresses
/// identify them.
package final class NumberMarkers {
  /// What a stand-in stands for.
  enum Kind {
    /// An integer beyond 64 bits, and the nearest double (finite).
    case integer(Double)
    /// An integer beyond 64 bits too large even for a double.
    case hugeInteger
    /// A real that overflows a double.
    case real
  }

  /// A noted stand-in: its kind and its text as written.
  struct Entry {
    let kind: Kind
    let text: String
  }

  private var entries: [JPtr: Entry] = [:]
  private var consumed: Set<JPtr> = []

  deinit {
    for value in entries.keys { JValue.release(value) }
  }

  /// True when nothing was noted.
  var isEmpty: Bool { entries.isEmpty }

  /// How many stand-ins were made so far.
  var count: Int { entries.count }

  /// True when the mapper consumed, as a scalar, every stand-in the value
  /// still holds. One held by nothing but this table was dropped while the
  /// value was built (a duplicate key whose last value wins): unread, so no
  /// error, as for any value a model does not read.
  var allConsumed: Bool {
    if consumed.count == entries.count { return true }
    for value in entries.keys where !consumed.contains(value) && value.pointee.refcount > 1 { return false }
    return true
  }

  /// The stand-in for the number written `text` (a new reference; this
  /// keeps one more until it is released).
  func make(_ text: UnsafeBufferPointer<UInt8>, integer: Bool) -> JPtr? {
    let written = String(decoding: text, as: UTF8.self)
    var nearest = Double.infinity
    if integer {
      nearest = written.withCString { strtod($0, nil) }
    }
    let value: JPtr?
    let kind: Kind
    if integer && nearest.isFinite {
      value = json_real(nearest)
      kind = .integer(nearest)
    } else {
      value = written.withCString { json_string($0) }
      kind = integer ? .hugeInteger : .real
    }
    guard let value else { return nil }
    entries[value] = Entry(kind: kind, text: written)
    return JValue.retain(value)
  }

  /// The entry of `value` if it is a stand-in, noting that the mapper read it.
  func consume(_ value: JPtr) -> Entry? {
    guard let entry = entries[value] else { return nil }
    consumed.insert(value)
    return entry
  }
}
