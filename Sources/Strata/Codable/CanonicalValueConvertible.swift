/// A type that the Codable bridge reads from, and writes as, one canonical
/// value itself, instead of going through its own `Decodable` / `Encodable`
/// conformance.
///
/// The bridge (``Schema/decode(_:model:from:)``, ``Model/decode(_:)`` and
/// ``Schema/model(_:from:)``) asks this of every value it meets before it
/// asks `Decodable`. It is the hook for types whose `Codable` form is not the
/// value a schema holds: ``Timestamp`` (and, in the opt-in `StrataFoundation`
/// library, `Date` and `URL`) read the canonical RFC 3339 string of a `date`
/// property and the string of a `url` property.
///
/// ```swift
/// struct Cents: Codable, CanonicalValueConvertible {
///   var amount: Int64
///   init(canonicalValue: JSON) throws {
///     guard case .double(let value) = canonicalValue else { throw CanonicalValueError("not a real") }
///     amount = Int64((value * 100).rounded())
///   }
///   func canonicalValue() throws -> JSON { .double(Double(amount) / 100) }
/// }
/// ```
public protocol CanonicalValueConvertible {
  /// Reads the value from the canonical value of a property (never `null`:
  /// the bridge handles null through `Optional`). An error thrown here
  /// becomes a `format` error at the value's path.
  init(canonicalValue: JSON) throws

  /// The canonical value that stands for this value. An error thrown here
  /// becomes a `type` error at the value's path.
  func canonicalValue() throws -> JSON
}

/// Why a ``CanonicalValueConvertible`` type could not read a canonical value:
/// the message becomes the `format` error's message.
public struct CanonicalValueError: Error, Sendable, Hashable, CustomStringConvertible {
  /// One line for a person, naming the expected and the actual.
  public var message: String

  /// An error with its message.
  public init(_ message: String) {
    self.message = message
  }

  /// The message.
  public var description: String { message }
}

extension JSON: CanonicalValueConvertible {
  /// The canonical value itself (a `json` property keeps its value as is).
  public init(canonicalValue: JSON) throws {
    self = canonicalValue
  }

  /// The value itself.
  public func canonicalValue() throws -> JSON { self }
}

extension Timestamp: CanonicalValueConvertible {
  /// Reads the canonical RFC 3339 string of a `date` property (any ISO 8601
  /// form ``Timestamp/init(parsing:)`` reads).
  public init(canonicalValue: JSON) throws {
    guard case .string(let text) = canonicalValue else {
      throw CanonicalValueError("expected a date string, found \(canonicalValue.typeName)")
    }
    self = try Timestamp(parsing: text)
  }

  /// The canonical RFC 3339 UTC string.
  public func canonicalValue() throws -> JSON { .string(description) }
}

extension JSON {
  /// The JSON type's name for messages: `null`, `a boolean`, `an integer`, ...
  var typeName: String {
    switch self {
    case .null: return "null"
    case .bool: return "a boolean"
    case .int: return "an integer"
    case .double: return "a real"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}
