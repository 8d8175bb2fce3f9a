import CJansson

/// `root`, `meta` and `paging`: where a model's records, paging metadata
/// and next page sit in an API response (docs/responses.md).
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

  /// Reads the model key `paging`: `{"next": LOCATION}`, `{"next": "link"}`
  /// or `{"cursor": LOCATION, "param": NAME}` (`PagingSpec`).
  mutating func readPaging(_ model: ModelType, value: JPtr, path: [String]) {
    let name = model.name
    let shapes = "{\"next\": key path}, {\"next\": \"link\"} or {\"cursor\": key path, \"param\": name}"
    guard JValue.isObject(value) else {
      fail(path, model: name, "'paging' must be an object: \(shapes), not \(JValue.typeName(value))")
      return
    }
    var next: JPtr? = nil
    var cursor: JPtr? = nil
    var param: JPtr? = nil
    JValue.forEachMember(value) { keyBytes, member in
      let key = JValue.keyString(keyBytes)
      switch key {
      case "next": next = member
      case "cursor": cursor = member
      case "param": param = member
      default:
        fail(path + [key], model: name, "unknown 'paging' key '\(key)' (expected next, or cursor and param)")
      }
    }
    func location(_ member: JPtr, _ key: String) -> ResponseLocation? {
      guard JValue.isString(member) else {
        fail(path + [key], model: name, "'paging.\(key)' must be a key path or a JSON Pointer (a string)")
        return nil
      }
      switch ResponseLocation.parse(JValue.string(member)) {
      case .success(let parsed): return parsed
      case .failure(let problem):
        fail(path + [key], model: name, "'paging.\(key)': \(problem.message)")
        return nil
      }
    }
    switch (next, cursor, param) {
    case (let next?, nil, nil):
      if JValue.isString(next) && JValue.string(next) == "link" {
        model.response.paging = .link
      } else if let found = location(next, "next") {
        model.response.paging = .next(found)
      }
    case (nil, let cursor?, let param?):
      guard JValue.isString(param), !JValue.string(param).isEmpty else {
        fail(
          path + ["param"], model: name, "'paging.param' must name the query parameter (a non-empty string)")
        return
      }
      if let found = location(cursor, "cursor") {
        model.response.paging = .cursor(found, param: JValue.string(param))
      }
    case (nil, _?, nil):
      fail(
        path + ["param"], model: name,
        "'paging' with a 'cursor' needs 'param', the query parameter it goes in")
    case (nil, nil, _?):
      fail(path + ["cursor"], model: name, "'paging' with a 'param' needs 'cursor', where the cursor sits")
    case (nil, nil, nil):
      fail(path, model: name, "'paging' needs 'next' or 'cursor': \(shapes)")
    default:
      fail(path, model: name, "'paging' takes either 'next' or 'cursor' and 'param', not both: \(shapes)")
    }
  }
}
