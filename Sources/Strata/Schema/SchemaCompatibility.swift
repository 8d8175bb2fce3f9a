import CJansson

/// One difference between two versions of a schema that matters to data
/// written under the old one, and whether old archives or old JSON could no
/// longer be read because of it.
public struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
  /// The kinds of change.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    /// A model of the old schema is gone (breaking).
    case modelRemoved = "model-removed"
    /// A model is new (not breaking).
    case modelAdded = "model-added"
    /// A property is gone and no migration removes or renames it (breaking;
    /// not breaking when a migration does).
    case propertyRemoved = "property-removed"
    /// An optional property is new (not breaking).
    case propertyAdded = "property-added"
    /// A property's type accepts less than it did: `double` -> `int`, `T?` ->
    /// `T`, `json` -> anything, `string` -> `url`, model A -> model B (breaking).
    case typeNarrowed = "type-narrowed"
    /// A property's type accepts more than it did: `int` -> `double`, `T` ->
    /// `T?`, `url` -> `string`, anything -> `json` (not breaking).
    case typeWidened = "type-widened"
    /// A new property is required, or an old one became required (breaking).
    case requiredAdded = "required-added"
    /// A property's place in the JSON (`json`, or the `keys` rule) changed:
    /// old JSON has it elsewhere (breaking).
    case jsonKeyChanged = "json-key-changed"
    /// A JSON value of a property's `enum` is gone, or an `enum` now limits a
    /// property that had none (breaking).
    case enumValueRemoved = "enum-value-removed"
  }

  /// An RFC 6901 pointer into the new schema document (into the old one for removals).
  public let path: String
  /// The model concerned.
  public let model: String
  /// The property concerned, or "" for a change of a whole model.
  public let property: String
  /// The kind of change.
  public let change: Kind
  /// One line for a person.
  public let message: String
  /// True when old archives or old JSON could no longer be read.
  public let breaking: Bool

  /// `BREAKING path [Model.property] change: message` (or `ok ...`).
  public var description: String {
    let owner = property.isEmpty ? model : "\(model).\(property)"
    return "\(breaking ? "BREAKING" : "ok") \(path) [\(owner)] \(change.rawValue): \(message)"
  }
}

extension Schema {
  /// The changes from schema `old` to `new` that matter to data written
  /// under `old`: models and properties removed and added, types narrowed or
  /// widened, required keys added, JSON keys moved, enum values removed. Each
  /// says whether it breaks reading old archives or old JSON. Models are
  /// compared by name; a property inherited through `extends` is reported at
  /// the model that declares it.
  public static func compare(old: Schema, new: Schema) -> [SchemaChange] {
    SchemaCompatibility(old: old, new: new).changes()
  }
}

