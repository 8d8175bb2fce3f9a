/// JSON Schema (draft 2020-12) of a model's JSON: the JSON the API sends
/// (what `map` accepts) or the canonical dictionary (what `dictionary` gives).
///
/// Limits (documented in docs/tools.md): the JSON side of a custom
/// transformer is `{}`; date patterns, date bounds and `enumDefault` are
/// described in `$comment`s only; `validate` rules of enum or transformed
/// values are left to the canonical side; patterns are POSIX ERE, which
/// JSON Schema validators read as ECMA-262.
extension Schema {
  /// The JSON Schema (draft 2020-12) of model `model`: of the JSON the API
  /// sends (`canonical: false`, what mapping accepts) or of the canonical
  /// dictionary (`canonical: true`). Every model it reaches is a `$defs`
  /// entry referenced with `$ref`, so recursive models are described.
  /// Throws an `argument` error for an unknown model.
  public func jsonSchema(for model: String, canonical: Bool = false) throws(StrataError) -> JSON {
    let type = try modelType(model).get()
    var exporter = JSONSchemaExporter(schema: self, canonical: canonical)
    return exporter.document(root: type.index)
  }
}

/// Builds one JSON Schema document.
struct JSONSchemaExporter {
  let schema: Schema
  let canonical: Bool
  private var defs = JSONObject()
  private var queued: Set<Int> = []
  private var pending: [Int] = []

  init(schema: Schema, canonical: Bool) {
    self.schema = schema
    self.canonical = canonical
  }

  /// The whole document for model `root`.
  mutating func document(root: Int) -> JSON {
    let rootRef = ref(root)
    while let next = pending.popLast() {
      defs[schema.models[next].name] = definition(schema.models[next])
    }
    var sorted = JSONObject()
    for name in schema.modelNames where defs[name] != nil { sorted[name] = defs[name] }
    var out = JSONObject()
    out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    out["title"] = .string(schema.models[root].name + (canonical ? " (canonical dictionary)" : " (API JSON)"))
    out["$ref"] = rootRef
    out["$defs"] = .object(sorted)
    return .object(out)
  }

  /// `"#/$defs/NAME"`, escaped as a JSON Pointer (RFC 6901) in a URI fragment (RFC 3986); queues the model.
  private mutating func ref(_ index: Int) -> JSON {
    if queued.insert(index).inserted { pending.append(index) }
    return .string("#/$defs/" + Self.fragment(schema.models[index].name))
  }

  /// A pointer token escaped for a URI fragment.
  static func fragment(_ name: String) -> String {
    var out = ""
    let allowed = Set("!$&'()*+,;=:@-._".utf8)
    for byte in name.utf8 {
      switch byte {
      case UInt8(ascii: "~"): out += "~0"
      case UInt8(ascii: "/"): out += "~1"
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        if allowed.contains(byte) {
          out.unicodeScalars.append(Unicode.Scalar(byte))
        } else {
          let digits = Array("0123456789ABCDEF")
          out += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
        }
      }
    }
    return out
  }

  // MARK: models

  /// A model's `$defs` entry: its body, or the choice among its subtypes.
  private mutating func definition(_ model: ModelType) -> JSON {
    guard let cluster = model.cluster else { return body(model) }
    if canonical {
      // A canonical value says its model with "$type"; without it, the model itself.
      var choices: [JSON] = [body(model)]
      var seen: Set<Int> = [model.index]
      for target in cluster.targets.sorted()
      where seen.insert(target).inserted && target < schema.models.count {
        choices.append(.object(["$ref": ref(target)]))
      }
      return .object(["anyOf": .array(choices)])
    }
    var branches: [JSON] = []
    switch cluster {
    case .key(let key, let table):
      for value in table.keys.sorted() {
        guard let target = table[value], target < schema.models.count else { continue }
        var branch = target == model.index ? Self.members(body(model)) : JSONObject([("$ref", ref(target))])
        var properties = JSONObject()
        properties[key.name] = .object(["const": .string(value)])
        branch["properties"] = mergeProperties(branch["properties"], properties)
        branch["required"] = .array(Self.strings(branch["required"]) + [.string(key.name)])
        branches.append(.object(branch))
      }
      return .object([
        "$comment": .string("subtypes chosen by the discriminator key '\(key.name)'"),
        "oneOf": .array(branches),
      ])
    case .rules(let rules):
      var earlier: [JSON] = []
      for rule in rules where rule.model < schema.models.count {
        var branch =
          rule.model == model.index ? Self.members(body(model)) : JSONObject([("$ref", ref(rule.model))])
        var all: [JSON] = [.object(["required": .array([.string(rule.has.name)])])]
        if !earlier.isEmpty { all.append(.object(["not": .object(["anyOf": .array(earlier)])])) }
        branch["allOf"] = .array(all)
        branches.append(.object(branch))
        earlier.append(.object(["required": .array([.string(rule.has.name)])]))
      }
      return .object([
        "$comment": .string("subtypes chosen by the first rule whose key is present"),
        "oneOf": .array(branches),
      ])
    }
  }

