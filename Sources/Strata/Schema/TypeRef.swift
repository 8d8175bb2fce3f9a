/// The type of a property: a scalar, a model, or a collection of types.
package indirect enum TypeRef: Sendable {
  case string
  case int
  case double
  case bool
  case url
  case json
  /// An instant, stored in canonical RFC 3339 UTC form.
  case date
  /// A model, by its index in the schema.
  case model(Int)
  /// `[T]`
  case array(TypeRef)
  /// `{T}`
  case dict(TypeRef)
  /// `T?`
  case optional(TypeRef)

  /// True when no model appears anywhere in the type, so that a value of the
  /// type is stored as a single JSON value.
  package var isLeafy: Bool {
    switch self {
    case .string, .int, .double, .bool, .url, .json, .date: return true
    case .model: return false
    case .array(let element), .dict(let element), .optional(let element): return element.isLeafy
    }
  }

  /// True for `json`.
  var isJSON: Bool {
    if case .json = self { return true }
    return false
  }

  /// True for `T?` and `json`, the types that accept null.
  package var acceptsNull: Bool {
    switch self {
    case .optional, .json: return true
    default: return false
    }
  }

  /// True for `[T]`.
  package var isArray: Bool {
    if case .array = self { return true }
    return false
  }

  /// The type without its outer `?`.
  package var unwrapped: TypeRef {
    if case .optional(let inner) = self { return inner }
    return self
  }

  /// The type as the schema writes it.
  package func name(models: [String]) -> String {
    switch self {
    case .string: return "string"
    case .int: return "int"
    case .double: return "double"
    case .bool: return "bool"
    case .url: return "url"
    case .json: return "json"
    case .date: return "date"
    case .model(let index): return index < models.count ? models[index] : "?"
    case .array(let element): return "[\(element.name(models: models))]"
    case .dict(let element): return "{\(element.name(models: models))}"
    case .optional(let element): return "\(element.name(models: models))?"
    }
  }

  /// Parses a type expression; model names resolve through `lookup`.
  /// Returns nil and a message on failure.
  static func parse(_ text: String, lookup: (String) -> Int?) -> Result<TypeRef, TypeParseError> {
    var trimmed = Substring(text)
    while trimmed.first == " " { trimmed = trimmed.dropFirst() }
    while trimmed.last == " " { trimmed = trimmed.dropLast() }
    if trimmed.isEmpty { return .failure(TypeParseError(message: "a type cannot be empty")) }
    if trimmed.hasSuffix("?") {
      let inner = String(trimmed.dropLast())
      if inner.hasSuffix("?") {
        return .failure(TypeParseError(message: "'\(text)' has more than one '?'"))
      }
      return parse(inner, lookup: lookup).map { .optional($0) }
    }
    if trimmed.hasPrefix("[") {
      guard trimmed.hasSuffix("]"), trimmed.count >= 2 else {
        return .failure(TypeParseError(message: "'\(text)' opens '[' without closing it"))
      }
      return parse(String(trimmed.dropFirst().dropLast()), lookup: lookup).map { .array($0) }
    }
    if trimmed.hasPrefix("{") {
      guard trimmed.hasSuffix("}"), trimmed.count >= 2 else {
        return .failure(TypeParseError(message: "'\(text)' opens '{' without closing it"))
      }
      return parse(String(trimmed.dropFirst().dropLast()), lookup: lookup).map { .dict($0) }
    }
    switch trimmed {
    case "string": return .success(.string)
    case "int": return .success(.int)
    case "double": return .success(.double)
    case "bool": return .success(.bool)
    case "url": return .success(.url)
    case "json": return .success(.json)
    case "date": return .success(.date)
    default:
      if let index = lookup(String(trimmed)) { return .success(.model(index)) }
      return .failure(
        TypeParseError(
          message: "unknown type '\(trimmed)': not a built-in type nor a model of the schema",
          unknownName: String(trimmed)))
    }
  }
}

/// Why a type expression could not be parsed.
struct TypeParseError: Error {
  let message: String
  /// The name that is neither a built-in type nor a model, when that is the problem.
  var unknownName: String? = nil
}
