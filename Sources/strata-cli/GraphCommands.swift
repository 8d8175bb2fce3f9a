import Glibc
import Strata
import StrataGraph

/// `strata import SCHEMA MODEL INPUT --db FILE [--root PATH] [--meta PATH:MODEL]`: imports a
/// response into a graph file and prints what it did.
enum ImportCommand {
  static let usage = Usage(
    name: "import",
    synopsis:
      "<schema> <model> [<input>] --db <file> [--root <path>] [--meta <path:model>] [--delete-orphans <rule>]",
    arguments: [
      ("schema", "The schema file.", false),
      ("model", "The model of the records (it must have a primaryKey).", false),
      ("input", "The JSON input file, or - for standard input. (default: -)", true),
    ],
    flags: [],
    options: [
      ("db", "file", "The SQLite graph file (created when missing), or a postgresql:// URL."),
      (
        "root", "path",
        "Where the records are in the response (a key path or JSON Pointer), over the model's root."
      ),
      (
        "meta", "path:model",
        "Where the paging metadata is, and its model (e.g. search_metadata:SearchMetadata), over the model's meta."
      ),
      (
        "delete-orphans", "rule",
        "Delete the records in scope that the response did not contain: {\"model\": M, \"where\": {property: value}, \"scope\": \"all\" | \"top\"} (\"top\": only top-level records count as contained)."
      ),
    ],
    overview: """
      OVERVIEW: Import the records of a model from a JSON response into a graph file
      (docs/graph.md): each record found by its key and updated, or made; relationships
      linked with their inverses. Prints {"records", "created", "updated", "unchanged",
      "deleted", "warnings", "metadata"} ("metadata": the response's paging metadata as
      `strata map --response` prints it, or null).

      The import is one transaction: on any error nothing changes, the errors are printed
      on stderr and the exit status is 1.
      """)

  /// Runs the command; returns the exit status.
  static func run(_ parsed: Usage.Parsed) -> Int32 {
    guard let database = parsed.values["db"] else { Usage.fail("Missing --db <file>", usage: usage) }
    let input = parsed.positionals.count > 2 ? parsed.positionals[2] : "-"
    guard let schema = GraphFile.schema(parsed) else { return 1 }
    guard let text = Output.read(input) else {
      Output.errors(
        StrataError([ErrorDetail(path: "", code: .io, message: "cannot read '\(input)'")]), file: input)
      return 1
    }
    // The options object C and Python give, read by the engine's reader:
    // an unknown member is the same error on every face.
    var options: [(String, JSON)] = []
    if let root = parsed.values["root"] { options.append(("root", .string(root))) }
    if let spec = parsed.values["meta"] {
      guard let meta = ResponseMeta(commandLine: spec) else { return 1 }
      options.append(("meta", .object(["path": .string(meta.path), "model": .string(meta.model)])))
    }
    if let written = parsed.values["delete-orphans"] {
      guard let rule = try? JSON(parsing: written) else {
        Usage.fail(
          "--delete-orphans takes a JSON object: {\"model\": M, \"where\": {...}, \"scope\": \"all\" | \"top\"}",
          usage: usage)
      }
      if rule["keep"] != nil {
        Output.errors(
          StrataError([
            ErrorDetail(
              path: "", code: .argument,
              message:
                "--delete-orphans: \"keep\" takes a function, which the command line cannot run (C, Python and Swift take one)"
            )
          ]), file: nil)
        return 1
      }
      options.append(("delete_orphans", rule))
    }
    guard let context = GraphFile.create(schema, database) else { return 1 }
    defer { context.close() }
    do {
      let result = try context.import(
        parsed.positionals[1], parsing: text, options: .object(JSONObject(options)))
      func counts(_ values: [String: Int]) -> JSON {
        .object(JSONObject(values.sorted { $0.key < $1.key }.map { ($0.key, JSON.int(Int64($0.value))) }))
      }
      let warnings = JSON.array(
        result.warnings.map {
          .object(["path": .string($0.path), "model": .string($0.model), "message": .string($0.message)])
        })
      let report: JSON = .object([
        "records": .int(Int64(result.records.count)), "created": counts(result.created),
        "updated": counts(result.updated), "unchanged": counts(result.unchanged),
        "deleted": counts(result.deleted), "warnings": warnings,
        "metadata": result.metadata?.dictionary ?? .null,
      ])
      print(report.serialized(indent: 2))
      return 0
    } catch {
      // An `io` error is the graph file's (it could not be written); the
      // others point into the input.
      let isFiles = error.errors.contains { $0.code == .io }
      Output.errors(error, file: isFiles ? database : input == "-" ? nil : input)
      return 1
    }
  }
}

