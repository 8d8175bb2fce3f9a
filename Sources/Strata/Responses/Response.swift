import CJansson

/// What one API response maps to: the records found at the record model's
/// root, in order, and the paging metadata (docs/responses.md).
public struct Response: Sendable, Hashable, RandomAccessCollection {
  /// The records, in the response's order; empty for a root that is null or `[]`.
  public let records: [Model]
  /// The metadata model, or nil when none is asked for or the response
  /// leaves it out (or holds null there).
  public let metadata: Model?

  /// A response from its parts.
  public init(records: [Model], metadata: Model?) {
    self.records = records
    self.metadata = metadata
  }

  /// The index of the first record.
  public var startIndex: Int { records.startIndex }
  /// One past the index of the last record.
  public var endIndex: Int { records.endIndex }
  /// The record at `position`.
  public subscript(position: Int) -> Model { records[position] }
}

extension Schema {
  /// Maps an API response: the records of model `model` at its root (the
  /// model's `root`, or `root` here; "" for the whole response), one record
  /// per element of an array, one for an object, none for null or `[]`; and
  /// the metadata (the model's `meta`, or `meta` here), nil when the response
  /// leaves it out. A missing root is a `missing` error. Throws every error
  /// of the records and the metadata, with paths into the whole response.
  public func mapResponse(
    _ model: String, from json: JSON, root: String? = nil, meta: ResponseMeta? = nil
  ) throws(StrataError) -> Response {
    guard let pointer = json.makeJansson() else {
      throw StrataError(code: .type, message: "the input holds a value JSON cannot represent")
    }
    defer { JValue.release(pointer) }
    return try response(mapResponseValue(model, pointer, ResponseRequest(root: root, meta: meta)))
  }

  /// Parses JSON text and maps it as an API response; see ``mapResponse(_:from:root:meta:)``.
  public func mapResponse(
    _ model: String, parsing text: String, root: String? = nil, meta: ResponseMeta? = nil
  ) throws(StrataError) -> Response {
    var text = text
    let request = ResponseRequest(root: root, meta: meta)
    return try response(text.withUTF8 { mapResponseBytes(model, $0, request) })
  }

  private func response(_ result: Result<ResponseObjects, StrataError>) throws(StrataError) -> Response {
    let objects = try result.get()
    return Response(records: objects.records.map(Model.init), metadata: objects.metadata.map(Model.init))
  }
}