  private func mergeProperties(_ existing: JSON?, _ extra: JSONObject) -> JSON {
    var out = JSONObject()
    if case .object(let object)? = existing { out = object }
    for (key, value) in extra { out[key] = value }
    return .object(out)
  }

  private static func members(_ value: JSON) -> JSONObject {
    if case .object(let object) = value { return object }
    return JSONObject()
  }

  private static func strings(_ value: JSON?) -> [JSON] {
    if case .array(let elements)? = value { return elements }
    return []
  }

  /// The schema of one model's own object (no subtype choice).
  private mutating func body(_ model: ModelType) -> JSON {
    if canonical { return canonicalBody(model) }
    let root = ObjectNode()
    for property in model.properties {
      let value = valueSchema(property.type, property.rules, top: true)
      switch property.location {
      case .none:
        continue
      case .path(let keys):
        root.insert(keys[...], value, nullable: property.type.acceptsNull, required: property.required)
      case .multi(let paths):
        // The values at the paths make an object keyed by each path as written, mapped onto the type.
        var inner: ModelType? = nil
        if case .model(let index) = property.type.unwrapped, index < schema.models.count {
          inner = schema.models[index]
        }
        for path in paths {
          var value: JSON = .object([:])
          if let inner,
            let target = inner.properties.first(where: {
              if case .path(let keys) = $0.location {
                return keys.count == 1 && keys[0].name == path.written.name
              }
              return false
            })
          {
            value = valueSchema(target.type, target.rules, top: true)
          }
          root.insert(path.keys[...], value, nullable: true, required: false)
        }
      case .pluck(let array, let element):
        let items = ObjectNode()
        var elementSchema: JSON = .object([:])
        var elementNullable = true
        if case .array(let inner) = property.type.unwrapped {
          elementSchema = valueSchema(inner, property.rules, top: false)
          elementNullable = inner.acceptsNull
        }
        // A missing key in an element is an error unless the element type accepts null.
        items.insert(element[...], elementSchema, nullable: elementNullable, required: !elementNullable)
        // A null element is a null placeholder.
        var arraySchema = JSONObject([("type", "array"), ("items", Self.nullable(items.schema()))])
        let whole = Self.members(valueSchema(property.type, property.rules, top: true))
        for key in ["minItems", "maxItems"] { if let bound = whole[key] { arraySchema[key] = bound } }
        let plucked = property.type.acceptsNull ? Self.nullable(.object(arraySchema)) : .object(arraySchema)
        root.insert(
          array[...], plucked, nullable: property.type.acceptsNull, required: property.required)
      }
    }
    if model.unknownKeys == .reject {
      for (key, _) in model.discriminators where root.entry(key.name) == nil {
        root.insert([key][...], .object([:]), nullable: true, required: false)
      }
      root.closed = true
    }
    var out = Self.members(root.schema())
    if model.properties.contains(where: {
      $0.rules?.transforms.contains { !Schema.isBuiltinTransformer($0.name) } ?? false
    }) {
      out["$comment"] = "properties with custom transformers: their JSON side is not described ({})"
    }
    return .object(out)
  }

  private mutating func canonicalBody(_ model: ModelType) -> JSON {
    var properties = JSONObject()
    var required: [JSON] = []
    if model.isSubtype {
      properties["$type"] = .object(["const": .string(model.name)])
    }
    for property in model.properties {
      properties[property.name] = valueSchema(property.type, property.rules, top: true)
      if property.required { required.append(.string(property.name)) }
    }
    var out = JSONObject()
    out["type"] = "object"
    out["properties"] = .object(properties)
    if !required.isEmpty { out["required"] = .array(required) }
    out["additionalProperties"] = false
    return .object(out)
  }

  // MARK: values

  /// `schema` that also accepts null.
  static func nullable(_ schema: JSON) -> JSON {
    var object = members(schema)
    if object.count == 0 { return schema }
    if case .string(let name)? = object["type"], object["enum"] == nil, object["const"] == nil,
      object["$ref"] == nil, object["oneOf"] == nil, object["anyOf"] == nil
    {
      object["type"] = .array([.string(name), "null"])
      return .object(object)
    }
    if case .array(let values)? = object["enum"], object.count == 1 {
      return .object(["enum": .array(values + [.null])])
    }
    return .object(["anyOf": .array([.object(["type": "null"]), schema])])
  }

