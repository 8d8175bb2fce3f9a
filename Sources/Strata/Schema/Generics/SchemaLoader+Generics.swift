import CJansson

/// A generic model as the document declares it: `"Page<T>"`.
struct GenericTemplate {
  /// The name as written in the document: `Page<T>`.
  let written: String
  /// The name without parameters: `Page`.
  let base: String
  /// The type parameters, in order.
  let parameters: [String]
  /// The model's body in the document (borrowed).
  let body: JPtr
  /// False once a check of the template failed: it is then not instantiated.
  var ok = true
}

/// One instance on the way to being made, and the instances that led to it.
private struct PendingInstance {
  let name: String
  let base: String
  let arguments: [TypeExpression]
  /// The instances whose bodies asked for this one, outermost first.
  let chain: [(base: String, name: String)]
}

/// The working state of one expansion.
private struct Expansion {
  var templates: [String: GenericTemplate] = [:]
  var plainNames: Set<String> = []
  var queue: [PendingInstance] = []
  var made: Set<String> = []
}

/// Generic models (`"Page<T>": {...}`, used as `Page<Tweet>`): before the
/// loader reads models, every instance the document uses is made by copying
/// the generic model's body with each type parameter replaced by its
/// argument, under the instance's canonical name. From then on an instance is
/// a model like any other. Errors inside an instance point at the generic
/// model's body in the document and name the instance.
extension SchemaLoader {
  static let builtinTypeNames: Set<String> = ["string", "int", "double", "bool", "url", "json", "date"]
  /// Instances one schema may make at most.
  static let maxInstances = 10_000

  /// The models object to read: a new reference holding the plain models and
  /// every instance, or nil when the document declares no generic model
  /// (then its own object is read as it is).
  mutating func expandGenerics(_ modelsObject: JPtr, instances: JPtr?) -> JPtr? {
    var generic = instances != nil
    JValue.forEachMember(modelsObject) { keyBytes, _ in
      if keyBytes.contains(UInt8(ascii: "<")) { generic = true }
    }
    if !generic {
      // A plain schema may still apply a name to type arguments by mistake.
      JValue.forEachMember(modelsObject) { _, body in
        if !generic, Self.typeSlots(body, path: []).contains(where: { $0.text.contains("<") }) {
          generic = true
        }
      }
    }
    guard generic, let out = json_object() else { return nil }
    var state = Expansion()
    var plain: [(String, JPtr)] = []
    JValue.forEachMember(modelsObject) { keyBytes, body in
      let name = JValue.keyString(keyBytes)
      if name.contains("<") {
        guard let template = readTemplate(name, body) else { return }
        if let other = state.templates[template.base] {
          fail(
            ["models", name], model: name,
            "'\(template.base)' is declared twice: as '\(other.written)' and '\(name)'")
          state.templates[template.base]?.ok = false
        } else {
          state.templates[template.base] = template
        }
      } else {
        plain.append((name, body))
        state.plainNames.insert(name)
      }
    }
    checkTemplateNames(&state)
    for template in state.templates.values { genericNames[template.base] = template.written }
    for base in state.templates.keys.sorted() {
      guard let template = state.templates[base] else { continue }
      var ok = template.ok
      for slot in Self.typeSlots(template.body, path: ["models", template.written]) {
        guard let expression = parseSlot(slot, model: template.written) else {
          ok = false
          continue
        }
        if !checkNames(
          expression, slot: slot, model: template.written, parameters: template.parameters, &state)
        {
          ok = false
        }
      }
      state.templates[base]?.ok = ok
    }
    for (name, body) in plain {
      guard let copy = json_deep_copy(body) else { continue }
      for slot in Self.typeSlots(copy, path: ["models", name]) {
        // Names that are no type at all are the loader's to report, as in any schema.
        let expression: TypeExpression
        switch TypeExpression.parse(slot.text) {
        case .success(let parsed): expression = parsed
        case .failure(let error):
          if slot.text.contains("<") {
            failGeneric(slot.path, model: name, property: slot.property, error.message)
          }
          continue
        }
        guard checkNames(expression, slot: slot, model: name, parameters: [], reportUnknown: false, &state)
        else { continue }
        slot.write(expression.text)
        enqueue(expression, slot: slot, model: name, chain: [], &state)
      }
      _ = json_object_set_new(out, name, copy)
    }
    if let instances { readInstances(instances, &state) }
    while !state.queue.isEmpty {
      let pending = state.queue.removeFirst()
      guard let template = state.templates[pending.base], let copy = json_deep_copy(template.body) else {
        continue
      }
      instanceTemplates[pending.name] = template.written
      var substitution: [String: TypeExpression] = [:]
      for (parameter, argument) in zip(template.parameters, pending.arguments) {
        substitution[parameter] = argument
      }
      for slot in Self.typeSlots(copy, path: ["models", pending.name]) {
        guard case .success(let expression) = TypeExpression.parse(slot.text) else { continue }
        let replaced = expression.substituting(substitution)
        slot.write(replaced.text)
        enqueue(
          replaced, slot: slot, model: pending.name,
          chain: pending.chain + [(pending.base, pending.name)], &state)
      }
      _ = json_object_set_new(out, pending.name, copy)
    }
    return out
  }

