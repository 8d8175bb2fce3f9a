import Strata
import Testing

/// JSON lines from an asynchronous byte sequence: the same answers as the
/// synchronous `LineMapper`, in order, and read errors as `io` errors.
struct AsyncLineMapperTests {
  let schema: Schema

  init() throws {
    schema = try Schema(
      parsing: """
        {"strata": 1, "models": {"Issue": {"properties": {
          "number": {"type": "int", "required": true}, "title": {"type": "string"}}}}}
        """)
  }

  /// The bytes of `text`, delivered one at a time.
  static func stream(_ text: String, failAfter: Int? = nil) -> AsyncThrowingStream<UInt8, Error> {
    AsyncThrowingStream { continuation in
      for (offset, byte) in text.utf8.enumerated() {
        if let failAfter, offset == failAfter {
          continuation.finish(throwing: ReadFailure())
          return
        }
        continuation.yield(byte)
      }
      continuation.finish()
    }
  }

  struct ReadFailure: Error {}

  @Test func mapsEveryLineInOrderLikeTheSynchronousMapper() async throws {
    let text = "{\"number\": 1}\n\n{\"number\": \"two\"}\r\n{\"number\": 3, \"title\": \"t\"}"
    var lines: [String] = []
    for await result in try schema.mapLines("Issue", bytes: Self.stream(text)) {
      switch result {
      case .success(let model): lines.append("model \(model.dictionary)")
      case .failure(let error): lines.append("line \(error.line): \(error.errors.map(\.path))")
      }
    }
    var expected: [String] = []
    for result in try schema.mapLines("Issue", parsing: text) {
      switch result {
      case .success(let model): expected.append("model \(model.dictionary)")
      case .failure(let error): expected.append("line \(error.line): \(error.errors.map(\.path))")
      }
    }
    #expect(lines == expected)
    #expect(lines.count == 3)
    #expect(lines[1] == "line 3: [\"/number\"]")
  }

  @Test func manyChunksOfLines() async throws {
    let text = (1...20_000).map { "{\"number\": \($0)}" }.joined(separator: "\n") + "\n"
    var count = 0
    var last = 0
    for await result in try schema.mapLines("Issue", bytes: Self.stream(text)) {
      let model = try result.get()
      count += 1
      if case .int(let number)? = model["number"] { last = Int(number) }
    }
    #expect(count == 20_000)
    #expect(last == 20_000)
  }

  @Test func aReadErrorEndsTheSequenceWithAnIOError() async throws {
    let text = "{\"number\": 1}\n{\"number\": 2}\n{\"num"
    var results: [Result<Model, LineError>] = []
    for await result in try schema.mapLines("Issue", bytes: Self.stream(text, failAfter: 30)) {
      results.append(result)
    }
    #expect(results.count == 3)
    guard case .failure(let error) = results.last else {
      Issue.record("expected an io error last")
      return
    }
    #expect(error.line == 3)
    #expect(error.errors.first?.code == .io)
  }

  @Test func anUnknownModelIsAnArgumentError() {
    #expect(throws: StrataError.self) {
      _ = try schema.mapLines("Nope", bytes: Self.stream("{}"))
    }
  }
}
