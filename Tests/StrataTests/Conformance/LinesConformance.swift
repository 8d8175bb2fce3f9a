import Strata
import Testing

// The conformance keys of JSON lines (Tests/conformance/README.md, "JSON
// lines"), for ConformanceTests.swift.

/// Runs a `lines` case: the text of `lines` (or the bytes of `linesHex`) is
/// mapped onto `model` as JSON lines, read in chunks of 1, 7 and 65536 bytes
/// and as a sequence of lines, and the models compared with `records`
/// (canonical dictionaries) and the bad lines with `lineErrors`. True when
/// the case was one.
func runLinesCase(_ testCase: ConformanceCase, _ schema: Schema) -> Bool {
  let body = testCase.body
  var bytes: [UInt8]
  if case .string(let text)? = body["lines"] {
    bytes = Array(text.utf8)
  } else if case .string(let hex)? = body["linesHex"] {
    bytes = []
    var digits = Array(hex.utf8)[...]
    while digits.count >= 2, let byte = UInt8(String(decoding: digits.prefix(2), as: UTF8.self), radix: 16) {
      bytes.append(byte)
      digits = digits.dropFirst(2)
    }
  } else {
    return false
  }
  guard case .string(let model)? = body["model"] else {
    Issue.record("a lines case needs a model")
    return true
  }
  var limit = LineMapper.defaultMaxLineLength
  if case .int(let value)? = body["maxLineLength"] { limit = Int(value) }
  var runs: [(String, LineMapper)] = []
  do {
    for piece in [1, 7, 65536] {
      var offset = 0
      let mapper = try schema.mapLines(model, maxLineLength: limit) { buffer in
        let count = min(piece, buffer.count, bytes.count - offset)
        for index in 0..<count { buffer[index] = bytes[offset + index] }
        offset += count
        return count
      }
      runs.append(("chunks of \(piece)", mapper))
    }
    var pieces = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
    if bytes.last == 0x0A || bytes.isEmpty { pieces.removeLast() }
    runs.append(
      ("lines", try LineMapper(schema: schema, model: model, byteLines: pieces, maxLineLength: limit)))
  } catch {
    Issue.record("mapLines failed: \(error)")
    return true
  }
  for (name, mapper) in runs {
    var records: [JSON] = []
    var failures: [LineError] = []
    for result in mapper {
      switch result {
      case .success(let model): records.append(model.dictionary)
      case .failure(let error): failures.append(error)
      }
    }
    if let expected = body["records"] { #expect(JSON.array(records) == expected, "records (\(name))") }
    guard case .array(let expected)? = body["lineErrors"] else { continue }
    guard expected.count == failures.count else {
      Issue.record("\(name): expected \(expected.count) bad lines, got \(failures)")
      continue
    }
    for (want, have) in zip(expected, failures) {
      #expect(want["line"] == .int(Int64(have.line)), "line (\(name))")
      #expect(have.errors.allSatisfy { $0.line == have.line }, "every error carries its line (\(name))")
      if let problem = compareErrors(want["errors"] ?? .array([]), have.errors) {
        Issue.record("\(name), line \(have.line): \(problem)")
      }
    }
  }
  return true
}