/// `strata get SCHEMA MODEL KEY --db FILE`: prints a record of a graph file.
enum GetCommand {
  static let usage = Usage(
    name: "get",
    synopsis: "<schema> <model> <key> --db <file> [--flat | --depth <n>]",
    arguments: [
      ("schema", "The schema file.", false),
      ("model", "The model of the record.", false),
      (
        "key", "The key as JSON (7, '\"octocat\"', '[\"org\",\"login\"]'); a bare word is taken as a string.",
        false
      ),
    ],
    flags: [("flat", "Print relationships as keys instead of nesting the related records.")],
    options: [
      ("db", "file", "The SQLite graph file, or a postgresql:// URL."),
      (
        "depth", "n",
        "Nest the related records of the first n levels only, and print those below as keys (0: as --flat)."
      ),
    ],
    overview: """
      OVERVIEW: Print the record of a model under a key, from a graph file: its canonical
      dictionary with relationships nested (a record met again on a cycle as its key).

      The exit status is 1 when there is no such record (nothing is printed) or on error.
      """)

  /// Runs the command; returns the exit status.
  static func run(_ parsed: Usage.Parsed) -> Int32 {
    guard let database = parsed.values["db"] else { Usage.fail("Missing --db <file>", usage: usage) }
    guard let schema = GraphFile.schema(parsed) else { return 1 }
    let written = parsed.positionals[2]
    let key = (try? JSON(parsing: written)) ?? .string(written)
    guard let context = GraphFile.open(schema, database) else { return 1 }
    defer { context.close() }
    do {
      guard let record = try context.get(parsed.positionals[1], key: key) else {
        Output.standardError("strata get: no '\(parsed.positionals[1])' record under \(key.serialized())\n")
        return 1
      }
      let shown: JSON
      if parsed.flags.contains("flat") {
        shown = record.model.dictionary
      } else if let levels = GraphFile.wholeNumber("depth", parsed, usage: usage) {
        shown = try record.dictionary(levels: levels)
      } else {
        shown = try record.dictionary
      }
      print(shown.serialized(indent: 2))
      return 0
    } catch {
      Output.errors(error, file: database)
      return 1
    }
  }
}

extension ResponseMeta {
  /// Reads `--meta PATH:MODEL` (split at the last colon, so a JSON Pointer
  /// path may hold colons); nil after printing the error.
  init?(commandLine spec: String) {
    guard let colon = spec.lastIndex(of: ":") else {
      Output.errors(
        StrataError([
          ErrorDetail(path: "", code: .argument, message: "--meta takes PATH:MODEL, not '\(spec)'")
        ]))
      return nil
    }
    self.init(path: String(spec[..<colon]), model: String(spec[spec.index(after: colon)...]))
  }
}

/// What the commands on a graph file share: the schema named first, the
/// existing file of `--db`, and whole-number options.
enum GraphFile {
  /// The schema file of the first argument; nil after printing its errors.
  static func schema(_ parsed: Usage.Parsed) -> Schema? {
    let path = parsed.positionals[0]
    do {
      return try Schema(contentsOfFile: path)
    } catch {
      Output.errors(error, file: path)
      return nil
    }
  }

  /// A context on the graph at `path` (an SQLite file, created when
  /// missing, or a PostgreSQL URL); nil after printing the error.
  static func create(_ schema: Schema, _ path: String) -> Context? {
    do {
      return try Context(schema: schema, path: path)
    } catch {
      Output.errors(error, file: path)
      return nil
    }
  }

  /// A context on the graph file at `path`, which must exist (a command
  /// that reads makes no file), or on the PostgreSQL graph a URL names;
  /// nil after printing the error.
  static func open(_ schema: Schema, _ path: String) -> Context? {
    guard PostgresURL.isPostgres(path) || access(path, F_OK) == 0 else {
      Output.errors(
        StrataError([ErrorDetail(path: "", code: .io, message: "no graph file '\(path)'")]), file: path)
      return nil
    }
    do {
      return try Context(schema: schema, path: path)
    } catch {
      Output.errors(error, file: path)
      return nil
    }
  }

  /// The option `--name`: a whole number >= 0, or nil when not given (a
  /// usage error otherwise).
  static func wholeNumber(_ name: String, _ parsed: Usage.Parsed, usage: Usage) -> Int? {
    guard let written = parsed.values[name] else { return nil }
    guard let value = Int(written), value >= 0 else {
      Usage.fail("--\(name) takes a whole number >= 0, not '\(written)'", usage: usage)
    }
    return value
  }
}
