/// A type as the schema writes it, before names resolve to models: what
/// generic models need to substitute their parameters (`Page<T>` with
/// `T = Tweet`) and to name their instances canonically (`Page<Tweet>`).
indirect enum TypeExpression: Equatable, Sendable {
  /// A name (a built-in type, a model, a type parameter), with type
  /// arguments when it applies a generic model (`Page<Tweet>`).
  case named(String, [TypeExpression])
  /// `[T]`
  case array(TypeExpression)
  /// `{T}`
  case dict(TypeExpression)
  /// `T?`
  case optional(TypeExpression)

  /// How deeply a type expression may nest: far more than any schema needs,
  /// and little enough stack for any thread.
  static let maxDepth = 64

  /// The canonical spelling: no spaces, but one after each comma
  /// (`Pair<[Tweet], int?>`). Instances of generic models are named so.
  var text: String {
    switch self {
    case .named(let name, let arguments):
      if arguments.isEmpty { return name }
      return name + "<" + arguments.map(\.text).joined(separator: ", ") + ">"
    case .array(let element): return "[" + element.text + "]"
    case .dict(let element): return "{" + element.text + "}"
    case .optional(let element): return element.text + "?"
    }
  }

  /// True when the expression applies a generic model anywhere.
  var appliesGeneric: Bool {
    switch self {
    case .named(_, let arguments): return !arguments.isEmpty
    case .array(let element), .dict(let element), .optional(let element): return element.appliesGeneric
    }
  }

  /// The expression with each type parameter replaced by its argument.
  /// `T?` with `T = X?` is `X?` (null is null, once).
  func substituting(_ arguments: [String: TypeExpression]) -> TypeExpression {
    switch self {
    case .named(let name, let inner):
      if inner.isEmpty, let replacement = arguments[name] { return replacement }
      return .named(name, inner.map { $0.substituting(arguments) })
    case .array(let element): return .array(element.substituting(arguments))
    case .dict(let element): return .dict(element.substituting(arguments))
    case .optional(let element):
      let replaced = element.substituting(arguments)
      if case .optional = replaced { return replaced }
      return .optional(replaced)
    }
  }

  /// Calls `body` for every name in the expression, outermost first, with
  /// its arguments.
  func forEachName(_ body: (String, [TypeExpression]) -> Void) {
    switch self {
    case .named(let name, let arguments):
      body(name, arguments)
      for argument in arguments { argument.forEachName(body) }
    case .array(let element), .dict(let element), .optional(let element): element.forEachName(body)
    }
  }

  /// Parses a type expression, or says why it cannot.
  static func parse(_ text: String) -> Result<TypeExpression, TypeParseError> {
    var parser = TypeExpressionParser(Array(text.unicodeScalars))
    let result = parser.type(depth: 0)
    if case .success = result {
      parser.skipSpaces()
      if !parser.atEnd {
        return .failure(TypeParseError(message: "'\(text)' has unexpected text after a type"))
      }
    }
    return result.mapError { TypeParseError(message: "'\(text)': \($0.message)") }
  }
}

/// A recursive-descent reader of type expressions, bounded in depth.
private struct TypeExpressionParser {
  let scalars: [Unicode.Scalar]
  var position = 0

  init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

  var atEnd: Bool { position >= scalars.count }

  mutating func skipSpaces() {
    while position < scalars.count, scalars[position] == " " { position += 1 }
  }

  mutating func take(_ scalar: Unicode.Scalar) -> Bool {
    skipSpaces()
    if position < scalars.count, scalars[position] == scalar {
      position += 1
      return true
    }
    return false
  }

  static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
    (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9")
      || scalar == "_"
  }

  mutating func type(depth: Int) -> Result<TypeExpression, TypeParseError> {
    guard depth < TypeExpression.maxDepth else {
      return .failure(TypeParseError(message: "types nest at most \(TypeExpression.maxDepth) levels"))
    }
    let base: TypeExpression
    if take("[") {
      guard case .success(let element) = type(depth: depth + 1).flatMap({ inner in close("]", inner) }) else {
        return .failure(TypeParseError(message: "'[' needs a type and a closing ']'"))
      }
      base = .array(element)
    } else if take("{") {
      guard case .success(let element) = type(depth: depth + 1).flatMap({ inner in close("}", inner) }) else {
        return .failure(TypeParseError(message: "'{' needs a type and a closing '}'"))
      }
      base = .dict(element)
    } else {
      skipSpaces()
      let start = position
      while position < scalars.count, Self.isNameScalar(scalars[position]) { position += 1 }
      guard position > start else {
        return .failure(TypeParseError(message: "expected a type name"))
      }
      var name = ""
      name.unicodeScalars.append(contentsOf: scalars[start..<position])
      var arguments: [TypeExpression] = []
      if take("<") {
        repeat {
          switch type(depth: depth + 1) {
          case .success(let argument): arguments.append(argument)
          case .failure(let error): return .failure(error)
          }
        } while take(",")
        guard take(">") else {
          return .failure(TypeParseError(message: "'<' of '\(name)' needs a closing '>'"))
        }
      }
      base = .named(name, arguments)
    }
    if take("?") {
      skipSpaces()
      if position < scalars.count, scalars[position] == "?" {
        return .failure(TypeParseError(message: "a type has at most one '?'"))
      }
      return .success(.optional(base))
    }
    return .success(base)
  }

  mutating func close(
    _ scalar: Unicode.Scalar, _ inner: TypeExpression
  ) -> Result<TypeExpression, TypeParseError> {
    take(scalar) ? .success(inner) : .failure(TypeParseError(message: "unclosed"))
  }
}
