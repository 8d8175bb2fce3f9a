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

/// `strata check SCHEMA`
struct Check: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Load a schema and print its errors (exit status 1 if there are any).")

  @Argument(help: "The schema file.")
  var schema: String

  func run() throws {
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
