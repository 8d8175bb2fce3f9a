import CJansson
import Glibc
import Strata

/// Writes a jansson value as the text `json_dumps` writes with
/// `JSON_COMPACT | JSON_ENCODE_ANY` and 17-digit reals, members in their
/// order, byte for byte, without jansson's per-character work: a string
/// with nothing to escape is copied whole, an integer written by division
/// instead of `snprintf`. A row's JSON column (`reactions` of an issue: ten
/// members, nine of them integers) took about 5,200 instructions through
/// `json_dumps`; see Benchmarks/README.md.
///
/// Only what it writes exactly as jansson does is written here: a value
/// holding a string that is not all ASCII (whose UTF-8 jansson checks) is
/// left to `json_dumps` (`text` answers nil), and a real is written by
/// `json_dumps` alone (its digits are `snprintf`'s).
package enum CompactJSONWriter {
  /// The text of `value` (borrowed), or nil when it holds a string that is
  /// not ASCII, or a value jansson would not write (the caller then asks
  /// `json_dumps`). The caller has checked its depth.
  package static func text(_ value: JPtr) -> String? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(128)
    guard write(value, into: &bytes) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the text of `value`; false when it cannot (see `text`).
  private static func write(_ value: JPtr, into bytes: inout [UInt8]) -> Bool {
    switch value.pointee.type {
    case JSON_OBJECT:
      bytes.append(UInt8(ascii: "{"))
      var first = true
      var iterator = json_object_iter(value)
      while let current = iterator {
        guard let key = json_object_iter_key(current), let member = json_object_iter_value(current) else {
          return false
        }
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        let keyBytes = UnsafeBufferPointer(
          start: UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self),
          count: json_object_iter_key_len(current))
        guard string(keyBytes, into: &bytes) else { return false }
        bytes.append(UInt8(ascii: ":"))
        guard write(member, into: &bytes) else { return false }
        iterator = json_object_iter_next(value, current)
      }
      bytes.append(UInt8(ascii: "}"))
      return true
    case JSON_ARRAY:
      bytes.append(UInt8(ascii: "["))
      let count = json_array_size(value)
      var index = 0
      while index < count {
        guard let element = json_array_get(value, index) else { return false }
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        guard write(element, into: &bytes) else { return false }
        index += 1
      }
      bytes.append(UInt8(ascii: "]"))
      return true
    case JSON_STRING:
      guard let text = json_string_value(value) else { return false }
      return string(
        UnsafeBufferPointer(
          start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: json_string_length(value)),
        into: &bytes)
    case JSON_INTEGER:
      integer(json_integer_value(value), into: &bytes)
      return true
    case JSON_REAL:
      guard let dumped = json_dumps(value, CanonicalJSON.flags & ~Int(JSON_SORT_KEYS)) else { return false }
      defer { free(dumped) }
      var next = dumped
      while next.pointee != 0 {
        bytes.append(UInt8(bitPattern: next.pointee))
        next += 1
      }
      return true
    case JSON_TRUE:
      bytes.append(contentsOf: [UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")])
      return true
    case JSON_FALSE:
      bytes.append(contentsOf: [
        UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e"),
      ])
      return true
    case JSON_NULL:
      bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
      return true
    default:
      return false
    }
  }

  /// Appends the ASCII string `text` quoted, escaped as jansson escapes it
  /// (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other control characters as
  /// `\u00XX`); false for a byte that is not ASCII.
  private static func string(_ text: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) -> Bool {
    bytes.append(UInt8(ascii: "\""))
    var plainFrom = 0
    var index = 0
    while index < text.count {
      let byte = text[index]
      if byte >= 0x80 { return false }
      if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
        index += 1
        continue
      }
      if index > plainFrom {
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[plainFrom..<index]))
      }
      bytes.append(UInt8(ascii: "\\"))
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
      case 0x08: bytes.append(UInt8(ascii: "b"))
      case 0x0C: bytes.append(UInt8(ascii: "f"))
      case 0x0A: bytes.append(UInt8(ascii: "n"))
      case 0x0D: bytes.append(UInt8(ascii: "r"))
      case 0x09: bytes.append(UInt8(ascii: "t"))
      default:
        bytes.append(contentsOf: [
          UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(byte >> 4)],
          hexDigits[Int(byte & 0xF)],
        ])
      }
      index += 1
      plainFrom = index
    }
    if index > plainFrom { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[plainFrom..<index])) }
    bytes.append(UInt8(ascii: "\""))
    return true
  }

  /// Appends `value` in decimal.
  private static func integer(_ value: json_int_t, into bytes: inout [UInt8]) {
    var magnitude = Int64(value).magnitude
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    // 24 bytes: room for the 20 digits of the largest magnitude
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    withUnsafeMutableBytes(of: &digits) { buffer in
      var start = buffer.count
      repeat {
        start -= 1
        buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
    }
  }

  /// The digits of `\u00XX`.
  private static let hexDigits = Array("0123456789ABCDEF".utf8)
}
