import CJansson

/// `json`: where a property's value lives (key paths, JSON Pointers, lists, array plucks).
extension SchemaLoader {
  mutating func readLocation(_ value: JPtr, path: [String], model: String, property: String)
    -> Location?
  {
    if value.pointee.type == JSON_FALSE { return Location.none }
    if JValue.isString(value), !JValue.string(value).hasPrefix("/"), JValue.string(value).holds("[]") {
      let text = JValue.string(value)
      let segments = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
      let plucked = segments.indices.filter { segments[$0].hasSuffix("[]") }
      guard plucked.count == 1, let at = plucked.first, at < segments.count - 1,
        !segments.contains(where: \.isEmpty), segments[at].count > 2,
        !segments.enumerated().contains(where: { $0.offset != at && $0.element.holds("[]") })
      else {
        fail(
          path, model: model, property: property,
          "key path '\(text)' must have exactly one 'name[]' segment followed by at least one key, as in users[].login"
        )
        return nil
      }
      let array = segments[0...at].map { Key($0 == segments[at] ? String($0.dropLast(2)) : $0) }
      return .pluck(array: array, element: segments[(at + 1)...].map(Key.init))
    }
    if JValue.isString(value) {
      guard let keys = parseKeyPath(JValue.string(value), path: path, model: model, property: property) else {
        return nil
      }
      return .path(keys)
    }
    if JValue.isArray(value) && json_array_size(value) > 0 {
      var paths: [MultiPath] = []
      var seen: Set<String> = []
      for position in 0..<json_array_size(value) {
        guard let element = json_array_get(value, position), JValue.isString(element) else {
          fail(
            path + [String(position)], model: model, property: property,
            "each key path of the list must be a string")
          return nil
        }
        let written = JValue.string(element)
        guard
          let keys = parseKeyPath(written, path: path + [String(position)], model: model, property: property)
        else { return nil }
        if !seen.insert(written).inserted {
          fail(
            path + [String(position)], model: model, property: property,
            "key path '\(written)' is listed twice")
          return nil
        }
        paths.append(MultiPath(written: Key(written), keys: keys))
      }
      return .multi(paths)
    }
    fail(
      path, model: model, property: property,
      "'json' must be a key path, a JSON Pointer, a list of key paths, or false")
    return nil
  }

  mutating func parseKeyPath(_ text: String, path: [String], model: String, property: String)
    -> [Key]?
  {
    if text.hasPrefix("/") {
      guard let tokens = JSONPointer.parse(text) else {
        fail(
          path, model: model, property: property,
          "'\(text)' is not a valid JSON Pointer (a '~' must be followed by 0 or 1)")
        return nil
      }
      return tokens.map(Key.init)
    }
    let segments = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    if text.isEmpty || segments.contains(where: \.isEmpty) {
      fail(path, model: model, property: property, "key path '\(text)' has an empty segment")
      return nil
    }
    return segments.map(Key.init)
  }
}
