import Glibc
import Strata

/// The `strata` command: check schemas and map JSON from the shell.
///
/// Arguments are parsed by hand (see `CommandLine`), so the package has no
/// dependencies. Exit status: 0 on success, 1 when a schema, input or
/// comparison fails, 64 for a usage error (as `sysexits.h` says).
@main
enum StrataCommand {
  static let version = strataVersion

  /// One subcommand: its name, the line `strata --help` shows, its usage
  /// (for `strata help NAME`), and how it runs on the arguments after its name.
  struct Subcommand: Sendable {
    let name: String
    let summary: String
    let usage: Usage
    let run: @Sendable ([String]) -> Int32
  }

  /// Every subcommand, once: the overview, `help NAME` and the dispatch all read this list.
  static let subcommands: [Subcommand] = [
    Subcommand(
      name: "check", summary: "Load a schema and print its errors (exit status 1 if there are any).",
      usage: Check.usage, run: { Check.run(Usage.parse($0, Check.usage)) }),
    Subcommand(
      name: "map",
      summary:
        "Map JSON onto a model and print its canonical dictionary (or, with --serialize, the JSON after the round trip).",
      usage: MapCommand.usage, run: { MapCommand.run(Usage.parse($0, MapCommand.usage)) }),
    Subcommand(
      name: "schema", summary: "Print the JSON Schema of a model (--json-schema).",
      usage: SchemaCommand.usage, run: { SchemaCommand.run(Usage.parse($0, SchemaCommand.usage)) }),
    Subcommand(
      name: "describe", summary: "Print a class diagram of the models (--mermaid, --dot).",
      usage: DescribeCommand.usage, run: { DescribeCommand.run(Usage.parse($0, DescribeCommand.usage)) }),
    Subcommand(
      name: "diff", summary: "Print the RFC 6902 patch from one input's model to another's.",
      usage: DiffCommand.usage, run: { DiffCommand.run(Usage.parse($0, DiffCommand.usage)) }),
    Subcommand(
      name: "codegen", summary: "Write typed classes for the models (python).",
      usage: CodegenCommand.usage, run: { CodegenCommand.run($0) }),
    Subcommand(
      name: "import",
      summary: "Import a response's records into a graph file (--db); print what was created and updated.",
      usage: ImportCommand.usage, run: { ImportCommand.run(Usage.parse($0, ImportCommand.usage)) }),
    Subcommand(
      name: "get", summary: "Print a record of a graph file by its key.",
      usage: GetCommand.usage, run: { GetCommand.run(Usage.parse($0, GetCommand.usage)) }),
    Subcommand(
      name: "query", summary: "Print the records of a graph file that a query selects, as JSON lines.",
      usage: QueryCommand.usage, run: { QueryCommand.run(Usage.parse($0, QueryCommand.usage)) }),
    Subcommand(
      name: "fetch", summary: "Fetch an API's pages into a graph file (--db), following the model's paging.",
      usage: FetchCommand.usage, run: { FetchCommand.run(Usage.parse($0, FetchCommand.usage)) }),
  ]

  /// `strata --help`.
  static var help: String {
    var lines = [
      "OVERVIEW: Map JSON onto the models of a Strata schema.", "", "USAGE: strata <subcommand>", "",
      "OPTIONS:",
    ]
    lines += Usage.entry("--version", "Show the version.")
    lines += Usage.entry("-h, --help", "Show help information.")
    lines += ["", "SUBCOMMANDS:"]
    for subcommand in subcommands { lines += Usage.entry(subcommand.name, subcommand.summary) }
    lines += ["", "  See 'strata help <subcommand>' for detailed help."]
    return lines.joined(separator: "\n")
  }

  static func main() {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard let first = arguments.first else {
      print(help)
      exit(0)
    }
    arguments.removeFirst()
    switch first {
    case "-h", "--help":
      print(help)
    case "--version":
      print(version)
    case "help":
      guard let name = arguments.first else {
        print(help)
        break
      }
      guard let subcommand = subcommands.first(where: { $0.name == name }) else {
        Usage.fail("Unknown subcommand '\(name)'", usage: nil)
      }
      print(subcommand.usage.help)
    default:
      guard let subcommand = subcommands.first(where: { $0.name == first }) else {
        Usage.fail("Unexpected argument '\(first)'", usage: nil)
      }
      exit(subcommand.run(arguments))
    }
    exit(0)
  }
}

