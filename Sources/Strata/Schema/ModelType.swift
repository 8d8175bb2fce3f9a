import CJansson
import Glibc

/// What a model does with input keys that no property maps.
enum UnknownKeys: String, Sendable {
  case ignore, keep, reject
}

/// One declared property of a model.
package struct PropertySpec: @unchecked Sendable {
  /// The property's name.
  package let name: String
  /// The model whose document declares the property (a base, for inherited ones).
  let declaredIn: String
  /// The property's type.
  package var type: TypeRef
  /// Where the value lives.
  package var location: Location
  /// A missing key is an error.
  package var required: Bool
  /// The value when the key is missing (a template copied into each model), or nil.
  package var defaultSlot: Slot?
  /// Transformers, enum mapping and validation applied to each scalar of the value, or nil.
  package var rules: ValueRules?
  /// How `merge` and `update` combine this property's values.
  package var merge: MergePolicy = .replace
  /// The relationship this property is in a graph context, or nil (Relation.swift).
  package var relation: Relation? = nil

  /// The key path for messages: "user.login", "/a.b/c", or the list.
  package var locationText: String {
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
  package let name: String
  /// Its index in the schema.
  package let index: Int
  /// Its properties, in the document's order.
  package var properties: ContiguousArray<PropertySpec> = []
  /// Property name -> index.
  package var propertyIndex: [String: Int] = [:]
  /// What to do with unmapped input keys.
  var unknownKeys: UnknownKeys = .ignore
  /// The `keys` rule for properties without `json` (inherited along `extends`).
  var naming: NamingRule = .none
  /// The model this one `extends`, or nil.
  var base: ModelType? = nil
  /// Where records of this model sit in an API response (`root`, `meta`).
  package var response = ResponseShape()

  /// True when `other` is this model or one of its bases (along `extends`).
  package func isSelfOrDescendant(of other: ModelType) -> Bool {
    if self === other { return true }  // the common case, without walking (a retain per hop)
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
  package var primaryKey: [Int] = []
  /// The model whose records share one key space with this one's in a graph
  /// context: the furthest base along `extends` with the same primary key.
  package var keyRoot: Int = 0
  /// The indices of the properties that are relationships, in order.
  package var relations: [Int] = []
  /// The `indexes` a graph file keeps on this model's table: each a list of
  /// property names (checked by the loader's relations pass).
  package var indexes: [[String]] = []
  /// The first key of every property's location: the input keys the model maps.
  var mappedKeys: Set<String> = []
  /// How to choose a subtype for input of this model (class clusters), or nil.
  var cluster: Cluster? = nil
  /// True when some model's `subtypes` can choose this one: its canonical
  /// dictionary then carries `"$type"`.
  package var isSubtype = false
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
