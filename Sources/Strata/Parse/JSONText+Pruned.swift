extension JSONText {
  /// `parse` by the byte parser (`PrunedParser`), which builds the value
  /// jansson would in about half the time; jansson parses whatever the byte
  /// parser leaves (an error, a number out of range, ...), so the answer is
  /// jansson's either way. For the graph's JSON text columns, read once for
  /// every record read from a file (Benchmarks/README.md, "A record read
  /// from its row").
  package static func parseBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<JPtr, StrataError> {
    if let built = PrunedParser.parse(bytes, .all) { return .success(built) }
    return parse(bytes)
  }

  /// `parseBytes` of a string's UTF-8.
  package static func parseBytes(_ text: String) -> Result<JPtr, StrataError> {
    var copy = text
    return copy.withUTF8 { parseBytes($0) }
  }
}
