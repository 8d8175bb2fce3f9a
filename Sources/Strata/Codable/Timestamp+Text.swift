extension Timestamp: CustomStringConvertible {
  /// Reads an instant written in RFC 3339 or the ISO 8601 forms the `iso8601`
  /// date format reads (`2011-04-10T20:09:31Z`, `+02:00` offsets, fractions,
  /// a date alone for midnight; no offset means UTC). Anything else, or an
  /// instant outside years 0001-9999, is a `format` error.
  public init(parsing text: String) throws(StrataError) {
    guard let value = ISO8601DateParser.parse(text) else {
      throw StrataError(code: .format, message: "'\(text)' is not an ISO 8601 date")
    }
    self.init(seconds: value.seconds, nanoseconds: value.nanoseconds)
  }

  /// The canonical form of a `date` value: RFC 3339 in UTC, a fraction only
  /// where non-zero (`2013-07-02T16:40:00Z`, `2013-07-02T16:40:00.5Z`).
  public var description: String {
    RFC3339Formatter.format(DateValue(seconds: seconds, nanoseconds: nanoseconds))
  }
}

extension Timestamp: Codable {
  /// Reads the instant from an RFC 3339 string through any `Decoder` (a
  /// `date` property's canonical value, or `JSONDecoder` input).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let value = ISO8601DateParser.parse(text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "'\(text)' is not an ISO 8601 date")
    }
    self.init(seconds: value.seconds, nanoseconds: value.nanoseconds)
  }

  /// Writes the canonical RFC 3339 UTC string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}