  /// The schema of a value of `type`; `top` for the property's whole value (length rules).
  private mutating func valueSchema(_ type: TypeRef, _ rules: ValueRules?, top: Bool) -> JSON {
    var out: JSON
    switch type {
    case .optional(let inner):
      out = Self.nullable(valueSchema(inner, rules, top: false))
    case .array(let element):
      out = .object(["type": "array", "items": valueSchema(element, rules, top: false)])
    case .dict(let element):
      out = .object(["type": "object", "additionalProperties": valueSchema(element, rules, top: false)])
    case .model(let index):
      out = .object(["$ref": ref(index)])
    case .json, .string, .int, .double, .bool, .url, .date:
      out = leafSchema(type, rules)
    }
    if top, let validation = rules?.validation, lengthApplies(type, rules) {
      var object = Self.members(out)
      let unwrapped = type.unwrapped
      func add(_ key: String, _ value: Int?) {
        if let value { object[key] = .int(Int64(value)) }
      }
      switch unwrapped {
      case .string, .url, .date:
        add("minLength", validation.minLength)
        add("maxLength", validation.maxLength)
      case .array:
        add("minItems", validation.minLength)
        add("maxItems", validation.maxLength)
      case .dict:
        add("minProperties", validation.minLength)
        add("maxProperties", validation.maxLength)
      default:
        add("minLength", validation.minLength)
        add("maxLength", validation.maxLength)
        add("minItems", validation.minLength)
        add("maxItems", validation.maxLength)
        add("minProperties", validation.minLength)
        add("maxProperties", validation.maxLength)
      }
      out = .object(object)
    }
    return out
  }

  /// True when length rules, which apply to the model value, describe the JSON side too.
  private func lengthApplies(_ type: TypeRef, _ rules: ValueRules?) -> Bool {
    if canonical { return true }
    guard let rules else { return true }
    switch type.unwrapped {
    case .array, .dict: return true
    default: return rules.transforms.isEmpty && rules.enumMap == nil && !rules.rewritesDates
    }
  }

  /// The schema of a scalar (or `json`) value.
  private func leafSchema(_ type: TypeRef, _ rules: ValueRules?) -> JSON {
    if !canonical, let rules, let first = rules.transforms.first {
      if case .json = type, Schema.isBuiltinTransformer(first.name) {
        // A built-in transformer reads each leaf of a `json` value, at any depth.
        return .object([
          "$comment": .string(
            "read by the '\(first.name)' transformer: any JSON, each leaf read by it (nulls kept)")
        ])
      }
      return transformedSchema(first.name)
    }
    if let enumMap = rules?.enumMap {
      return enumSchema(enumMap, type)
    }
    var out = JSONObject()
    switch type {
    case .string: out["type"] = "string"
    case .int: out["type"] = "integer"
    case .double: out["type"] = "number"
    case .bool: out["type"] = "boolean"
    case .url:
      out["type"] = "string"
      out["format"] = "uri"
    case .date:
      switch canonical ? .iso8601 : (rules?.dateFormat ?? .iso8601) {
      case .iso8601 where canonical:
        out["type"] = "string"
        out["format"] = "date-time"
      case .iso8601:
        // Input may be looser than RFC 3339 (no offset, date only, a space): no "format".
        out["type"] = "string"
        out["$comment"] = "an ISO 8601 date and time (RFC 3339, or without offset, or a date only)"
      case .unix:
        out["type"] = "number"
        out["$comment"] = "seconds since 1970-01-01T00:00:00Z"
      case .unixMilliseconds:
        out["type"] = "number"
        out["$comment"] = "milliseconds since 1970-01-01T00:00:00Z"
      case .pattern:
        out["type"] = "string"
        out["$comment"] = "a date in a Unicode date pattern (not checked by this schema)"
      }
    case .json, .model, .array, .dict, .optional:
      break
    }
    if let validation = rules?.validation {
      addScalarRules(validation, to: &out, type: type)
    }
    return .object(out)
  }

  private func addScalarRules(_ validation: Validation, to out: inout JSONObject, type: TypeRef) {
    if let minimum = validation.minimum { out["minimum"] = Self.bound(minimum) }
    if let maximum = validation.maximum { out["maximum"] = Self.bound(maximum) }
    if let pattern = validation.pattern {
      out["pattern"] = .string(Self.ecmaPattern(pattern.source))
    }
    if let allowed = validation.allowed {
      out["enum"] = .array(allowed.map { JSON(borrowing: $0) })
    }
    if validation.minimumDate != nil || validation.maximumDate != nil {
      out["$comment"] = "date bounds (validate min/max) are not checked by this schema"
    }
  }