/// What a subcommand accepts, and its help text.
struct Usage: Sendable {
  /// The subcommand's name.
  var name: String
  /// The usage line after `strata NAME`.
  var synopsis: String
  /// The positional arguments: name, help, and whether it may be left out.
  var arguments: [(name: String, help: String, optional: Bool)]
  /// The flags (`--many`): name without dashes, help.
  var flags: [(name: String, help: String)]
  /// The options that take a value (`--root PATH`): name without dashes, the value's name, help.
  var options: [(name: String, value: String, help: String)] = []
  /// The overview and discussion printed first by `--help`.
  var overview: String

  /// The parsed command line of a subcommand.
  struct Parsed {
    /// The positional arguments given, in order.
    var positionals: [String]
    /// The flags given.
    var flags: Set<String>
    /// The options given, with their values (the last one wins).
    var values: [String: String] = [:]
  }

  /// The text of `strata NAME --help`.
  var help: String {
    var lines = [overview, "", "USAGE: strata \(name) \(synopsis)", "", "ARGUMENTS:"]
    for argument in arguments { lines += Usage.entry("<\(argument.name)>", argument.help) }
    lines += ["", "OPTIONS:"]
    for flag in flags { lines += Usage.entry("--\(flag.name)", flag.help) }
    for option in options { lines += Usage.entry("--\(option.name) <\(option.value)>", option.help) }
    lines += Usage.entry(
      "--json", "Print errors as one JSON list on stderr (by default: one line each, for a person).")
    lines += Usage.entry("--version", "Show the version.")
    lines += Usage.entry("-h, --help", "Show help information.")
    return lines.joined(separator: "\n") + "\n"
  }

  /// One entry of a help list: the name in a column of 24, the text wrapped at 80.
  static func entry(_ name: String, _ text: String) -> [String] {
    var lines: [String] = []
    var line = "  " + name
    line += String(repeating: " ", count: max(1, 26 - line.count))
    let indent = String(repeating: " ", count: 26)
    var empty = true
    for word in text.split(separator: " ") {
      if !empty && line.count + 1 + word.count > 79 {
        lines.append(line)
        line = indent
        empty = true
      }
      line += (empty ? "" : " ") + word
      empty = false
    }
    lines.append(line)
    return lines
  }

  /// Parses the arguments after the subcommand's name; prints help or a usage error and exits when asked to.
  static func parse(_ arguments: [String], _ usage: Usage) -> Parsed {
    var parsed = Parsed(positionals: [], flags: [])
    var onlyPositionals = false
    var pendingOption: String? = nil
    for argument in arguments {
      if let option = pendingOption {
        parsed.values[option] = argument
        pendingOption = nil
      } else if !onlyPositionals && argument.hasPrefix("-") && argument != "-" {
        switch argument {
        case "--":
          onlyPositionals = true
        case "-h", "--help":
          print(usage.help)
          exit(0)
        case "--version":
          print(StrataCommand.version)
          exit(0)
        case "--json":
          Output.json = true
          parsed.flags.insert("json")
        default:
          var name = String(argument.dropFirst(2))
          if argument.hasPrefix("--"), let equals = name.firstIndex(of: "="),
            usage.options.contains(where: { $0.name == String(name[..<equals]) })
          {
            parsed.values[String(name[..<equals])] = String(name[name.index(after: equals)...])
            continue
          }
          if argument.hasPrefix("--"), usage.options.contains(where: { $0.name == name }) {
            pendingOption = name
            continue
          }
          name = String(argument.dropFirst(2))
          guard argument.hasPrefix("--"), usage.flags.contains(where: { $0.name == name }) else {
            fail("Unknown option '\(argument)'", usage: usage)
          }
          parsed.flags.insert(name)
        }
      } else {
        guard parsed.positionals.count < usage.arguments.count else {
          fail("Unexpected argument '\(argument)'", usage: usage)
        }
        parsed.positionals.append(argument)
      }
    }
    if let option = pendingOption {
      fail("Missing value for '--\(option)'", usage: usage)
    }
    if parsed.positionals.count < usage.arguments.count {
      let missing = usage.arguments[parsed.positionals.count]
      if !missing.optional {
        fail(
          "Missing expected argument '<\(missing.name)>'\nHelp:  <\(missing.name)>  \(missing.help)",
          usage: usage)
      }
    }
    return parsed
  }

  /// Prints a usage error on stderr and exits with status 64.
  static func fail(_ message: String, usage: Usage?) -> Never {
    var text = "Error: \(message)\n"
    if let usage {
      text += "Usage: strata \(usage.name) \(usage.synopsis)\n"
      text += "  See 'strata \(usage.name) --help' for more information.\n"
    } else {
      text += "Usage: strata <subcommand>\n  See 'strata --help' for more information.\n"
    }
    Output.standardError(text)
    exit(64)
  }
}

