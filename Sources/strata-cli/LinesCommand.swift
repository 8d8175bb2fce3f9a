import Glibc
import Strata

/// `strata map SCHEMA MODEL FILE --lines`: JSON lines in, one compact JSON
/// line per model on stdout, one JSON line of errors per bad line on stderr.
enum LinesCommand {
  /// Maps every line of `input` ("-" for standard input); returns the exit
  /// status: 0 when every line mapped, 1 when any failed or the input could
  /// not be read.
  static func run(_ schema: Schema, _ model: String, _ input: String, serialize: Bool) -> Int32 {
    let descriptor = input == "-" ? 0 : open(input, O_RDONLY)
    guard descriptor >= 0 else {
      Output.errors(
        StrataError([ErrorDetail(path: "", code: .io, message: "cannot read '\(input)'")]), file: input)
      return 1
    }
    defer { if input != "-" { close(descriptor) } }
    let lines: LineMapper
    do {
      lines = try schema.mapLines(model) { buffer in
        let count = read(descriptor, buffer.baseAddress, buffer.count)
        if count < 0 { throw ReadFailure(errno: errno) }
        return count
      }
    } catch {
      Output.errors(error, file: input)
      return 1
    }
    var failed = false
    var iterator = lines
    while let result = iterator.next() {
      switch result {
      case .success(let model):
        do {
          print((serialize ? try model.json : model.dictionary).serialized())
        } catch {
          failed = true
          Output.lineErrors(error.errors, line: iterator.line, file: input)
        }
      case .failure(let error):
        failed = true
        Output.lineErrors(error.errors, line: error.line, file: input)
      }
    }
    return failed ? 1 : 0
  }

  /// A read(2) failure.
  struct ReadFailure: Error, CustomStringConvertible {
    let errno: Int32
    var description: String { String(cString: strerror(errno)) }
  }
}

extension Output {
  /// Each error of a bad line on stderr: `FILE:LINE: PATH [Model.property] message`
  /// for a person, or with `--json` one compact JSON line with its "line".
  static func lineErrors(_ errors: [ErrorDetail], line: Int, file: String) {
    var text = ""
    for detail in errors {
      guard json else {
        text += humanLine(detail, file: file, line: detail.line ?? line)
        continue
      }
      let entry: JSON = [
        "path": .string(detail.path), "model": .string(detail.model), "property": .string(detail.property),
        "code": .string(detail.code.rawValue), "message": .string(detail.message),
        "line": .int(Int64(detail.line ?? line)),
      ]
      text += entry.serialized() + "\n"
    }
    standardError(text)
  }
}
