import Glibc
import Strata

/// `strata codegen python SCHEMA [-o FILE]`: typed classes for the models.
enum CodegenCommand {
  static let usage = Usage(
    name: "codegen",
    synopsis: "python <schema> [--output <file>]",
    arguments: [
      ("language", "The language to write: python.", false),
      ("schema", "The schema file.", false),
    ],
    flags: [],
    options: [("output", "file", "Write the module to this file instead of standard output (also -o).")],
    overview: """
      OVERVIEW: Write typed classes for a schema's models.

      'python' writes a module with one class per model and a typed, read-only
      attribute per property (dates as aware datetimes, enums as Literal, nested
      models as the generated classes); each class is a view over a strata.Model
      (docs/codegen.md). The schema's document is embedded in the module.
      """)

  /// Runs the command; returns the exit status.
  static func run(_ arguments: [String]) -> Int32 {
    // -o is the short spelling of --output.
    let normalized = arguments.map { $0 == "-o" ? "--output" : $0 }
    let parsed = Usage.parse(normalized, usage)
    guard parsed.positionals[0] == "python" else {
      Usage.fail("Unknown language '\(parsed.positionals[0])' (expected python)", usage: usage)
    }
    let file = parsed.positionals[1]
    guard let document = Output.read(file) else {
      Output.errors(
        StrataError([ErrorDetail(path: "", code: .io, message: "cannot read '\(file)'")]), file: file)
      return 1
    }
    let schema: Schema
    do {
      schema = try Schema(parsing: document)
    } catch {
      Output.errors(error, file: file)
      return 1
    }
    let text = schema.pythonModule(document: document)
    guard let output = parsed.values["output"] else {
      print(text, terminator: "")
      return 0
    }
    guard let stream = fopen(output, "w") else {
      Output.errors(
        StrataError([ErrorDetail(path: "", code: .io, message: "cannot write '\(output)'")]), file: output)
      return 1
    }
    let written = fputs(text, stream)
    let closed = fclose(stream)
    if written < 0 || closed != 0 {
      Output.errors(
        StrataError([ErrorDetail(path: "", code: .io, message: "cannot write '\(output)'")]), file: output)
      return 1
    }
    return 0
  }
}
