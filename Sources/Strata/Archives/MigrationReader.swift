import CJansson

/// Reads and checks a schema document's `migrations`: a list of steps
/// `{"from": N, "model": M, "rename": {old: new}, "remove": [key],
/// "set": {key: value}, "transform": name}`. Every problem is a `schema`
/// error with a pointer into the document (`/migrations/1/from`).
struct MigrationReader {
  /// The schema's version: every `from` is below it.
  let version: Int64
  /// The transformers a `transform` may name (built-in ones are always there).
  let transformers: [String: Transformer]
  /// The problems found.
  private(set) var errors: [ErrorDetail] = []

  init(version: Int64, transformers: [String: Transformer]) {
    self.version = version
    self.transformers = transformers
  }

  private mutating func fail(_ tokens: [String], _ message: String) {
    errors.append(
      ErrorDetail(path: JSONPointer.make(["migrations"] + tokens), code: .schema, message: message))
  }

  /// The steps of `value` (borrowed), in order; problems are in `errors`.
  mutating func read(_ value: JPtr) -> [MigrationStep] {
    guard JValue.isArray(value) else {
      fail([], "'migrations' must be a list of steps {\"from\": N, ...}")
      return []
    }
    var steps: [MigrationStep] = []
    for position in 0..<json_array_size(value) {
      guard let body = json_array_get(value, position) else { continue }
      if let step = readStep(body, position) { steps.append(step) }
    }
    // Steps apply by version; those of one version in the document's order.
    return steps.sorted { ($0.from, $0.position) < ($1.from, $1.position) }
  }

  private mutating func readStep(_ body: JPtr, _ position: Int) -> MigrationStep? {
    let at = String(position)
    guard JValue.isObject(body) else {
      fail([at], "a migration step must be an object such as {\"from\": 1, \"rename\": {\"old\": \"new\"}}")
      return nil
    }
    var ok = true
    var from: Int64? = nil
    var model: String? = nil
    var rename: [(old: String, new: String)] = []
    var remove: [String] = []
    var set: [(key: String, value: JSON)] = []
    var transform: Transformer? = nil
    JValue.forEachMember(body) { keyBytes, member in
      let key = JValue.keyString(keyBytes)
      switch key {
      case "from":
        if JValue.isInteger(member), json_integer_value(member) >= 0, json_integer_value(member) < version {
          from = json_integer_value(member)
        } else {
          fail(
            [at, key],
            "'from' must be an integer >= 0 and below the schema's version \(version): the version of the archives the step upgrades"
          )
          ok = false
        }
      case "model":
        if JValue.isString(member), SchemaLoader.isIdentifier(JValue.string(member)) {
          model = JValue.string(member)
        } else {
          fail([at, key], "'model' must be a model name: the archived model the step applies to")
          ok = false
        }
      case "rename":
        guard JValue.isObject(member) else {
          fail([at, key], "'rename' must be an object of old key -> new key")
          ok = false
          return
        }
        var targets: Set<String> = []
        JValue.forEachMember(member) { oldBytes, target in
          let old = JValue.keyString(oldBytes)
          guard JValue.isString(target), !JValue.string(target).isEmpty, !old.isEmpty else {
            fail([at, key, old], "'rename' maps a key to its new name, a non-empty string")
            ok = false
            return
          }
          let new = JValue.string(target)
          if new == old || !targets.insert(new).inserted {
            fail([at, key, old], "'\(new)' is the target of more than one rename, or of itself")
            ok = false
            return
          }
          rename.append((old, new))
        }
      case "remove":
        guard JValue.isArray(member) else {
          fail([at, key], "'remove' must be a list of keys")
          ok = false
          return
        }
        for index in 0..<json_array_size(member) {
          guard let element = json_array_get(member, index), JValue.isString(element),
            !JValue.string(element).isEmpty
          else {
            fail([at, key, String(index)], "'remove' lists keys: non-empty strings")
            ok = false
            continue
          }
          remove.append(JValue.string(element))
        }
      case "set":
        guard JValue.isObject(member) else {
          fail([at, key], "'set' must be an object of key -> canonical value")
          ok = false
          return
        }
        JValue.forEachMember(member) { nameBytes, value in
          set.append((JValue.keyString(nameBytes), JSON(borrowing: value)))
        }
      case "transform":
        guard JValue.isString(member) else {
          fail([at, key], "'transform' must name a transformer")
          ok = false
          return
        }
        let name = JValue.string(member)
        if let found = transformers[name] ?? BuiltinTransformers.all[name] {
          transform = found
        } else {
          fail(
            [at, key],
            "unknown transformer '\(name)' (built-in ones, or one registered before the schema is loaded)")
          ok = false
        }
      default:
        fail(
          [at, key], "unknown migration key '\(key)' (expected from, model, rename, remove, set, transform)")
        ok = false
      }
    }
    if json_object_get(body, "from") == nil {
      fail([at, "from"], "a migration step needs 'from', the version of the archives it upgrades")
      return nil
    }
    guard ok, let from else { return nil }
    return MigrationStep(
      position: position, from: from, model: model, rename: rename, remove: remove, set: set,
      transform: transform)
  }
}
