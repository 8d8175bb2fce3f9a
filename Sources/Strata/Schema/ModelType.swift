import CJansson
import Glibc

/// What a model does with input keys that no property maps.
enum UnknownKeys: String, Sendable {
  case ignore, keep, reject
}

/// Where a property's value lives in the input object.
enum Location: Sendable {
  /// `json: false`: never read nor written.
  case none
  /// A key path (from dots or a JSON Pointer): the keys to follow.
  case path([Key])
  /// A list of key paths: the value is an object keyed by each path as written.
  case multi([MultiPath])
  /// `users[].name`: the array at `array`, and from each of its objects the value at `element`.
  case pluck(array: [Key], element: [Key])
}

/// One key path of a list-of-key-paths location.
struct MultiPath: Sendable {
  /// The key path as the schema writes it (the key in the built object).
  let written: Key
  /// The keys to follow in the input.
  let keys: [Key]
}

/// A reversible value mapping, JSON value -> model value.
final class EnumMap: @unchecked Sendable {
  /// The pairs (owned references, released with the schema).
  let pairs: [(json: JPtr, model: JPtr)]
  /// For pairs whose JSON side is a string: that string -> pair index.
  let stringIndex: [String: Int]
  /// The model value for input outside the mapping (owned), or nil.
  let fallback: JPtr?

  init(pairs: [(json: JPtr, model: JPtr)], fallback: JPtr?) {
    self.pairs = pairs
    var index: [String: Int] = [:]
    for (position, pair) in pairs.enumerated() where JValue.isString(pair.json) {
      index[JValue.string(pair.json)] = index[JValue.string(pair.json)] ?? position
    }
    self.stringIndex = index
    self.fallback = fallback
  }

  deinit {
    for pair in pairs {
      JValue.release(pair.json)
      JValue.release(pair.model)
    }
    if let fallback { JValue.release(fallback) }
  }

  /// The model value for a JSON value (borrowed), or nil if outside the mapping.
  func forward(_ value: JPtr) -> JPtr? {
    if JValue.isString(value) {
      if let position = stringIndex[JValue.string(value)] { return pairs[position].model }
      return fallback
    }
    for pair in pairs where json_equal(pair.json, value) != 0 { return pair.model }
    return fallback
  }

  /// True when `value` (borrowed) is a model value of the mapping or its default.
  func holds(modelValue value: JPtr) -> Bool {
    if let fallback, json_equal(fallback, value) != 0 { return true }
    return pairs.contains { json_equal($0.model, value) != 0 }
  }

  /// The JSON value for a model value (borrowed), or nil if the mapping lacks it.
  func reverse(_ value: JPtr) -> JPtr? {
    for pair in pairs where json_equal(pair.model, value) != 0 { return pair.json }
    return nil
  }
}

/// One declared property of a model.
struct PropertySpec: @unchecked Sendable {
  /// The property's name.
  let name: String
  /// The model whose document declares the property (a base, for inherited ones).
  let declaredIn: String
  /// The property's type.
  var type: TypeRef
  /// Where the value lives.
  var location: Location
  /// A missing key is an error.
  var required: Bool
  /// The value when the key is missing (a template copied into each model), or nil.
  var defaultSlot: Slot?
  /// Transformers, enum mapping and validation applied to each scalar of the value, or nil.
  var rules: ValueRules?
  /// How `merge` and `update` combine this property's values.
  var merge: MergePolicy = .replace

  /// The key path for messages: "user.login", "/a.b/c", or the list.
  var locationText: String {
    switch location {
    case .none: return "(none)"
    case .path(let keys): return keys.map(\.name).joined(separator: ".")
    case .multi(let paths): return paths.map(\.written.name).joined(separator: ", ")
    case .pluck(let array, let element):
      return array.map(\.name).joined(separator: ".") + "[]." + element.map(\.name).joined(separator: ".")
    }
  }
}

/// A model declared by the schema.
package final class ModelType: @unchecked Sendable {
  /// The model's name.
  let name: String
  /// Its index in the schema.
  let index: Int
  /// Its properties, in the document's order.
  var properties: ContiguousArray<PropertySpec> = []
  /// Property name -> index.
  var propertyIndex: [String: Int] = [:]
  /// What to do with unmapped input keys.
  var unknownKeys: UnknownKeys = .ignore
  /// The `keys` rule for properties without `json` (inherited along `extends`).
  var naming: NamingRule = .none
  /// The model this one `extends`, or nil.
  var base: ModelType? = nil

  /// True when `other` is this model or one of its bases (along `extends`).
  func isSelfOrDescendant(of other: ModelType) -> Bool {
    var current: ModelType? = self
    var hops = 0
    while let model = current, hops < 10_000 {
      if model === other { return true }
      current = model.base
      hops += 1
    }
    return false
  }
  /// The primary key's properties (indices), possibly empty.
  var primaryKey: [Int] = []
  /// The first key of every property's location: the input keys the model maps.
  var mappedKeys: Set<String> = []
  /// How to choose a subtype for input of this model (class clusters), or nil.
  var cluster: Cluster? = nil
  /// True when some model's `subtypes` can choose this one: its canonical
  /// dictionary then carries `"$type"`.
  var isSubtype = false
  /// The discriminator keys and values written back when serializing this
  /// model, outermost cluster first.
  var discriminators: [(key: Key, value: String)] = []

  /// The name as a C string, for the C API (lives as long as the schema).
  package let cName: UnsafeMutablePointer<CChar>?

  init(name: String, index: Int) {
    self.name = name
    self.index = index
    self.cName = strdup(name)
  }

  /// Releases the default values. A default may hold models of this very
  /// type (a recursive model), which keep the type alive: the schema calls
  /// this when it goes away, to break that cycle.
  func releaseDefaults() {
    for index in properties.indices {
      properties[index].defaultSlot?.release()
      properties[index].defaultSlot = nil
    }
  }

  deinit {
    releaseDefaults()
    free(cName)
  }
}

/// How a model with `subtypes` chooses the model that input is mapped onto.
enum Cluster: Sendable {
  /// By the string value of a discriminator key.
  case key(Key, [String: Int])
  /// By the first rule whose key is present.
  case rules([(has: Key, model: Int)])

  /// The models this cluster can choose.
  var targets: [Int] {
    switch self {
    case .key(_, let table): return Array(table.values)
    case .rules(let rules): return rules.map(\.model)
    }
  }
}

/// What a property does to each scalar of its value on the way in (transform
/// chain, then enum mapping, then type check, then validation) and on the way
/// out (enum reversed, then the chain reversed).
final class ValueRules: @unchecked Sendable {
  /// The `transform` chain, in order.
  var transforms: [Transformer] = []
  /// The `enum` mapping, or nil.
  var enumMap: EnumMap? = nil
  /// The `validate` rules, or nil.
  var validation: Validation? = nil
  /// For dates: the `format` of the JSON side.
  var dateFormat: DateFormat = .iso8601
  /// For dates: the `timezone` offset in seconds, for input without one and for pattern output.
  var timezone: Int = 0

  /// True when dates are written in another form than the canonical one.
  var rewritesDates: Bool { dateFormat != .iso8601 }

  /// True when output needs no reverse mapping.
  var passesThroughOnOutput: Bool { transforms.isEmpty && enumMap == nil && !rewritesDates }
}
