/// The kind of an error, as DESIGN.md and docs/schema.md list them.
public enum ErrorCode: String, Sendable, Hashable, CaseIterable {
  /// A required key is absent.
  case missing
  /// The JSON type is wrong.
  case type
  /// Null where the type is not `T?`.
  case null
  /// A value could not be read (a bad URL).
  case format
  /// A value outside an enum mapping, with no default.
  case enumValue = "enum"
  /// A `validate` rule failed.
  case validation
  /// A key refused by `unknownKeys: reject`.
  case unknownKey = "unknown_key"
  /// No subtype matched.
  case subtype
  /// A key path runs through a value that is not an object.
  case path
  /// The schema document is invalid.
  case schema
  /// Input text is not valid JSON.
  case syntax
  /// Input nested deeper than the engine allows.
  case depth
  /// An API misuse: an unknown model or property name, a missing argument.
  case argument
  /// A file could not be read.
  case io
  /// A delete or a dropped link refused by a relationship's `deleteRule`
  /// (`deny`, the default where the other side cannot be empty).
  case deny
  /// Memory ran out: an allocation failed (nothing changed).
  case oom
  /// A query names a property the model does not have (or follows a path
  /// the relationships do not allow).
  case property
  /// A page fetched over HTTP came back with a status other than 2xx (the
  /// message names the status, the URL and the body's first bytes).
  case http

  /// The number of this code in the C API (`strata_code_t`).
  public var number: Int32 {
    switch self {
    case .missing: return 1
    case .type: return 2
    case .null: return 3
    case .format: return 4
    case .enumValue: return 5
    case .validation: return 6
    case .unknownKey: return 7
    case .subtype: return 8
    case .path: return 9
    case .schema: return 10
    case .syntax: return 11
    case .depth: return 12
    case .argument: return 13
    case .io: return 14
    case .deny: return 15
    case .oom: return 16
    case .property: return 17
    case .http: return 18
    }
  }
}
