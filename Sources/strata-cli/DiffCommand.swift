import Glibc
import Strata

/// `strata diff SCHEMA MODEL A.json B.json`: the RFC 6902 patch from A's model to B's.
enum DiffCommand {
  static let usage = Usage(
    name: "diff",
    synopsis: "<schema> <model> <a> <b> [--merge-patch]",
    arguments: [
      ("schema", "The schema file.", false),
      ("model", "The model both inputs map onto.", false),
      ("a", "The JSON the patch starts from (- for standard input).", false),
      ("b", "The JSON the patch leads to.", false),
    ],
    flags: [
      ("merge-patch", "Print a merge patch (RFC 7396, null sets null) instead of a JSON Patch.")
    ],
    overview: """
      OVERVIEW: Map two JSON inputs onto a model and print the RFC 6902 JSON Patch
      that turns the first model's canonical dictionary into the second's.

      Both inputs are mapped as the API sends them (renames, key paths, transformers);
      the patch speaks of canonical property names and values. An empty patch ([])
      means the two models are equal. Errors name the input they come from.
      """)

  /// Runs the command; returns the exit status.
  static func run(_ parsed: Usage.Parsed) -> Int32 {
    let model = parsed.positionals[1]
    let inputs = [parsed.positionals[2], parsed.positionals[3]]
    if inputs[0] == "-" && inputs[1] == "-" {
      Usage.fail("Only one of the inputs can be standard input", usage: usage)
    }
    let schema: Schema
    do {
      schema = try Schema(contentsOfFile: parsed.positionals[0])
    } catch {
      Output.errors(error, file: parsed.positionals[0])
      return 1
    }
    var models: [Model] = []
    for input in inputs {
      guard let text = Output.read(input) else {
        Output.errors(
          StrataError([ErrorDetail(path: "", code: .io, message: "cannot read '\(input)'")]), file: input)
        return 1
      }
      do {
        models.append(try schema.map(model, parsing: text))
      } catch {
        Output.errors(error, file: input)
        return 1
      }
    }
    do {
      let patch =
        parsed.flags.contains("merge-patch")
        ? try models[0].mergeDiff(models[1]) : try models[0].diff(models[1])
      print(patch.serialized(indent: 2))
      return 0
    } catch {
      Output.errors(error, file: nil)
      return 1
    }
  }
}
