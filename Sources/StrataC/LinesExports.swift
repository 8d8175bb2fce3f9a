import CJansson
import Glibc
import Strata

/// `strata_read_fn`: fills `buffer` with up to `size` bytes, returns how many
/// (0 at the end, `STRATA_READ_ERROR` = (size_t)-1 on a read error).
public typealias ReadFunction =
  @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Int
/// `strata_line_model_fn`: receives a new model reference and its line.
public typealias LineModelFunction = @convention(c) (OpaquePointer?, Int, UnsafeMutableRawPointer?) -> Int32
/// `strata_line_error_fn`: receives the line's error array (borrowed) and its line.
public typealias LineErrorFunction =
  @convention(c) (UnsafeMutablePointer<json_t>?, Int, UnsafeMutableRawPointer?) -> Int32

/// `strata_lines_t`: a push-style line mapper and whether it has ended.
final class LineStream {
  let mapping: LineMapping
  /// Set once the input was finished, a callback stopped the stream, or a
  /// bad line stopped it (no error callback): later calls are refused.
  var ended = false
  /// True while a feed or finish runs: a callback of this mapper may not
  /// feed or finish it (the buffer it reads would change under it).
  var running = false

  init(_ mapping: LineMapping) { self.mapping = mapping }

  static func handle(_ pointer: OpaquePointer?) -> LineStream? {
    guard let pointer else { return nil }
    return Unmanaged<LineStream>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
  }
}

/// The callbacks of one call and what they have said so far.
private struct Delivery {
  let onModel: LineModelFunction?
  let onError: LineErrorFunction?
  let data: UnsafeMutableRawPointer?
  var models: Int64 = 0
  /// The errors of the bad line that stopped the call (no error callback).
  var failure: StrataError? = nil
  /// True once a callback returned non-zero.
  var stopped = false

  /// Hands one outcome to its callback; false to stop.
  mutating func deliver(_ outcome: LineOutcome) -> Bool {
    switch outcome {
    case .model(let object, let line):
      models += 1
      guard let onModel else { return true }
      if onModel(Handles.retained(object), line, data) != 0 {
        stopped = true
        return false
      }
      return true
    case .failure(let errors, let line):
      guard let onError else {
        failure = errors
        return false
      }
      let list = ErrorReporting.list(errors)
      defer { if let list { json_decref(list) } }
      if onError(list, line, data) != 0 {
        stopped = true
        return false
      }
      return true
    }
  }

  /// Records the call's outcome: the model count, or -1 after a bad line
  /// that stopped it.
  func finish(_ error: UnsafeMutableRawPointer?) -> Int64 {
    if let failure {
      ErrorReporting.fail(failure, error)
      return -1
    }
    ErrorReporting.succeed(error)
    return models
  }
}

/// A new push-style line mapper onto the model named `model`.
@_cdecl("strata_lines_new")
public func strata_lines_new(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ maxLineLength: Int,
  _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  guard let mapping = makeMapping(schema, model, maxLineLength, error) else { return nil }
  ErrorReporting.succeed(error)
  return OpaquePointer(Unmanaged.passRetained(LineStream(mapping)).toOpaque())
}

/// Frees a line mapper; NULL is ignored.
@_cdecl("strata_lines_free")
public func strata_lines_free(_ lines: OpaquePointer?) {
  guard let lines else { return }
  Unmanaged<LineStream>.fromOpaque(UnsafeRawPointer(lines)).release()
}

/// Feeds bytes to a line mapper; callbacks for the lines they complete.
@_cdecl("strata_lines_feed")
public func strata_lines_feed(
  _ lines: OpaquePointer?, _ buffer: UnsafePointer<CChar>?, _ length: Int,
  _ onModel: LineModelFunction?, _ onError: LineErrorFunction?, _ data: UnsafeMutableRawPointer?,
  _ error: UnsafeMutableRawPointer?
) -> Int64 {
  deepCall { () -> Int64 in
    guard let stream = usable(lines, error) else { return -1 }
    guard let buffer else {
      ErrorReporting.fail(.argument, "the buffer is NULL", error)
      return -1
    }
    guard length >= 0 else {
      ErrorReporting.fail(.argument, "the length is too large", error)
      return -1
    }
    var delivery = Delivery(onModel: onModel, onError: onError, data: data)
    stream.running = true
    _ = stream.mapping.feed(UnsafeRawBufferPointer(start: buffer, count: length)) { delivery.deliver($0) }
    stream.running = false
    if delivery.stopped || delivery.failure != nil { stream.ended = true }
    return delivery.finish(error)
  }
}