  /// A POSIX extended pattern as ECMA-262 reads it: bracket classes (`[[:digit:]]`) spelled out.
  static func ecmaPattern(_ source: String) -> String {
    let classes = [
      ("[:digit:]", "0-9"), ("[:alpha:]", "A-Za-z"), ("[:alnum:]", "A-Za-z0-9"), ("[:upper:]", "A-Z"),
      ("[:lower:]", "a-z"), ("[:space:]", " \\t\\n\\r\\f\\v"), ("[:xdigit:]", "0-9A-Fa-f"),
      ("[:blank:]", " \\t"), ("[:punct:]", "!-/:-@\\[-`{-~"), ("[:word:]", "A-Za-z0-9_"),
    ]
    var out = source
    for (posix, ecma) in classes where out.holds(posix) { out = out.replacingEvery(posix, with: ecma) }
    return out
  }

  private static func bound(_ bound: Bound) -> JSON {
    switch bound {
    case .integer(let value): return .int(value)
    case .real(let value): return .double(value)
    }
  }

  private func enumSchema(_ map: EnumMap, _ type: TypeRef) -> JSON {
    if canonical {
      var values = map.pairs.map { JSON(borrowing: $0.model) }
      if let fallback = map.fallback {
        let value = JSON(borrowing: fallback)
        if !values.contains(value) { values.append(value) }
      }
      var unique: [JSON] = []
      for value in values where !unique.contains(value) { unique.append(value) }
      return .object(["enum": .array(unique)])
    }
    if map.fallback != nil {
      return .object([
        "$comment": "enum with enumDefault: any value maps (values outside the mapping map to the default)",
        "not": .object(["type": "null"]),
      ])
    }
    var unique: [JSON] = []
    for pair in map.pairs {
      let value = JSON(borrowing: pair.json)
      if !unique.contains(value) { unique.append(value) }
    }
    return .object(["enum": .array(unique)])
  }

  /// The JSON side of a value read by the transformer `name` first, as
  /// the transformer states it (`Transformer.jsonSide`; built-ins only).
  private func transformedSchema(_ name: String) -> JSON {
    let comment = JSON.string("read by the '\(name)' transformer")
    switch BuiltinTransformers.all[name]?.jsonSide {
    case .string?: return .object(["type": "string", "$comment": comment])
    case .number?: return .object(["type": "number", "$comment": comment])
    case .scalar?: return .object(["$comment": comment])
    case nil:
      return .object(["$comment": .string("custom transformer '\(name)': its JSON side is not described")])
    }
  }
}

/// The nested objects that key paths describe.
final class ObjectNode {
  /// Each key: the schemas of the values at it and the object below it.
  private var entries: [(key: String, values: [JSON], node: ObjectNode?, nullable: Bool)] = []
  private var required: [String] = []
  /// `additionalProperties: false`.
  var closed = false

  func entry(_ key: String) -> Int? { entries.firstIndex { $0.key == key } }

  /// How many keys of a key path the schema nests; deeper paths end in `{}`
  /// (a key path may have any length, the export must not recurse without bound).
  static let maxKeys = 64

  /// Puts `value` at the key path `keys`.
  func insert(_ keys: ArraySlice<Key>, _ value: JSON, nullable: Bool, required isRequired: Bool) {
    var keys = keys
    var value = value
    if keys.count > Self.maxKeys {
      keys = keys.prefix(Self.maxKeys)
      value = .object([
        "$comment": .string("a key path deeper than \(Self.maxKeys) keys: the rest is not described")
      ])
    }
    insertNested(keys, value, nullable: nullable, required: isRequired)
  }

  private func insertNested(_ keys: ArraySlice<Key>, _ value: JSON, nullable: Bool, required isRequired: Bool)
  {
    guard let first = keys.first else { return }
    let position: Int
    if let found = entry(first.name) {
      position = found
    } else {
      entries.append((first.name, [], nil, true))
      position = entries.count - 1
    }
    if isRequired, !required.contains(first.name) { required.append(first.name) }
    if !nullable { entries[position].nullable = false }
    if keys.count == 1 {
      entries[position].values.append(value)
    } else {
      let node = entries[position].node ?? ObjectNode()
      entries[position].node = node
      node.insertNested(keys.dropFirst(), value, nullable: nullable, required: isRequired)
    }
  }

  /// The object schema.
  func schema() -> JSON {
    var properties = JSONObject()
    for entry in entries {
      var parts = entry.values
      if let node = entry.node {
        // Through null, every value below is null: allowed when they all accept it.
        parts.append(entry.nullable ? JSONSchemaExporter.nullable(node.schema()) : node.schema())
      }
      properties[entry.key] = parts.count == 1 ? parts[0] : .object(["allOf": .array(parts)])
    }
    var out = JSONObject()
    out["type"] = "object"
    out["properties"] = .object(properties)
    if !required.isEmpty { out["required"] = .array(required.map { .string($0) }) }
    if closed { out["additionalProperties"] = false }
    return .object(out)
  }
}