/// `strata check SCHEMA`, or `strata check OLD NEW` to compare two versions.
enum Check {
  static let usage = Usage(
    name: "check",
    synopsis: "<schema> [<new>]",
    arguments: [
      ("schema", "The schema file (with NEW: the old version).", false),
      ("new", "The new version of the schema, to compare with the old one.", true),
    ],
    flags: [],
    overview: """
      OVERVIEW: Load a schema and print its errors (exit status 1 if there are any).

      With two schemas, OLD and NEW, print every change from OLD to NEW that matters
      to data written under OLD, one per line, marked BREAKING (old archives or old
      JSON could no longer be read) or ok; the exit status is 1 when any change is
      breaking.
      """)

  /// Runs the command; returns the exit status.
  static func run(_ parsed: Usage.Parsed) -> Int32 {
    let schema = parsed.positionals[0]
    if parsed.positionals.count > 1 {
      return compare(old: schema, new: parsed.positionals[1])
    }
    do {
      let loaded = try Schema(contentsOfFile: schema)
      print(
        "\(schema): ok, \(loaded.modelNames.count) models (\(loaded.modelNames.joined(separator: ", "))), version \(loaded.version)"
      )
      return 0
    } catch {
      Output.errors(error, file: schema)
      return 1
    }
  }

  /// `strata check OLD NEW`: one line per change, exit status 1 if any breaks old data.
  static func compare(old: String, new: String) -> Int32 {
    var loaded: [Schema] = []
    for file in [old, new] {
      do {
        loaded.append(try Schema(contentsOfFile: file))
      } catch {
        Output.errors(error, file: file)
        return 1
      }
    }
    let schemas = (loaded[0], loaded[1])
    let changes = Schema.compare(old: schemas.0, new: schemas.1)
    for change in changes {
      let owner = change.property.isEmpty ? change.model : "\(change.model).\(change.property)"
      let mark = change.breaking ? "BREAKING" : "ok"
      print("\(mark)\t\(change.change.rawValue)\t\(owner)\t\(change.path)\t\(change.message)")
    }
    let breaking = changes.filter(\.breaking).count
    print(
      "\(old) -> \(new): \(changes.count) change\(changes.count == 1 ? "" : "s"), \(breaking) breaking (version \(schemas.0.version) -> \(schemas.1.version))"
    )
    return breaking > 0 ? 1 : 0
  }
}

/// `strata map SCHEMA MODEL [INPUT|-] [--many | --lines] [--serialize] [--response] [--root PATH] [--meta PATH:MODEL]`
enum MapCommand {
  static let usage = Usage(
    name: "map",
    synopsis:
      "<schema> <model> [<input>] [--many | --lines] [--serialize] [--response] [--root <path>] [--meta <path:model>]",
    arguments: [
      ("schema", "The schema file.", false),
      ("model", "The model to map onto.", false),
      ("input", "The JSON input file, or - for standard input. (default: -)", true),
    ],
    flags: [
      ("many", "The input is an array: map every element."),
      (
        "lines",
        "The input is JSON lines: print one compact JSON line per model, and each bad line's errors as one JSON line on stderr (with \"line\"); the exit status is 1 if any line failed."
      ),
      ("serialize", "Print the serialized JSON (model -> JSON) instead of the canonical dictionary."),
      (
        "response",
        "The input is an API response: map the records at the model's root (and its meta), print {\"records\", \"metadata\"}."
      ),
    ],
    options: [
      (
        "root", "path",
        "Where the records are in the response (a key path or JSON Pointer; \"\" for all of it). Implies --response."
      ),
      (
        "meta", "path:model",
        "Where the paging metadata is, and its model (e.g. search_metadata:SearchMetadata). Implies --response."
      ),
    ],
    overview: """
      OVERVIEW: Map JSON onto a model and print its canonical dictionary (or, with
      --serialize, the JSON after the round trip).

      On failure the error list is printed as JSON on stderr and the exit status is 1.
      """)