/// The comparison behind `Schema.compare(old:new:)`.
package struct SchemaCompatibility {
  let old: Schema
  let new: Schema

  package init(old: Schema, new: Schema) {
    self.old = old
    self.new = new
  }

  /// The changes as a jansson array of objects (a new reference), for the C API.
  package func json() -> JPtr? {
    guard let out = json_array() else { return nil }
    for change in changes() {
      guard let entry = json_object() else { continue }
      for (key, value) in [
        ("path", change.path), ("model", change.model), ("property", change.property),
        ("change", change.change.rawValue), ("message", change.message),
      ] {
        if let text = JValue.makeString(value) { JValue.setNew(entry, key, text) }
      }
      JValue.setNew(entry, "breaking", change.breaking ? json_true() : json_false())
      _ = json_array_append_new(out, entry)
    }
    return out
  }

  /// The name under which a model's body stands in the documents: an
  /// instance's is its generic model's (`Page<Tweet>` -> `Page<T>`).
  private func documentName(_ model: String) -> String {
    new.instanceTemplates[model] ?? old.instanceTemplates[model] ?? model
  }

  func changes() -> [SchemaChange] {
    var out: [SchemaChange] = []
    for oldModel in old.models {
      guard let index = new.modelIndex[oldModel.name], index < new.models.count else {
        out.append(
          SchemaChange(
            path: JSONPointer.make(["models", documentName(oldModel.name)]), model: oldModel.name,
            property: "",
            change: .modelRemoved,
            message: "model '\(oldModel.name)' is removed: its archives and its JSON can no longer be read",
            breaking: true))
        continue
      }
      out += properties(oldModel, new.models[index])
    }
    for newModel in new.models where old.modelIndex[newModel.name] == nil {
      out.append(
        SchemaChange(
          path: JSONPointer.make(["models", documentName(newModel.name)]), model: newModel.name, property: "",
          change: .modelAdded, message: "model '\(newModel.name)' is new", breaking: false))
    }
    return out
  }

  /// True when `spec`, inherited by `model`, is reported at the model that
  /// declares it: that model is in both schemas.
  private func inherited(_ spec: PropertySpec, by model: ModelType) -> Bool {
    spec.declaredIn != model.name && old.modelIndex[spec.declaredIn] != nil
      && new.modelIndex[spec.declaredIn] != nil
  }

  private func properties(_ oldModel: ModelType, _ newModel: ModelType) -> [SchemaChange] {
    var out: [SchemaChange] = []
    let name = newModel.name
    /// Why a required property breaks: old JSON lacks it; old archives too, unless a migration sets it.
    func requiredWhy(_ property: String) -> String {
      let set = new.migrations.contains { step in
        (step.model == nil || step.model == name) && step.set.contains { $0.key == property }
      }
      return set
        ? "old JSON without it cannot be read (a migration sets it in old archives)"
        : "old JSON and archives without it cannot be read"
    }
    func change(
      _ spec: PropertySpec, _ kind: SchemaChange.Kind, _ message: String, breaking: Bool
    ) {
      out.append(
        SchemaChange(
          path: JSONPointer.make(["models", documentName(spec.declaredIn), "properties", spec.name]),
          model: name,
          property: spec.name, change: kind, message: message, breaking: breaking))
    }
    for oldSpec in oldModel.properties {
      guard let index = newModel.propertyIndex[oldSpec.name], index < newModel.properties.count else {
        if inherited(oldSpec, by: oldModel) { continue }
        let migrated = new.migrations.contains { step in
          (step.model == nil || step.model == name)
            && (step.remove.contains(oldSpec.name) || step.rename.contains { $0.old == oldSpec.name })
        }
        change(
          oldSpec, .propertyRemoved,
          migrated
            ? "property '\(oldSpec.name)' is removed; a migration removes or renames it in old archives"
            : "property '\(oldSpec.name)' is removed and no migration removes or renames it: old archives holding it cannot be read",
          breaking: !migrated)
        continue
      }
      let newSpec = newModel.properties[index]
      if oldSpec.declaredIn == newSpec.declaredIn && inherited(newSpec, by: newModel) { continue }
      let oldType = oldSpec.type.name(models: old.modelNames)
      let newType = newSpec.type.name(models: new.modelNames)
      switch variance(oldSpec.type, newSpec.type) {
      case .same: break
      case .widened:
        change(newSpec, .typeWidened, "type '\(oldType)' widened to '\(newType)'", breaking: false)
      case .narrowed:
        change(
          newSpec, .typeNarrowed,
          "type '\(oldType)' changed to '\(newType)', which does not accept every value of the old type",
          breaking: true)
      }
      if newSpec.required && !oldSpec.required {
        change(
          newSpec, .requiredAdded,
          "'\(newSpec.name)' is required now: \(requiredWhy(newSpec.name))", breaking: true
        )
      }
      if Self.locationKey(oldSpec.location) != Self.locationKey(newSpec.location) {
        change(
          newSpec, .jsonKeyChanged,
          "the JSON key moved from \(Self.locationName(oldSpec)) to \(Self.locationName(newSpec)): old JSON has it elsewhere",
          breaking: true)
      }
      out += enums(oldSpec, newSpec, model: name)
    }
    for newSpec in newModel.properties where oldModel.propertyIndex[newSpec.name] == nil {
      if inherited(newSpec, by: newModel) { continue }
      if newSpec.required {
        change(
          newSpec, .requiredAdded,
          "new property '\(newSpec.name)' is required: \(requiredWhy(newSpec.name))",
          breaking: true)
      } else {
        change(newSpec, .propertyAdded, "property '\(newSpec.name)' is new", breaking: false)
      }
    }
    return out
  }

  private func enums(_ oldSpec: PropertySpec, _ newSpec: PropertySpec, model: String) -> [SchemaChange] {
    let path = JSONPointer.make([
      "models", documentName(newSpec.declaredIn), "properties", newSpec.name, "enum",
    ])
    guard let newMap = newSpec.rules?.enumMap else { return [] }
    guard let oldMap = oldSpec.rules?.enumMap else {
      return [
        SchemaChange(
          path: path, model: model, property: newSpec.name, change: .enumValueRemoved,
          message: "an 'enum' now limits '\(newSpec.name)': old values outside it cannot be read",
          breaking: true)
      ]
    }
    var out: [SchemaChange] = []
    for pair in oldMap.pairs where !newMap.pairs.contains(where: { json_equal($0.json, pair.json) != 0 }) {
      out.append(
        SchemaChange(
          path: path, model: model, property: newSpec.name, change: .enumValueRemoved,
          message: "enum value \(Mapper.show(pair.json)) is no longer accepted", breaking: true))
    }
    return out
  }

  // MARK: types

  private enum Variance {
    case same, widened, narrowed

    func and(_ other: Variance) -> Variance {
      if self == .narrowed || other == .narrowed { return .narrowed }
      if self == .widened || other == .widened { return .widened }
      return .same
    }
  }

  /// How `newType` relates to `oldType`: the same, accepting more, or not
  /// accepting every old value. Models compare by name.
  private func variance(_ oldType: TypeRef, _ newType: TypeRef) -> Variance {
    // `json` accepts null already: `json?` is the same type.
    if case .optional(.json) = oldType { return variance(.json, newType) }
    if case .optional(.json) = newType { return variance(oldType, .json) }
    switch (oldType, newType) {
    case (.json, .json): return .same
    case (_, .json): return .widened
    case (.json, _): return .narrowed
    case (.optional(let a), .optional(let b)): return variance(a, b)
    case (.optional(let a), _): return Variance.narrowed.and(variance(a, newType))
    case (_, .optional(let b)): return Variance.widened.and(variance(oldType, b))
    case (.array(let a), .array(let b)), (.dict(let a), .dict(let b)): return variance(a, b)
    case (.model(let a), .model(let b)):
      return oldType.name(models: old.modelNames) == newType.name(models: new.modelNames) && a >= 0 && b >= 0
        ? .same : .narrowed
    case (.int, .double), (.url, .string): return .widened
    case (.string, .string), (.int, .int), (.double, .double), (.bool, .bool), (.url, .url), (.date, .date):
      return .same
    default: return .narrowed
    }
  }

  // MARK: locations

  private static func locationKey(_ location: Location) -> [String] {
    switch location {
    case .none: return ["false"]
    case .path(let keys): return ["path"] + keys.map(\.name)
    case .multi(let paths):
      return ["multi"] + paths.flatMap { [$0.written.name, "\u{1}"] + $0.keys.map(\.name) }
    case .pluck(let array, let element):
      return ["pluck"] + array.map(\.name) + ["\u{1}"] + element.map(\.name)
    }
  }

  private static func locationName(_ spec: PropertySpec) -> String {
    if case .none = spec.location { return "nowhere (json: false)" }
    return "'\(spec.locationText)'"
  }
}
