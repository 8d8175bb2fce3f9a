import CJansson

/// The outcome of one transformer step: a new reference, or why the value could not be read.
package enum TransformOutcome {
  /// The transformed value (a new reference).
  case value(JPtr)
  /// The value could not be read: every culprit found.
  case failed([TransformFailure])

  /// One failure: the message names expected and actual, `at` the keys and
  /// indices from the transformed value down to the culprit.
  package static func failure(_ message: String, at: [String] = []) -> TransformOutcome {
    .failed([TransformFailure(message: message, at: at)])
  }
}

/// Why a transformer could not read a value, and where inside it.
package struct TransformFailure: Sendable {
  /// One line naming expected and actual.
  package let message: String
  /// Keys and indices from the transformed value down to the culprit.
  package let at: [String]
}

/// A named two-way value transformer: JSON value -> model value (forward) and
/// back (reverse). Built-in ones are listed in `BuiltinTransformers`; host
/// programs register their own (Swift closures, C callbacks, Python callables)
/// before the schema is loaded. Transformers are immutable and may be called
/// from several threads at once.
package final class Transformer: @unchecked Sendable {
  /// The name schemas use in `transform`.
  package let name: String
  /// JSON value (borrowed) -> model value.
  let forward: (JPtr) -> TransformOutcome
  /// Model value (borrowed) -> JSON value; nil for a one-way transformer,
  /// whose values are written back unchanged.
  let reverse: ((JPtr) -> TransformOutcome)?
  /// Called once when the transformer is destroyed (a C host's payload release).
  private let release: (() -> Void)?
  /// What the transformer reads from API JSON, for the JSON Schema of a
  /// property it is first on; nil for a host's transformer, whose JSON side
  /// is not known.
  let jsonSide: JSONSide?

  /// What a transformer reads from API JSON.
  enum JSONSide {
    /// A JSON string.
    case string
    /// A JSON number.
    case number
    /// Any scalar (strings, numbers and booleans, each read by its own rule).
    case scalar
  }

  /// A host's transformer from its functions (its JSON side is not known).
  package convenience init(
    name: String, forward: @escaping (JPtr) -> TransformOutcome,
    reverse: ((JPtr) -> TransformOutcome)?, release: (() -> Void)? = nil
  ) {
    self.init(name: name, forward: forward, reverse: reverse, release: release, jsonSide: nil)
  }

  /// A transformer from its functions and what it reads from API JSON.
  init(
    name: String, forward: @escaping (JPtr) -> TransformOutcome,
    reverse: ((JPtr) -> TransformOutcome)?, release: (() -> Void)? = nil, jsonSide: JSONSide?
  ) {
    self.name = name
    self.forward = forward
    self.reverse = reverse
    self.release = release
    self.jsonSide = jsonSide
  }

  deinit { release?() }
}

/// A custom transformer for the Swift API: closures over `JSON` values.
/// A thrown error becomes a `format` error whose message is the error's description.
public struct ValueTransformer: Sendable {
  /// JSON value -> model value.
  public let forward: @Sendable (JSON) throws -> JSON
  /// Model value -> JSON value; nil for a one-way transformer.
  public let reverse: (@Sendable (JSON) throws -> JSON)?

  /// A transformer from its two directions (`reverse` nil: one-way).
  public init(
    forward: @escaping @Sendable (JSON) throws -> JSON, reverse: (@Sendable (JSON) throws -> JSON)? = nil
  ) {
    self.forward = forward
    self.reverse = reverse
  }

  /// The engine's form of this transformer.
  func engineTransformer(named name: String) -> Transformer {
    let forward = self.forward
    let reverse = self.reverse
    return Transformer(
      name: name, forward: { Self.call(forward, $0) },
      reverse: reverse.map { step in { Self.call(step, $0) } })
  }

  private static func call(_ function: @Sendable (JSON) throws -> JSON, _ value: JPtr) -> TransformOutcome {
    do {
      let result = try function(JSON(borrowing: value))
      guard let pointer = result.makeJansson() else {
        return .failure("the transformer returned a value JSON cannot hold")
      }
      return .value(pointer)
    } catch {
      return .failure("\(error)")
    }
  }
}