  /// The document's `instances`: generic instances to make although no model uses them.
  private mutating func readInstances(_ value: JPtr, _ state: inout Expansion) {
    guard JValue.isArray(value) else {
      fail(["instances"], "'instances' must be a list of generic instances such as \"Page<Tweet>\"")
      return
    }
    for position in 0..<json_array_size(value) {
      let tokens = ["instances", String(position)]
      guard let element = json_array_get(value, position), JValue.isString(element) else {
        fail(tokens, "an instance is a string such as \"Page<Tweet>\"")
        continue
      }
      let slot = TypeSlot(
        container: value, key: nil, index: position, path: tokens, property: "", text: JValue.string(element))
      guard let expression = parseSlot(slot, model: ""),
        checkNames(expression, slot: slot, model: "", parameters: [], &state)
      else { continue }
      guard case .named(_, let arguments) = expression, !arguments.isEmpty else {
        failGeneric(tokens, model: "", property: "", "'\(slot.text)' is not an instance of a generic model")
        continue
      }
      enqueue(expression, slot: slot, model: "", chain: [], &state)
    }
  }

  /// Reads a generic model's name (`Pair<A, B>`), or reports why it is not one.
  private mutating func readTemplate(_ name: String, _ body: JPtr) -> GenericTemplate? {
    let bad = "a generic model is named Name<T> or Name<A, B>, its type parameters distinct names"
    guard case .success(.named(let base, let arguments)) = TypeExpression.parse(name), !arguments.isEmpty,
      Self.isIdentifier(base)
    else {
      fail(["models", name], model: name, bad)
      return nil
    }
    var parameters: [String] = []
    for argument in arguments {
      guard case .named(let parameter, let inner) = argument, inner.isEmpty, Self.isIdentifier(parameter),
        !parameters.contains(parameter)
      else {
        fail(["models", name], model: name, bad)
        return nil
      }
      parameters.append(parameter)
    }
    return GenericTemplate(written: name, base: base, parameters: parameters, body: body)
  }

  /// Names that clash: a parameter named like a type, a generic model named like a model.
  private mutating func checkTemplateNames(_ state: inout Expansion) {
    for base in state.templates.keys.sorted() {
      guard let template = state.templates[base] else { continue }
      let path = ["models", template.written]
      if state.plainNames.contains(base) {
        fail(path, model: template.written, "'\(base)' names both a model and a generic model")
        state.templates[base]?.ok = false
      }
      for parameter in template.parameters
      where Self.builtinTypeNames.contains(parameter) || state.plainNames.contains(parameter)
        || state.templates[parameter] != nil
      {
        fail(
          path, model: template.written,
          "type parameter '\(parameter)' of '\(template.written)' is already the name of a type")
        state.templates[base]?.ok = false
      }
    }
  }

  /// Parses the type expression in `slot`, or reports why it cannot be.
  private mutating func parseSlot(_ slot: TypeSlot, model: String) -> TypeExpression? {
    switch TypeExpression.parse(slot.text) {
    case .success(let expression): return expression
    case .failure(let error):
      failGeneric(slot.path, model: model, property: slot.property, error.message)
      return nil
    }
  }

  /// Checks every name of `expression`: built-in types, models, `parameters`,
  /// and generic models applied to as many arguments as they take.
  private mutating func checkNames(
    _ expression: TypeExpression, slot: TypeSlot, model: String, parameters: [String],
    reportUnknown: Bool = true,
    _ state: inout Expansion
  ) -> Bool {
    var problems: [String] = []
    expression.forEachName { name, arguments in
      if let template = state.templates[name] {
        if arguments.isEmpty {
          problems.append(
            "'\(template.written)' is a generic model: name its type arguments, as in \(name)<...>")
        } else if arguments.count != template.parameters.count {
          let count = template.parameters.count
          problems.append(
            "'\(template.written)' takes \(count) type argument\(count == 1 ? "" : "s"), not \(arguments.count)"
          )
        }
      } else if !arguments.isEmpty {
        problems.append("'\(name)' is not a generic model: it takes no type arguments")
      } else if !(Self.builtinTypeNames.contains(name) || state.plainNames.contains(name)
        || parameters.contains(name)) && (reportUnknown || expression.appliesGeneric)
      {
        let candidates = Self.builtinTypeNames.sorted() + state.plainNames.sorted() + parameters
        if let nearest = Suggestion.nearest(to: name, among: candidates) {
          problems.append("unknown type '\(name)' in '\(slot.text)' (did you mean '\(nearest)'?)")
        } else {
          problems.append(
            "unknown type '\(name)' in '\(slot.text)': not a built-in type nor a model of the schema")
        }
      }
    }
    for problem in problems { failGeneric(slot.path, model: model, property: slot.property, problem) }
    return problems.isEmpty
  }

