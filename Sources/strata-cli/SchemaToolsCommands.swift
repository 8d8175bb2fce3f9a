import Glibc
import Strata

/// `strata schema SCHEMA MODEL --json-schema [--canonical]`
enum SchemaCommand {
  static let usage = Usage(
    name: "schema",
    synopsis: "<schema> <model> --json-schema [--canonical]",
    arguments: [
      ("schema", "The schema file.", false),
      ("model", "The model to describe.", false),
    ],
    flags: [
      ("json-schema", "Print the JSON Schema (draft 2020-12) of the model's API JSON."),
      ("canonical", "Describe the canonical dictionary instead of the API JSON."),
    ],
    overview: """
      OVERVIEW: Print the JSON Schema (draft 2020-12) of a model: of the JSON the
      API sends, or with --canonical of the canonical dictionary.
      """)

  /// Runs the command; returns the exit status.
  static func run(_ parsed: Usage.Parsed) -> Int32 {
    guard parsed.flags.contains("json-schema") else {
      Usage.fail("Missing '--json-schema' (the only output so far)", usage: usage)
    }
    do {
      let loaded = try Schema(contentsOfFile: parsed.positionals[0])
      let document = try loaded.jsonSchema(
        for: parsed.positionals[1], canonical: parsed.flags.contains("canonical"))
      print(document.serialized(indent: 2))
      return 0
    } catch {
      Output.errors(error, file: parsed.positionals[0])
      return 1
    }
  }
}

/// `strata describe SCHEMA --mermaid | --dot`
enum DescribeCommand {
  static let usage = Usage(
    name: "describe",
    synopsis: "<schema> --mermaid | --dot",
    arguments: [("schema", "The schema file.", false)],
    flags: [
      ("mermaid", "Print a Mermaid class diagram of the models."),
      ("dot", "Print a Graphviz (dot) class diagram of the models."),
    ],
    overview: """
      OVERVIEW: Print a class diagram of a schema's models: properties and their
      types, extends, subtypes and associations.
      """)

  /// Runs the command; returns the exit status.
  static func run(_ parsed: Usage.Parsed) -> Int32 {
    let mermaid = parsed.flags.contains("mermaid")
    let dot = parsed.flags.contains("dot")
    guard mermaid != dot else {
      Usage.fail("Give exactly one of '--mermaid' and '--dot'", usage: usage)
    }
    do {
      let loaded = try Schema(contentsOfFile: parsed.positionals[0])
      print(loaded.diagram(dot ? .dot : .mermaid), terminator: "")
      return 0
    } catch {
      Output.errors(error, file: parsed.positionals[0])
      return 1
    }
  }
}
