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

  /// Reads the step at `position`: each of its keys, then the step, nil
  /// after reporting its problems (a step without `from` is one).
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
        from = readFrom(member, at)
        ok = ok && from != nil
      case "model":
        model = readModel(member, at)
        ok = ok && model != nil
      case "rename":
        let read = readRename(member, at)
        rename = read ?? []
        ok = ok && read != nil
      case "remove":
        let read = readRemove(member, at)
        remove = read ?? []
        ok = ok && read != nil
      case "set":
        let read = readSet(member, at)
        set = read ?? []
        ok = ok && read != nil
      case "transform":
        transform = readTransform(member, at)
        ok = ok && transform != nil
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

  /// Reads the `from` of the step `at`: the version of the archives it
  /// upgrades, below the schema's; nil after reporting.
  private mutating func readFrom(_ member: JPtr, _ at: String) -> Int64? {
    if JValue.isInteger(member), json_integer_value(member) >= 0, json_integer_value(member) < version {
      return json_integer_value(member)
    }
    fail(
      [at, "from"],
      "'from' must be an integer >= 0 and below the schema's version \(version): the version of the archives the step upgrades"
    )
    return nil
  }

  /// Reads the `model` of the step `at`: the archived model it applies to;
  /// nil after reporting.
  private mutating func readModel(_ member: JPtr, _ at: String) -> String? {
    if JValue.isString(member), SchemaLoader.isIdentifier(JValue.string(member)) {
      return JValue.string(member)
    }
    fail([at, "model"], "'model' must be a model name: the archived model the step applies to")
    return nil
  }

  /// Reads the `rename` of the step `at`: old key -> new key, no key the
  /// target of two renames or of itself; nil after reporting every problem.
  private mutating func readRename(_ member: JPtr, _ at: String) -> [(old: String, new: String)]? {
    guard JValue.isObject(member) else {
      fail([at, "rename"], "'rename' must be an object of old key -> new key")
      return nil
    }
    var ok = true
    var rename: [(old: String, new: String)] = []
    var targets: Set<String> = []
    JValue.forEachMember(member) { oldBytes, target in
      let old = JValue.keyString(oldBytes)
      guard JValue.isString(target), !JValue.string(target).isEmpty, !old.isEmpty else {
        fail([at, "rename", old], "'rename' maps a key to its new name, a non-empty string")
        ok = false
        return
      }
      let new = JValue.string(target)
      if new == old || !targets.insert(new).inserted {
        fail([at, "rename", old], "'\(new)' is the target of more than one rename, or of itself")
        ok = false
        return
      }
      rename.append((old, new))
    }
    return ok ? rename : nil
  }

  /// Reads the `remove` of the step `at`: the keys it removes; nil after
  /// reporting every problem.
  private mutating func readRemove(_ member: JPtr, _ at: String) -> [String]? {
    guard JValue.isArray(member) else {
      fail([at, "remove"], "'remove' must be a list of keys")
      return nil
    }
    var ok = true
    var remove: [String] = []
    for index in 0..<json_array_size(member) {
      guard let element = json_array_get(member, index), JValue.isString(element),
        !JValue.string(element).isEmpty
      else {
        fail([at, "remove", String(index)], "'remove' lists keys: non-empty strings")
        ok = false
        continue
      }
      remove.append(JValue.string(element))
    }
    return ok ? remove : nil
  }

  /// Reads the `set` of the step `at`: key -> canonical value; nil after
  /// reporting.
  private mutating func readSet(_ member: JPtr, _ at: String) -> [(key: String, value: JSON)]? {
    guard JValue.isObject(member) else {
      fail([at, "set"], "'set' must be an object of key -> canonical value")
      return nil
    }
    var set: [(key: String, value: JSON)] = []
    JValue.forEachMember(member) { nameBytes, value in
      set.append((JValue.keyString(nameBytes), JSON(borrowing: value)))
    }
    return set
  }

  /// Reads the `transform` of the step `at`: the transformer it names (a
  /// built-in one, or one registered); nil after reporting.
  private mutating func readTransform(_ member: JPtr, _ at: String) -> Transformer? {
    guard JValue.isString(member) else {
      fail([at, "transform"], "'transform' must name a transformer")
      return nil
    }
    let name = JValue.string(member)
    if let found = transformers[name] ?? BuiltinTransformers.all[name] { return found }
    fail(
      [at, "transform"],
      "unknown transformer '\(name)' (built-in ones, or one registered before the schema is loaded)")
    return nil
  }
}
