/// One error: where it is, which model and property failed, what kind, and why.
public struct ErrorDetail: Sendable, Hashable, CustomStringConvertible {
  /// RFC 6901 JSON Pointer into the input given to the call (or the schema document).
  public var path: String
  /// The model that failed, or "" for an error of the whole input.
  public var model: String
  /// The property that failed, or "".
  public var property: String
  /// The kind of error.
  public var code: ErrorCode
  /// One line for a person, naming the expected and the actual.
  public var message: String
  /// For an error of JSON lines (docs/lines.md): the 1-based number of the
  /// line it belongs to, whose value `path` points into. Nil otherwise.
  public var line: Int?

  /// Makes an error from its fields.
  public init(
    path: String, model: String = "", property: String = "", code: ErrorCode, message: String,
    line: Int? = nil
  ) {
    self.path = path
    self.model = model
    self.property = property
    self.code = code
    self.message = message
    self.line = line
  }

  /// `path: message (code)`, with the model and property when known.
  public var description: String {
    var place = path.isEmpty ? "(input)" : path
    if !model.isEmpty {
      place += property.isEmpty ? " [\(model)]" : " [\(model).\(property)]"
    }
    if let line { place = "line \(line): " + place }
    return "\(place): \(message) (\(code.rawValue))"
  }
}

/// The error thrown by every failing Strata call: all errors of the call.
public struct StrataError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Every error of the call, in the order they were found.
  public var errors: [ErrorDetail]

  /// Makes an error from a list of details.
  public init(_ errors: [ErrorDetail]) {
    self.errors = errors
  }

  /// An error with a single detail.
  package init(path: String = "", code: ErrorCode, message: String) {
    self.errors = [ErrorDetail(path: path, code: code, message: message)]
  }

  /// The first error's code.
  public var code: ErrorCode { errors.first?.code ?? .argument }

  /// The errors, one per line.
  public var description: String {
    errors.map(\.description).joined(separator: "\n")
  }
}
