/// Reading the records of a graph import straight from bytes.
extension DirectReader {
  /// Reads a text that is one array of `type` objects for a graph import
  /// (`records`: each object of a keyed model is a record, read
  /// partially), giving `body` each element's model as it is read, in
  /// order; nested objects repeated byte for byte are shared
  /// (`SharedModels`), so a model given to `body` may be given again
  /// inside a later one and must not be changed. `body` answers false to
  /// stop. True when every element was read and given; false when the text
  /// holds anything the direct read does not take (an error, a bare key, a
  /// number outside jansson's range, ...) or `body` stopped: the import then
  /// takes its mapper path.
  package static func forEachRecord(
    _ bytes: UnsafeBufferPointer<UInt8>, _ type: ModelType, in schema: Schema,
    _ body: (ModelObject) -> Bool
  ) -> Bool {
    guard bytes.baseAddress != nil, bytes.count > 0 else { return false }
    var reader = DirectReader(bytes, schema, nil, sharing: true, records: true)
    defer { reader.finish() }
    guard let empty = reader.openArray() else { return false }
    if !empty {
      while true {
        guard reader.parser.position < reader.parser.end,
          reader.parser.base[reader.parser.position] == UInt8(ascii: "{")
        else { return false }
        reader.partial = true
        let object = reader.root(type)
        reader.partial = false
        guard let object, !reader.parser.failed, reader.numbers.isEmpty, body(object) else { return false }
        switch reader.parser.afterMember(closing: UInt8(ascii: "]")) {
        case .more: continue
        case .closed: break
        case .failed: return false
        }
        break
      }
    }
    reader.parser.skipSpace()
    return reader.parser.position == reader.parser.end && !reader.parser.failed
  }
}