/// Ends the input of a line mapper: maps a last line without "\n".
@_cdecl("strata_lines_finish")
public func strata_lines_finish(
  _ lines: OpaquePointer?, _ onModel: LineModelFunction?, _ onError: LineErrorFunction?,
  _ data: UnsafeMutableRawPointer?, _ error: UnsafeMutableRawPointer?
) -> Int64 {
  deepCall { () -> Int64 in
    guard let stream = usable(lines, error) else { return -1 }
    var delivery = Delivery(onModel: onModel, onError: onError, data: data)
    stream.running = true
    _ = stream.mapping.finish { delivery.deliver($0) }
    stream.running = false
    stream.ended = true
    return delivery.finish(error)
  }
}

/// Feeds bytes to a line mapper (and, with `finish` non-zero, ends its
/// input), handing each completed line back in one array instead of through
/// callbacks: its model, or NULL for a bad line whose errors go, in order, to
/// `badLines`.
@_cdecl("strata_lines_feed_array")
public func strata_lines_feed_array(
  _ lines: OpaquePointer?, _ buffer: UnsafePointer<CChar>?, _ length: Int, _ finish: Int32,
  _ count: UnsafeMutablePointer<Int>?, _ badLines: UnsafeMutablePointer<UnsafeMutablePointer<json_t>?>?,
  _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  deepCall { () -> UnsafeMutablePointer<OpaquePointer?>? in
    count?.pointee = 0
    badLines?.pointee = nil
    guard let stream = usable(lines, error) else { return nil }
    guard let count else {
      ErrorReporting.fail(.argument, "the count pointer is NULL", error)
      return nil
    }
    guard buffer != nil || length == 0 else {
      ErrorReporting.fail(.argument, "the buffer is NULL", error)
      return nil
    }
    guard length >= 0 else {
      ErrorReporting.fail(.argument, "the length is too large", error)
      return nil
    }
    var collected = LineArray(keepErrors: badLines != nil)
    if let buffer, length > 0 {
      _ = stream.mapping.feed(UnsafeRawBufferPointer(start: buffer, count: length)) { collected.add($0) }
    }
    if finish != 0 {
      _ = stream.mapping.finish { collected.add($0) }
      stream.ended = true
    }
    guard let array = collected.handOver(count, badLines) else {
      ErrorReporting.fail(.oom, "out of memory", error)
      return nil
    }
    ErrorReporting.succeed(error)
    return array
  }
}

/// The outcomes of one strata_lines_feed_array() call, in order.
private struct LineArray {
  let keepErrors: Bool
  var models: [ModelObject?] = []
  /// One error array per bad line (created at the first), when kept.
  var bad: UnsafeMutablePointer<json_t>? = nil

  init(keepErrors: Bool) { self.keepErrors = keepErrors }

  mutating func add(_ outcome: LineOutcome) -> Bool {
    switch outcome {
    case .model(let object, _):
      models.append(object)
    case .failure(let errors, _):
      models.append(nil)
      if keepErrors {
        if bad == nil { bad = json_array() }
        if let bad, let list = ErrorReporting.list(errors) { json_array_append_new(bad, list) }
      }
    }
    return true
  }

  /// The malloc'd array of the handles and the error arrays, set through
  /// the out-parameters; nil (everything released) when out of memory.
  func handOver(
    _ count: UnsafeMutablePointer<Int>, _ badLines: UnsafeMutablePointer<UnsafeMutablePointer<json_t>?>?
  ) -> UnsafeMutablePointer<OpaquePointer?>? {
    let capacity = max(models.count, 1)
    guard let raw = malloc(capacity * MemoryLayout<OpaquePointer?>.stride) else {
      if let bad { json_decref(bad) }
      return nil
    }
    let array = raw.bindMemory(to: OpaquePointer?.self, capacity: capacity)
    for (index, model) in models.enumerated() {
      (array + index).initialize(to: model.map { Handles.retained($0) })
    }
    count.pointee = models.count
    badLines?.pointee = bad
    return array
  }
}

