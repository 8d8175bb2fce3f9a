import CJansson

/// Writes RFC 3339 text, the canonical form of a date:
/// `2013-07-02T16:40:00Z`, with a fraction only when the nanoseconds are not
/// zero, trailing zeros trimmed (`.5`, `.123`, `.000001`).
package enum RFC3339Formatter {
  /// Room for the longest text: a sign and 19 year digits, `-MM-DDTHH:MM:SS`,
  /// a 10-byte fraction and a 6-byte offset (only invalid values need more than 35).
  private static let capacity = 64

  /// The canonical text of `value`, in UTC with `Z`.
  package static func format(_ value: DateValue) -> String {
    format(value, offset: 0)
  }

  /// The text of `value` as read at `offset` seconds east of UTC (whole
  /// minutes; an invalid offset counts as 0), ending in `Z` when the offset
  /// is zero and in `+hh:mm` otherwise.
  static func format(_ value: DateValue, offset: Int) -> String {
    String(unsafeUninitializedCapacity: capacity) { write(value, offset: offset, into: $0) }
  }

  /// The canonical text of `value` as a new jansson string (no Swift String
  /// on the way: the hot path of mapping dates).
  static func jansson(_ value: DateValue) -> JPtr? {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      let count = write(value, offset: 0, into: buffer)
      return buffer.withMemoryRebound(to: CChar.self) { chars in
        json_stringn_nocheck(chars.baseAddress, count)
      }
    }
  }

  /// Calls `body` with the canonical text of `value` (on the stack).
  @inline(__always)
  static func withBytes<R>(_ value: DateValue, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      let count = write(value, offset: 0, into: buffer)
      return body(UnsafeBufferPointer(rebasing: buffer[0..<count]))
    }
  }

  /// Writes the text into `buffer` (at least `capacity` bytes); the byte count.
  private static func write(_ value: DateValue, offset: Int, into buffer: UnsafeMutableBufferPointer<UInt8>)
    -> Int
  {
    let offset = TimeZoneOffset.isValid(offset) ? offset / 60 * 60 : 0
    let fields = DateFields(value, offset: offset)
    var writer = DateByteWriter(buffer)
    writer.writeNumber(fields.year, minimumDigits: 4)
    writer.write(UInt8(ascii: "-"))
    writer.writeTwoDigits(fields.month)
    writer.write(UInt8(ascii: "-"))
    writer.writeTwoDigits(fields.day)
    writer.write(UInt8(ascii: "T"))
    writer.writeTwoDigits(fields.hour)
    writer.write(UInt8(ascii: ":"))
    writer.writeTwoDigits(fields.minute)
    writer.write(UInt8(ascii: ":"))
    writer.writeTwoDigits(fields.second)
    writer.writeTrimmedFraction(fields.nanosecond)
    writer.writeOffset(offset, separator: true, optionalMinutes: false, zForZero: true)
    return writer.count
  }
}
