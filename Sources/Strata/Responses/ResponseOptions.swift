import CJansson

/// Where a model's records and its paging metadata sit in an API response:
/// the model's `root` and `meta` keys (docs/responses.md), or a call's options.
package struct ResponseShape: Sendable {
  /// The location of the records; nil: the whole response.
  package var root: ResponseLocation? = nil
  /// Where the metadata sits and the model it maps onto; nil: no metadata.
  package var meta: ResponseMetaSpec? = nil
  /// Where a response says what its next page is; nil: it does not page.
  package var paging: PagingSpec? = nil

  /// The metadata's location and model type in `schema`; nil when there is no metadata.
  package func metadata(in schema: Schema) -> (location: ResponseLocation, type: ModelType)? {
    guard let meta, meta.model >= 0, meta.model < schema.models.count else { return nil }
    return (meta.location, schema.models[meta.model])
  }
}

/// One location in a response: the keys to follow from its top.
package struct ResponseLocation: Sendable {
  /// The keys, outermost first; empty for the whole response.
  package let keys: [Key]
  /// The location as written ("statuses", "/a.b/c", ""), for messages.
  let text: String

  /// The location of `keys`, written `text`.
  package init(keys: [Key], text: String) {
    self.keys = keys
    self.text = text
  }

  /// The JSON Pointer of the first `count` keys.
  func pointer(_ count: Int) -> String {
    JSONPointer.make(keys.prefix(max(0, count)).map(\.name))
  }

  /// Reads a location as `root` and `meta.path` accept it: "" (the empty JSON
  /// Pointer: the whole response), a JSON Pointer ("/a.b/c"), or a dotted key
  /// path ("response.venues"). Array plucks (`name[]`) are refused.
  /// Returns the location or a message saying what is wrong.
  static func parse(_ text: String) -> Result<ResponseLocation, ResponseLocationError> {
    if text.isEmpty { return .success(ResponseLocation(keys: [], text: text)) }
    if !text.hasPrefix("/") && text.holds("[]") {
      return .failure(
        ResponseLocationError(
          message:
            "'\(text)' is not a single location: array plucks (name[]) are not supported here "
            + "(write a key that holds [] as a JSON Pointer)"))
    }
    // The key-path and pointer syntax of `json` (SchemaLoader+KeyPaths.swift).
    var loader = SchemaLoader()
    guard let keys = loader.parseKeyPath(text, path: [], model: "", property: "") else {
      return .failure(ResponseLocationError(message: loader.errors.first?.message ?? "'\(text)' is invalid"))
    }
    return .success(ResponseLocation(keys: keys, text: text))
  }
}

/// Why a location could not be read.
package struct ResponseLocationError: Error, Sendable {
  /// One line for a person.
  package let message: String
}

/// Where the paging metadata sits, and the model it maps onto.
package struct ResponseMetaSpec: Sendable {
  /// The metadata's location, from the top of the response.
  let location: ResponseLocation
  /// The index of the metadata's model in the schema.
  let model: Int
}

/// The metadata of a response, as a call option: where it sits (a key path,
/// a JSON Pointer, or "" for the whole response) and the model it maps onto.
/// It overrides the `meta` the schema declares for the record model.
public struct ResponseMeta: Sendable, Hashable {
  /// The metadata's location from the top of the response: a dotted key path
  /// ("search_metadata"), a JSON Pointer ("/meta.v2"), or "" (the whole response).
  public var path: String
  /// The name of the model the metadata maps onto.
  public var model: String

  /// A metadata option: the value at `path` mapped onto `model`.
  public init(path: String, model: String) {
    self.path = path
    self.model = model
  }
}

extension ResponseMeta {
  /// Reads the "meta" option of a C, Python or command-line call (borrowed):
  /// an object with the strings "path" and "model" and nothing else.
  package static func read(_ value: JPtr) -> Result<ResponseMeta, ResponseLocationError> {
    guard JValue.isObject(value),
      let path = JValue.member(value, Key("path")), JValue.isString(path),
      let model = JValue.member(value, Key("model")), JValue.isString(model),
      json_object_size(value) == 2
    else {
      return .failure(
        ResponseLocationError(
          message:
            "the option \"meta\" must be an object {\"path\": key path, \"model\": model name} and nothing else"
        ))
    }
    return .success(ResponseMeta(path: JValue.string(path), model: JValue.string(model)))
  }
}

/// The options of one response call, as the C and Python faces hand them
/// over: a root that overrides the model's, and metadata that overrides its `meta`.
package struct ResponseRequest: Sendable {
  /// The root override; nil: the model's `root`.
  package var root: String?
  /// The metadata override; nil: the model's `meta`.
  package var meta: ResponseMeta?

  /// Options from their parts.
  package init(root: String? = nil, meta: ResponseMeta? = nil) {
    self.root = root
    self.meta = meta
  }
}

extension ResponseRequest {
  /// Reads the options of the C call (borrowed; NULL for none): an object with
  /// the optional members "root" (a string) and "meta" (an object with the
  /// strings "path" and "model"); null members count as not given. Anything
  /// else is an `argument` error.
  package static func read(_ options: JPtr?) -> Result<ResponseRequest, StrataError> {
    guard let options, !JValue.isNull(options) else { return .success(ResponseRequest()) }
    guard JValue.isObject(options) else {
      return .failure(
        StrataError(
          code: .argument,
          message: "the response options must be an object with \"root\" and \"meta\", not "
            + JValue.typeName(options)))
    }
    var request = ResponseRequest()
    var problems: [String] = []
    JValue.forEachMember(options) { keyBytes, value in
      let key = JValue.keyString(keyBytes)
      switch key {
      case "root":
        if JValue.isString(value) {
          request.root = JValue.string(value)
        } else if !JValue.isNull(value) {
          problems.append("the option \"root\" must be a key path or a JSON Pointer (a string)")
        }
      case "meta":
        if JValue.isNull(value) { return }
        switch ResponseMeta.read(value) {
        case .success(let meta): request.meta = meta
        case .failure(let problem): problems.append(problem.message)
        }
      default:
        problems.append("unknown response option \"\(key)\" (expected root, meta)")
      }
    }
    if !problems.isEmpty {
      return .failure(StrataError(problems.map { ErrorDetail(path: "", code: .argument, message: $0) }))
    }
    return .success(request)
  }
}