private func usable(_ lines: OpaquePointer?, _ error: UnsafeMutableRawPointer?) -> LineStream? {
  guard let stream = LineStream.handle(lines) else {
    ErrorReporting.fail(.argument, "the line mapper is NULL", error)
    return nil
  }
  if stream.running {
    ErrorReporting.fail(
      .argument, "a callback of this line mapper cannot feed or finish it (it is running that call)", error)
    return nil
  }
  if stream.ended {
    ErrorReporting.fail(.argument, "the line mapper has ended (finished or stopped)", error)
    return nil
  }
  return stream
}

/// Maps JSON lines read through a callback.
@_cdecl("strata_map_lines")
public func strata_map_lines(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ read: ReadFunction?,
  _ readData: UnsafeMutableRawPointer?, _ maxLineLength: Int, _ onModel: LineModelFunction?,
  _ onError: LineErrorFunction?, _ data: UnsafeMutableRawPointer?, _ error: UnsafeMutableRawPointer?
) -> Int64 {
  deepCall { () -> Int64 in
    guard let mapping = makeMapping(schema, model, maxLineLength, error) else { return -1 }
    guard let read else {
      ErrorReporting.fail(.argument, "the read function is NULL", error)
      return -1
    }
    return pump(mapping, onModel, onError, data, error) { buffer, size in read(buffer, size, readData) }
  }
}

/// Maps JSON lines read from a FILE *.
@_cdecl("strata_map_lines_file")
public func strata_map_lines_file(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ file: UnsafeMutablePointer<FILE>?,
  _ maxLineLength: Int, _ onModel: LineModelFunction?, _ onError: LineErrorFunction?,
  _ data: UnsafeMutableRawPointer?, _ error: UnsafeMutableRawPointer?
) -> Int64 {
  deepCall { () -> Int64 in
    guard let mapping = makeMapping(schema, model, maxLineLength, error) else { return -1 }
    guard let file else {
      ErrorReporting.fail(.argument, "the FILE is NULL", error)
      return -1
    }
    return pump(mapping, onModel, onError, data, error) { buffer, size in
      let count = fread(buffer, 1, size, file)
      if count == 0 && ferror(file) != 0 { return -1 }
      return count
    }
  }
}

private func makeMapping(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ maxLineLength: Int,
  _ error: UnsafeMutableRawPointer?
) -> LineMapping? {
  guard let (schema, name) = Handles.schemaAndModel(schema, model, error) else { return nil }
  guard maxLineLength >= 0 else {
    ErrorReporting.fail(.argument, "the line length limit is too large", error)
    return nil
  }
  let limit = maxLineLength == 0 ? LineMapper.defaultMaxLineLength : maxLineLength
  let made = Result(catching: { () throws(StrataError) -> LineMapping in
    try LineMapping(schema: schema, model: name, limit: limit)
  })
  return made.toC(error, failed: nil) { $0 }
}

/// Reads with `read` (bytes read, 0 at the end, -1 on error) into a
/// `LineReadBuffer` and maps the lines.
private func pump(
  _ mapping: LineMapping, _ onModel: LineModelFunction?, _ onError: LineErrorFunction?,
  _ data: UnsafeMutableRawPointer?, _ error: UnsafeMutableRawPointer?,
  _ read: (UnsafeMutableRawPointer, Int) -> Int
) -> Int64 {
  let buffer = LineReadBuffer()
  var delivery = Delivery(onModel: onModel, onError: onError, data: data)
  while true {
    let room = buffer.room
    guard let start = room.baseAddress else { break }
    let count = read(start, room.count)
    if count < 0 || count > room.count {
      let line = mapping.line + 1
      let message =
        count == -1
        ? "the input could not be read (at line \(line))" : "the read function returned \(count) bytes"
      ErrorReporting.fail(
        StrataError([ErrorDetail(path: "", code: .io, message: message, line: line)]), error)
      return -1
    }
    if count == 0 {
      if buffer.finish({ mapping.feed($0) { delivery.deliver($0) } }) {
        _ = mapping.finish { delivery.deliver($0) }
      }
      break
    }
    if !buffer.add(count, { mapping.feed($0) { delivery.deliver($0) } }) { break }
  }
  return delivery.finish(error)
}
