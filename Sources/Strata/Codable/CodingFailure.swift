/// Turns what the bridge's decoder and encoder throw into a `StrataError`
/// whose path points into the JSON (and whose message names the canonical
/// path where that differs).
enum CodingFailure {
  /// The error of decoding the canonical value `root` (of shape `shape`);
  /// `prefix` is put before each path (`/3` for the fourth element of a list).
  static func decoding(
    _ error: any Error, root: JSON, shape: SchemaShape, schema: Schema, prefix: String = ""
  ) -> StrataError {
    if let strata = error as? StrataError { return strata }
    func detail(_ keys: [any CodingKey], _ code: ErrorCode, _ message: String) -> ErrorDetail {
      let place = CodingPlace(keys, root: root, shape: shape, schema: schema)
      var text = message
      if place.path != place.canonicalPath { text += " (canonical path \(prefix + place.canonicalPath))" }
      return ErrorDetail(
        path: prefix + place.path, model: place.model, property: place.property, code: code, message: text)
    }
    if let deep = error as? CodingDepthError {
      return StrataError([
        detail(
          deep.codingPath, .depth, "the Swift value nests deeper than \(maxDepth) levels or the stack allows")
      ])
    }
    if let unknown = error as? UnknownPropertyError {
      return StrataError([
        detail(
          unknown.codingPath, .argument,
          "the Swift type reads '\(unknown.key)', which is not a property of model '\(unknown.model)'")
      ])
    }
    guard let decoding = error as? DecodingError else {
      return StrataError([detail([], .format, "the Swift type could not be read: \(error)")])
    }
    switch decoding {
    case .typeMismatch(let type, let context):
      return StrataError([
        detail(
          context.codingPath, .type, "the Swift type \(type) cannot hold it: \(context.debugDescription)")
      ])
    case .valueNotFound(let type, let context):
      return StrataError([
        detail(context.codingPath, .null, "the Swift type \(type) needs a value: \(context.debugDescription)")
      ])
    case .keyNotFound(let key, let context):
      return StrataError([
        detail(
          context.codingPath + [key], .missing,
          "the Swift type needs '\(key.stringValue)': \(context.debugDescription)")
      ])
    case .dataCorrupted(let context):
      return StrataError([detail(context.codingPath, .format, context.debugDescription)])
    @unknown default:
      return StrataError([detail([], .format, "\(decoding)")])
    }
  }

  /// The error of encoding a value as a canonical value: paths are canonical.
  static func encoding(_ error: any Error) -> StrataError {
    if let strata = error as? StrataError { return strata }
    if let deep = error as? CodingDepthError {
      return StrataError(
        path: canonicalPointer(deep.codingPath), code: .depth,
        message: "the value nests deeper than \(maxDepth) levels or the stack allows")
    }
    guard case .invalidValue(_, let context)? = error as? EncodingError else {
      return StrataError(code: .type, message: "the value could not be encoded: \(error)")
    }
    return StrataError(
      path: canonicalPointer(context.codingPath), code: .type, message: context.debugDescription)
  }

  /// The canonical pointer of a coding path (indices as numbers).
  static func canonicalPointer(_ keys: [any CodingKey]) -> String {
    JSONPointer.make(keys.map { $0.intValue.map(String.init) ?? $0.stringValue })
  }
}
