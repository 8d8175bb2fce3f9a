import CJansson
import Glibc

/// The most that models, arrays and dictionaries may nest in mapped input.
public let maxDepth = 512

/// Maps JSON values (jansson) onto model storage, collecting every error.
///
/// Two modes: `.json` reads input as the API sends it (JSON keys and key
/// paths, enum mappings, unknown keys); `.canonical` reads canonical values
/// (property names as keys, model-side enum values), as in `default`.
package struct Mapper {
  package enum Mode { case json, canonical }

  /// Which property a value belongs to, for errors.
  package struct Owner {
    let model: ModelType
    let property: Int

    /// Property `property` of `model`.
    package init(model: ModelType, property: Int) {
      self.model = model
      self.property = property
    }
  }

  let schema: Schema
  let mode: Mode
  /// True while reading the schema's own default values: their models do
  /// not keep the schema alive (the schema keeps them).
  var makesTemplates = false
  /// True while reading a partial model (an update): missing keys stay absent
  /// (no default, no `missing` error) and null on a property without null
  /// means "clear" (read as `.null`, which the merge turns into absent).
  package var partial = false
  /// True while reading a property of a partial model.
  package var clearing = false
  /// True while reading a property of a partial model whose null means "clear"
  /// (required properties cannot be cleared).
  package var clearsNull = false
  package var errors: [ErrorDetail] = []
  package var steps: [PathStep] = []
  /// Inside a graph import: the relationship values of records are held
  /// here, unmapped, for the import to resolve into records
  /// (`Graph/RelationCollector.swift` conforms; GraphImporter.swift).
  package var relations: (any RelationHolder)? = nil
  package var depth = 0
  /// On the byte paths: the stand-ins of numbers outside jansson's range
  /// (`NumberMarkers`), reported where a scalar reads them.
  var numbers: NumberMarkers? = nil
  /// The lowest stack address recursion may reach on this thread.
  let stackLimit = StackGuard.limit()

  package init(schema: Schema, mode: Mode) {
    self.schema = schema
    self.mode = mode
    steps.reserveCapacity(16)
  }

  /// True when nesting one level more stays within `maxDepth` and the thread's stack.
  package func canDescend() -> Bool {
    depth < maxDepth && StackGuard.hasRoom(stackLimit)
  }

  // MARK: errors

  package mutating func report(_ code: ErrorCode, _ message: String, _ owner: Owner?, extra: [PathStep] = [])
  {
    var model = ""
    var property = ""
    if let owner {
      model = owner.model.name
      if owner.property >= 0 && owner.property < owner.model.properties.count {
        property = owner.model.properties[owner.property].name
      }
    }
    errors.append(
      ErrorDetail(
        path: PathStep.pointer(steps + extra), model: model, property: property, code: code, message: message)
    )
  }

  package func typeName(_ type: TypeRef) -> String { type.name(models: schema.modelNames) }

  // MARK: entry points

  /// Maps `value` (borrowed) onto a model of `type`; nil if there were errors.
  mutating func mapRoot(_ value: JPtr, type: ModelType) -> ModelObject? {
    guard JValue.isObject(value) else {
      errors.append(
        ErrorDetail(
          path: PathStep.pointer(steps), model: type.name, code: .type,
          message: "expected an object for model '\(type.name)', found \(JValue.typeName(value))"))
      return nil
    }
    guard let chosen = subtype(value, type) else { return nil }
    return model(value, chosen)
  }

  /// Reads an update's input (borrowed) as a partial model of `type` (no
  /// subtype choice: the update applies to the model as it is).
  mutating func mapPartial(_ value: JPtr, type: ModelType) -> ModelObject? {
    guard JValue.isObject(value) else {
      errors.append(
        ErrorDetail(
          path: "", model: type.name, code: .type,
          message: "expected an object to update '\(type.name)' with, found \(JValue.typeName(value))"))
      return nil
    }
    partial = true
    defer { partial = false }
    return model(value, type)
  }

  /// Maps every element of the array `value` (borrowed).
  mutating func mapMany(_ value: JPtr, type: ModelType) -> [ModelObject]? {
    guard JValue.isArray(value) else {
      errors.append(
        ErrorDetail(
          path: "", model: type.name, code: .type,
          message: "expected an array of '\(type.name)' objects, found \(JValue.typeName(value))"))
      return nil
    }
    let count = json_array_size(value)
    var out: [ModelObject] = []
    out.reserveCapacity(count)
    for position in 0..<count {
      guard let element = json_array_get(value, position) else { continue }
      steps.append(.index(position))
      if let object = mapRoot(element, type: type), errors.isEmpty { out.append(object) }
      steps.removeLast()
    }
    return errors.isEmpty ? out : nil
  }

  /// Reads a whole property value (for `default`): null, leaves or models.
  package mutating func read(_ value: JPtr, type: TypeRef, model: ModelType, property: Int) -> Slot {
    propertyValue(
      value, model.properties[property].type, Owner(model: model, property: property),
      model.properties[property].rules)
  }

  /// Reads one scalar of a property (an element, for a list): `type`, with
  /// the property's rules.
  package mutating func readScalar(_ value: JPtr, type: TypeRef, model: ModelType, property: Int) -> Slot {
    propertyValue(value, type, Owner(model: model, property: property), model.properties[property].rules)
  }

  /// Checks a scalar value of an enum mapping (canonical form).
  mutating func readScalar(_ value: JPtr, type: TypeRef) -> Slot {
    if let leaf = leaf(value, type, nil, nil) { return .leaf(leaf) }
    return .absent
  }
}

/// Where the mapper sets aside a relationship value of a record instead of
/// mapping it (a graph import resolves it into a record later). Declared
/// here so that the mapper knows nothing of the graph's types.
package protocol RelationHolder: AnyObject {
  /// Sets `value` (borrowed from the input) aside, found at `steps`, for a
  /// relationship to model `model`; returns the placeholder slot.
  func hold(_ value: JPtr, steps: [PathStep], model: Int) -> Slot
}