  /// Queues every instance `expression` applies that is not made yet.
  private mutating func enqueue(
    _ expression: TypeExpression, slot: TypeSlot, model: String, chain: [(base: String, name: String)],
    _ state: inout Expansion
  ) {
    var found: [(String, [TypeExpression])] = []
    expression.forEachName { name, arguments in
      if !arguments.isEmpty { found.append((name, arguments)) }
    }
    for (base, arguments) in found {
      let name = TypeExpression.named(base, arguments).text
      guard !state.made.contains(name), let template = state.templates[base], template.ok else { continue }
      if let ancestor = chain.first(where: { $0.base == base && $0.name.count < name.count }) {
        let names = chain.drop(while: { $0.name != ancestor.name }).map(\.name) + [name]
        failGeneric(
          slot.path, model: model, property: slot.property,
          "generic model '\(template.written)' would expand forever: \(names.joined(separator: " -> ")) -> ..."
        )
        continue
      }
      guard state.made.count < Self.maxInstances else {
        failGeneric(
          slot.path, model: model, property: slot.property,
          "a schema makes at most \(Self.maxInstances) instances of generic models")
        continue
      }
      state.made.insert(name)
      state.queue.append(PendingInstance(name: name, base: base, arguments: arguments, chain: chain))
    }
  }

  /// Reports a problem found while expanding generics; the loader's later
  /// passes do not report their own error at the same place again.
  private mutating func failGeneric(_ tokens: [String], model: String, property: String, _ message: String) {
    record(tokens, model: model, property: property, message)
    genericErrorPaths.insert(JSONPointer.make(sourceTokens(tokens)))
  }

  /// The tokens of a path in the document: an instance's body is its generic model's.
  func sourceTokens(_ tokens: [String]) -> [String] {
    guard tokens.count >= 2, tokens[0] == "models", let written = instanceTemplates[tokens[1]] else {
      return tokens
    }
    var out = tokens
    out[1] = written
    return out
  }

  /// Every place of a model body that holds a type or a model name: property
  /// types, `extends`, the models of `subtypes`, and `meta`'s model.
  static func typeSlots(_ body: JPtr, path: [String]) -> [TypeSlot] {
    guard JValue.isObject(body) else { return [] }
    var slots: [TypeSlot] = []
    func add(_ container: JPtr, key: String?, index: Int?, tokens: [String], property: String) {
      let value = key.map { json_object_get(container, $0) } ?? index.map { json_array_get(container, $0) }
      guard let value = value ?? nil, JValue.isString(value) else { return }
      slots.append(
        TypeSlot(
          container: container, key: key, index: index, path: tokens, property: property,
          text: JValue.string(value)))
    }
    if let properties = json_object_get(body, "properties"), JValue.isObject(properties) {
      JValue.forEachMember(properties) { keyBytes, spec in
        let name = JValue.keyString(keyBytes)
        if JValue.isObject(spec) {
          add(spec, key: "type", index: nil, tokens: path + ["properties", name, "type"], property: name)
        }
      }
    }
    add(body, key: "extends", index: nil, tokens: path + ["extends"], property: "")
    if let subtypes = json_object_get(body, "subtypes"), JValue.isObject(subtypes) {
      if let map = json_object_get(subtypes, "map"), JValue.isObject(map) {
        var keys: [String] = []
        JValue.forEachMember(map) { keyBytes, _ in keys.append(JValue.keyString(keyBytes)) }
        for key in keys {
          add(map, key: key, index: nil, tokens: path + ["subtypes", "map", key], property: "")
        }
      }
      if let rules = json_object_get(subtypes, "rules"), JValue.isArray(rules) {
        for position in 0..<json_array_size(rules) {
          if let rule = json_array_get(rules, position), JValue.isObject(rule) {
            add(
              rule, key: "model", index: nil,
              tokens: path + ["subtypes", "rules", String(position), "model"],
              property: "")
          }
        }
      }
    }
    if let meta = json_object_get(body, "meta"), JValue.isObject(meta) {
      add(meta, key: "model", index: nil, tokens: path + ["meta", "model"], property: "")
    }
    return slots
  }
}

/// One string of a model body that holds a type, and how to replace it.
struct TypeSlot {
  /// The object or array holding the string (borrowed).
  let container: JPtr
  let key: String?
  let index: Int?
  /// Where the string is, for errors.
  let path: [String]
  /// The property whose type it is, or "".
  let property: String
  /// The string.
  let text: String

  /// Replaces the string with `text`.
  func write(_ text: String) {
    guard text != self.text, let value = JValue.makeString(text) else { return }
    if let key {
      JValue.setNew(container, key, value)
    } else if let index {
      _ = json_array_set_new(container, index, value)
    } else {
      JValue.release(value)
    }
  }
}