  /// Runs the command; returns the exit status.
  static func run(_ parsed: Usage.Parsed) -> Int32 {
    let schema = parsed.positionals[0]
    let model = parsed.positionals[1]
    let input = parsed.positionals.count > 2 ? parsed.positionals[2] : "-"
    let many = parsed.flags.contains("many")
    let serialize = parsed.flags.contains("serialize")
    let loaded: Schema
    do {
      loaded = try Schema(contentsOfFile: schema)
    } catch {
      Output.errors(error, file: schema)
      return 1
    }
    do {
      if parsed.flags.contains("lines") {
        let response =
          parsed.flags.contains("response") || parsed.values["root"] != nil || parsed.values["meta"] != nil
        guard !many && !response else {
          Output.errors(
            StrataError([
              ErrorDetail(
                path: "", code: .argument, message: "--lines goes with neither --many nor --response")
            ]))
          return 1
        }
        return LinesCommand.run(loaded, model, input, serialize: serialize)
      }
      guard let text = Output.read(input) else {
        Output.errors(StrataError([ErrorDetail(path: "", code: .io, message: "cannot read '\(input)'")]))
        return 1
      }
      if parsed.flags.contains("response") || parsed.values["root"] != nil || parsed.values["meta"] != nil {
        guard !many else {
          Output.errors(
            StrataError([
              ErrorDetail(path: "", code: .argument, message: "--many and --response do not go together")
            ]))
          return 1
        }
        var meta: ResponseMeta? = nil
        if let spec = parsed.values["meta"] {
          guard let read = ResponseMeta(commandLine: spec) else { return 1 }
          meta = read
        }
        let response = try loaded.mapResponse(model, parsing: text, root: parsed.values["root"], meta: meta)
        let records = try response.records.map { serialize ? try $0.json : $0.dictionary }
        let metadata = try response.metadata.map { serialize ? try $0.json : $0.dictionary } ?? .null
        print(JSON.object(["records": .array(records), "metadata": metadata]).serialized(indent: 2))
        return 0
      }
      let models = many ? try loaded.mapMany(model, parsing: text) : [try loaded.map(model, parsing: text)]
      let shown = try models.map { serialize ? try $0.json : $0.dictionary }
      print((many ? JSON.array(shown) : shown[0]).serialized(indent: 2))
      return 0
    } catch {
      Output.errors(error, file: input)
      return 1
    }
  }
}

/// Reading input and printing errors.
enum Output {
  /// True when `--json` was given: errors print as one JSON list.
  nonisolated(unsafe) static var json = false

  /// The errors on stderr: one line each for a person
  /// (`FILE: PATH [Model.property] message`), or with `--json` the list as JSON.
  /// `file` names where the errors point (nil when they point nowhere in a file).
  static func errors(_ error: StrataError, file: String? = nil) {
    guard json else {
      standardError(error.errors.map { humanLine($0, file: file) }.joined())
      return
    }
    let list = JSON.array(
      error.errors.map {
        [
          "path": .string($0.path), "model": .string($0.model), "property": .string($0.property),
          "code": .string($0.code.rawValue), "message": .string($0.message),
        ]
      })
    standardError(list.serialized(indent: 2) + "\n")
  }

  /// Any error: a StrataError's list, or the error's description as one line.
  static func errors(_ error: any Error, file: String? = nil) {
    if let error = error as? StrataError {
      errors(error, file: file)
    } else {
      errors(StrataError([ErrorDetail(path: "", code: .argument, message: "\(error)")]), file: file)
    }
  }

  /// One error as a line for a person: `FILE[:LINE]: PATH [Model.property] message`.
  static func humanLine(_ detail: ErrorDetail, file: String?, line: Int? = nil) -> String {
    var parts: [String] = []
    if let file {
      let name = file == "-" ? "<stdin>" : file
      parts.append(line.map { "\(name):\($0):" } ?? "\(name):")
    } else if let line {
      parts.append("line \(line):")
    }
    if !detail.path.isEmpty { parts.append(detail.path) }
    if !detail.model.isEmpty {
      parts.append(detail.property.isEmpty ? "[\(detail.model)]" : "[\(detail.model).\(detail.property)]")
    }
    parts.append(detail.message)
    return parts.joined(separator: " ") + "\n"
  }

  /// Writes text on stderr, unbuffered (after flushing stdout, so the two keep their order).
  static func standardError(_ message: String) {
    fflush(nil)
    var text = message
    text.withUTF8 { bytes in
      var offset = 0
      while offset < bytes.count {
        let written = write(2, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
        if written <= 0 { break }
        offset += written
      }
    }
  }

  /// The whole text of a file, or of standard input for "-".
  static func read(_ path: String) -> String? {
    let descriptor = path == "-" ? 0 : open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { if path != "-" { close(descriptor) } }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 { return nil }
      if count == 0 { break }
      bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
