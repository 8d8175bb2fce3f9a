import ArgumentParser
import Glibc
import Strata

/// The `strata` command: check schemas and map JSON from the shell.
@main
struct StrataCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "strata",
    abstract: "Map JSON onto the models of a Strata schema.",
    version: "0.1.0",
    subcommands: [Check.self, MapCommand.self]
  )
}

/// `strata check SCHEMA`, or `strata check OLD NEW` to compare two versions.
struct Check: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Load a schema and print its errors (exit status 1 if there are any).",
    discussion: """
      With two schemas, OLD and NEW, print every change from OLD to NEW that matters to data written \
      under OLD, one per line, marked BREAKING (old archives or old JSON could no longer be read) or ok; \
      the exit status is 1 when any change is breaking.
      """)

  @Argument(help: "The schema file (with NEW: the old version).")
  var schema: String

  @Argument(help: "The new version of the schema, to compare with the old one.")
  var new: String? = nil

  func run() throws {
    if let new {
      try compare(old: schema, new: new)
      return
    }
    do {
      let loaded = try Schema(contentsOfFile: schema)
      print(
        "\(schema): ok, \(loaded.modelNames.count) models (\(loaded.modelNames.joined(separator: ", "))), version \(loaded.version)"
      )
    } catch {
      Output.errors(error)
      throw ExitCode(1)
    }
  }
}

extension Check {
  /// `strata check OLD NEW`: one line per change, exit status 1 if any breaks old data.
  func compare(old: String, new: String) throws {
    let schemas: (Schema, Schema)
    do {
      schemas = (try Schema(contentsOfFile: old), try Schema(contentsOfFile: new))
    } catch {
      Output.errors(error)
      throw ExitCode(1)
    }
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
    if breaking > 0 { throw ExitCode(1) }
  }
}

/// `strata map SCHEMA MODEL [INPUT|-] [--many] [--serialize]`
struct MapCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "map",
    abstract:
      "Map JSON onto a model and print its canonical dictionary (or, with --serialize, the JSON after the round trip).",
    discussion: "On failure the error list is printed as JSON on stderr and the exit status is 1.")

  @Argument(help: "The schema file.")
  var schema: String

  @Argument(help: "The model to map onto.")
  var model: String

  @Argument(help: "The JSON input file, or - for standard input.")
  var input: String = "-"

  @Flag(help: "The input is an array: map every element.")
  var many = false

  @Flag(help: "Print the serialized JSON (model -> JSON) instead of the canonical dictionary.")
  var serialize = false

  func run() throws {
    do {
      let loaded = try Schema(contentsOfFile: schema)
      guard let text = Output.read(input) else {
        Output.errors(StrataError([ErrorDetail(path: "", code: .io, message: "cannot read '\(input)'")]))
        throw ExitCode(1)
      }
      let models = many ? try loaded.mapMany(model, text: text) : [try loaded.map(model, text: text)]
      let shown = try models.map { serialize ? try $0.json : $0.dictionary }
      print((many ? JSON.array(shown) : shown[0]).serialized(indent: 2))
    } catch let error as StrataError {
      Output.errors(error)
      throw ExitCode(1)
    }
  }
}

/// Reading input and printing errors.
enum Output {
  /// The error list as JSON on stderr.
  static func errors(_ error: StrataError) {
    let list = JSON.array(
      error.errors.map {
        [
          "path": .string($0.path), "model": .string($0.model), "property": .string($0.property),
          "code": .string($0.code.rawValue), "message": .string($0.message),
        ]
      })
    var text = list.serialized(indent: 2) + "\n"
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
