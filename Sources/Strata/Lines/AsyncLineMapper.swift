/// Maps JSON lines that arrive as an asynchronous sequence of bytes (a
/// socket, an HTTP body, `FileHandle.bytes`) onto models, one element per
/// line that is not blank: the line's model, or its errors. The bytes are
/// taken in chunks of up to 64 KiB and split and mapped as `LineMapper` does,
/// so memory stays bounded by the longest line.
///
/// ```swift
/// for await result in try schema.mapLines("Issue", bytes: body) {
///   switch result {
///   case .success(let issue): print(issue["title"] ?? .null)
///   case .failure(let error): print("line \(error.line): \(error.errors)")
///   }
/// }
/// ```
///
/// An error the byte sequence throws ends the sequence with one `io` error
/// for the line it interrupted.
public struct AsyncLineMapper<Bytes: AsyncSequence>: AsyncSequence where Bytes.Element == UInt8 {
  /// Each line's model, or the line's errors.
  public typealias Element = Result<Model, LineError>

  private let schema: Schema
  private let model: String
  private let maxLineLength: Int
  private let bytes: Bytes

  /// Maps `bytes` onto models named `model`. Throws an `argument` error for
  /// an unknown model.
  public init(
    schema: Schema, model: String, bytes: Bytes, maxLineLength: Int = LineMapper.defaultMaxLineLength
  ) throws(StrataError) {
    _ = try schema.modelType(model).get()
    self.schema = schema
    self.model = model
    self.maxLineLength = maxLineLength
    self.bytes = bytes
  }

  /// A fresh pass over the bytes.
  public func makeAsyncIterator() -> Iterator {
    Iterator(
      engine: Result { () throws(StrataError) in
        try LineMapping(schema: schema, model: model, limit: maxLineLength)
      },
      upstream: bytes.makeAsyncIterator())
  }

  /// Reads chunks of bytes and hands out the lines they complete.
  public struct Iterator: AsyncIteratorProtocol {
    private let engine: Result<LineMapping, StrataError>
    private var upstream: Bytes.AsyncIterator
    private var pending: [Element] = []
    private var position = 0
    private var ended = false
    private var chunk: [UInt8] = []

    /// The size of the chunks handed to the line splitter.
    private static var chunkSize: Int { 1 << 16 }

    init(engine: Result<LineMapping, StrataError>, upstream: Bytes.AsyncIterator) {
      self.engine = engine
      self.upstream = upstream
    }

    /// The next line's model or errors; nil at the end of the bytes.
    public mutating func next() async -> Element? {
      while position == pending.count {
        pending.removeAll(keepingCapacity: true)
        position = 0
        if ended { return nil }
        await pull()
      }
      let element = pending[position]
      position += 1
      return element
    }

    /// Reads the next chunk and maps the lines it completes.
    private mutating func pull() async {
      let mapping: LineMapping
      switch engine {
      case .success(let found): mapping = found
      case .failure(let error):
        pending = [.failure(LineError(line: 0, errors: error.errors))]
        ended = true
        return
      }
      chunk.removeAll(keepingCapacity: true)
      var failure: String? = nil
      do {
        while chunk.count < Self.chunkSize, let byte = try await upstream.next() { chunk.append(byte) }
      } catch {
        failure = "the input could not be read: \(error)"
      }
      var results: [Element] = []
      let collect = { (outcome: LineOutcome) -> Bool in
        switch outcome {
        case .model(let object, _): results.append(.success(Model(object)))
        case .failure(let failure, let line):
          results.append(.failure(LineError(line: line, errors: failure.errors)))
        }
        return true
      }
      if !chunk.isEmpty {
        _ = chunk.withUnsafeBytes { mapping.feed($0, collect) }
      }
      if let failure {
        let line = mapping.line + 1
        results.append(
          .failure(
            LineError(line: line, errors: [ErrorDetail(path: "", code: .io, message: failure, line: line)])))
        ended = true
      } else if chunk.count < Self.chunkSize {
        _ = mapping.finish(collect)
        ended = true
      }
      pending = results
    }
  }
}

extension Schema {
  /// Maps JSON lines arriving as an asynchronous sequence of bytes onto
  /// models named `model`; see `AsyncLineMapper`. Throws an `argument` error
  /// for an unknown model.
  public func mapLines<Bytes: AsyncSequence>(
    _ model: String, bytes: Bytes, maxLineLength: Int = LineMapper.defaultMaxLineLength
  ) throws(StrataError) -> AsyncLineMapper<Bytes> where Bytes.Element == UInt8 {
    try AsyncLineMapper(schema: self, model: model, bytes: bytes, maxLineLength: maxLineLength)
  }
}
