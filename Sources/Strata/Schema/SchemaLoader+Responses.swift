import CJansson

/// `root` and `meta`: where a model's records and paging metadata sit in an
/// API response (docs/responses.md).
extension SchemaLoader {
  /// Reads the model key `root` or `meta` of `model` into its response shape.
  mutating func readResponseKey(_ model: ModelType, key: String, value: JPtr, path: [String]) {
    let name = model.name
    if key == "root" {
      guard JValue.isString(value) else {
        fail(
          path + [key], model: name,
          "'root' must be a key path or a JSON Pointer (a string), not \(JValue.typeName(value))")
        return
      }
      switch ResponseLocation.parse(JValue.string(value)) {
      case .success(let location): model.response.root = location
      case .failure(let problem): fail(path + [key], model: name, "'root': \(problem.message)")
      }
      return
    }
    guard JValue.isObject(value) else {
      fail(
        path + [key], model: name,
        "'meta' must be an object {\"path\": key path, \"model\": model name}, not \(JValue.typeName(value))")
      return
    }
    var location: ResponseLocation? = nil
    var metaModel: Int? = nil
    var sawPath = false
    var sawModel = false
    JValue.forEachMember(value) { keyBytes, member in
      let memberKey = JValue.keyString(keyBytes)
      switch memberKey {
      case "path":
        sawPath = true
        guard JValue.isString(member) else {
          fail(
            path + [key, "path"], model: name, "'meta.path' must be a key path or a JSON Pointer (a string)")
          return
        }
        switch ResponseLocation.parse(JValue.string(member)) {
        case .success(let parsed): location = parsed
        case .failure(let problem):
          fail(path + [key, "path"], model: name, "'meta.path': \(problem.message)")
        }
      case "model":
        sawModel = true
        if JValue.isString(member), let index = modelIndex[JValue.string(member)] {
          metaModel = index
        } else {
          fail(path + [key, "model"], model: name, "'meta.model' must name a model of the schema")
        }
      default:
        fail(
          path + [key, memberKey], model: name, "unknown 'meta' key '\(memberKey)' (expected path, model)")
      }
    }
    if !sawPath { fail(path + [key, "path"], model: name, "'meta' needs 'path', where the metadata sits") }
    if !sawModel { fail(path + [key, "model"], model: name, "'meta' needs 'model', the metadata's model") }
    if let location, let metaModel {
      model.response.meta = ResponseMetaSpec(location: location, model: metaModel)
    }
  }
}
