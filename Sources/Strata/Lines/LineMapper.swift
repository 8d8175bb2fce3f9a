/// The errors of one line of JSON lines that did not map.
public struct LineError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The line's number, 1-based (blank lines count).
  public var line: Int
  /// Every error of the line, each with `line` set and a `path` into the
  /// line's value. A line that is not JSON, or longer than the limit, has one
  /// `syntax` error; a source that cannot be read, one `io` error.
  public var errors: [ErrorDetail]

  /// Makes a line error from its parts.
  public init(line: Int, errors: [ErrorDetail]) {
    self.line = line
    self.errors = errors
  }

  /// The errors as one `StrataError`.
  public var strataError: StrataError { StrataError(errors) }

  /// The errors, one per line, each naming the line.
  public var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// Maps JSON lines (docs/lines.md) onto models one line at a time, as an
/// iterator and a sequence: each element is the model of one line, or that
/// line's errors, in the order of the input. Memory stays bounded by the
/// longest line whatever the input's size, so it serves files of any length.
///
/// ```swift
/// for result in try schema.mapLines("Issue", lines: text.split(separator: "\n")) {
///   switch result {
///   case .success(let issue): print(issue["title"] ?? .null)
///   case .failure(let error): print("line \(error.line): \(error.errors)")
///   }
/// }
/// ```
///
/// A bad line never stops the sequence; to stop at the first one, call
/// `get()` on each result. A read error of a byte source ends the sequence
/// with one `io` error.
public struct LineMapper: IteratorProtocol, Sequence {
  /// The default longest line, in bytes (without the newline): 64 MiB.
  public static let defaultMaxLineLength = LineSplitter.defaultLimit

  /// How the bytes come in.
  private enum Source {
    /// A byte source and the buffer its reads go into.
    case reader((UnsafeMutableRawBufferPointer) throws -> Int, LineReadBuffer)
    case lines(AnyIterator<[UInt8]>)
  }

  private let engine: LineMapping
  private var source: Source
  private var pending: [(result: Result<Model, LineError>, line: Int)] = []
  private var position = 0
  private var ended = false

  /// Maps the bytes that `read` gives onto models named `model`. `read`
  /// fills as much of the buffer as it likes and returns the number of
  /// bytes, 0 at the end of the input; an error it throws ends the sequence
  /// with an `io` error. Lines longer than `maxLineLength` bytes are a
  /// `syntax` error each, skipped without being kept. Throws an `argument`
  /// error for an unknown model.
  public init(
    schema: Schema, model: String, maxLineLength: Int = LineMapper.defaultMaxLineLength,
    read: @escaping (UnsafeMutableRawBufferPointer) throws -> Int
  ) throws(StrataError) {
    engine = try LineMapping(schema: schema, model: model, limit: maxLineLength)
    source = .reader(read, LineReadBuffer())
  }

  /// Maps each element of `lines` as one line (a trailing "\n" or "\r\n" is
  /// removed; a blank element is skipped but counted).
  public init<Lines: Sequence>(
    schema: Schema, model: String, lines: Lines, maxLineLength: Int = LineMapper.defaultMaxLineLength
  ) throws(StrataError) where Lines.Element: StringProtocol {
    engine = try LineMapping(schema: schema, model: model, limit: maxLineLength)
    source = .lines(AnyIterator(lines.lazy.map { Array($0.utf8) }.makeIterator()))
  }

  /// Maps each element of `lines`, UTF-8 bytes, as one line.
  public init<Lines: Sequence>(
    schema: Schema, model: String, byteLines lines: Lines,
    maxLineLength: Int = LineMapper.defaultMaxLineLength
  ) throws(StrataError) where Lines.Element == [UInt8] {
    engine = try LineMapping(schema: schema, model: model, limit: maxLineLength)
    source = .lines(AnyIterator(lines.makeIterator()))
  }

  /// The number of the line of the element `next()` returned last (0 before the first).
  public private(set) var line = 0

  /// The next line's model or errors; nil at the end of the input.
  public mutating func next() -> Result<Model, LineError>? {
    while position == pending.count {
      pending.removeAll(keepingCapacity: true)
      position = 0
      if ended { return nil }
      pull()
    }
    let element = pending[position]
    position += 1
    line = element.line
    return element.result
  }

  /// Reads the next chunk (or line) and maps the lines it completes.
  private mutating func pull() {
    var results: [(result: Result<Model, LineError>, line: Int)] = []
    let collect = { (outcome: LineOutcome) -> Bool in
      switch outcome {
      case .model(let object, let line): results.append((.success(Model(object)), line))
      case .failure(let failure, let line):
        results.append((.failure(LineError(line: line, errors: failure.errors)), line))
      }
      return true
    }
    switch source {
    case .lines(let iterator):
      if let line = iterator.next() {
        _ = line.withUnsafeBufferPointer { engine.single($0, collect) }
      } else {
        ended = true
      }
    case .reader(let read, let buffer):
      let room = buffer.room
      var count = 0
      var failure: String? = nil
      do {
        count = try read(room)
      } catch {
        failure = "the input could not be read: \(error)"
      }
      if failure == nil && (count < 0 || count > room.count) {
        failure = "the reader returned \(count) for a buffer of \(room.count) bytes"
      }
      if let failure {
        let line = engine.line + 1
        let detail = ErrorDetail(path: "", code: .io, message: failure, line: line)
        results.append((.failure(LineError(line: line, errors: [detail])), line))
        ended = true
      } else if count == 0 {
        _ = buffer.finish { engine.feed($0, collect) }
        _ = engine.finish(collect)
        ended = true
      } else {
        _ = buffer.add(count) { engine.feed($0, collect) }
      }
    }
    pending = results
  }
}

extension Schema {
  /// Maps JSON lines given as a sequence of lines (`String`s or substrings,
  /// one line each) onto models named `model`; see `LineMapper`. Throws an
  /// `argument` error for an unknown model.
  public func mapLines<Lines: Sequence>(
    _ model: String, lines: Lines, maxLineLength: Int = LineMapper.defaultMaxLineLength
  ) throws(StrataError) -> LineMapper where Lines.Element: StringProtocol {
    try LineMapper(schema: self, model: model, lines: lines, maxLineLength: maxLineLength)
  }

  /// Maps JSON lines read in chunks from `read` (bytes read, 0 at the end)
  /// onto models named `model`; see `LineMapper`.
  public func mapLines(
    _ model: String, maxLineLength: Int = LineMapper.defaultMaxLineLength,
    read: @escaping (UnsafeMutableRawBufferPointer) throws -> Int
  ) throws(StrataError) -> LineMapper {
    try LineMapper(schema: self, model: model, maxLineLength: maxLineLength, read: read)
  }

  /// Maps JSON lines held in one text (lines split on "\n") onto models
  /// named `model`; see `LineMapper`.
  public func mapLines(
    _ model: String, parsing text: String, maxLineLength: Int = LineMapper.defaultMaxLineLength
  ) throws(StrataError) -> LineMapper {
    let bytes = Array(text.utf8)
    var offset = 0
    return try LineMapper(schema: self, model: model, maxLineLength: maxLineLength) { buffer in
      let count = min(buffer.count, bytes.count - offset)
      if count > 0 {
        bytes.withUnsafeBytes { source in
          buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + count)]))
        }
      }
      offset += count
      return count
    }
  }
}
