import CJansson

/// Diff and patch of models: changes between two models of one schema as an
/// RFC 6902 JSON Patch or a lifted RFC 7396 merge patch over their canonical
/// dictionaries (with `"$type"` for subtypes and `"$unknown"` for kept unknown
/// keys, as archives carry them), and new models made by applying a patch.
package enum ModelDiff {
  /// An `argument` error unless `a` and `b` are models of one model type of one schema.
  static func checkPair(_ a: ModelObject, _ b: ModelObject) -> StrataError? {
    if a.schema !== b.schema {
      return StrataError(
        code: .argument, message: "the models belong to different schemas: diff compares models of one schema"
      )
    }
    if a.type !== b.type {
      return StrataError(
        code: .argument, message: "the models are of different models ('\(a.type.name)' and '\(b.type.name)')"
      )
    }
    return nil
  }

  /// The RFC 6902 JSON Patch from `a` to `b` (a new reference).
  package static func jsonPatch(_ a: ModelObject, _ b: ModelObject) -> Result<JPtr, StrataError> {
    if let problem = checkPair(a, b) { return .failure(problem) }
    guard let left = a.dictionary(archive: true) else { return .failure(outOfMemory) }
    defer { JValue.release(left) }
    guard let right = b.dictionary(archive: true) else { return .failure(outOfMemory) }
    defer { JValue.release(right) }
    guard let patch = JSONPatch.diff(left, right) else { return .failure(outOfMemory) }
    return .success(patch)
  }

  /// The lifted merge patch from `a` to `b` (a new reference), or an
  /// `argument` error naming each property that `a` holds and `b` lacks.
  package static func mergePatch(_ a: ModelObject, _ b: ModelObject) -> Result<JPtr, StrataError> {
    if let problem = checkPair(a, b) { return .failure(problem) }
    guard let left = a.dictionary(archive: true) else { return .failure(outOfMemory) }
    defer { JValue.release(left) }
    guard let right = b.dictionary(archive: true) else { return .failure(outOfMemory) }
    defer { JValue.release(right) }
    return MergePatch.diff(left, right, type: a.type, schema: a.schema)
  }

  /// A new model: `object` with the JSON Patch `patch` (borrowed) applied to
  /// its canonical dictionary, read back as a canonical value.
  package static func patched(_ object: ModelObject, _ patch: JPtr) -> Result<ModelObject, StrataError> {
    if Nesting.exceeds(patch, Nesting.documentLimit) {
      return .failure(Nesting.tooDeep("the patch", Nesting.documentLimit))
    }
    guard let dictionary = object.dictionary(archive: true) else { return .failure(outOfMemory) }
    defer { JValue.release(dictionary) }
    switch JSONPatch.apply(patch, to: dictionary) {
    case .success(let result):
      defer { JValue.release(result) }
      return read(object.schema, object.type.name, result, exact: true)
    case .failure(let failure):
      let property = object.type.propertyIndex[failure.target] != nil ? failure.target : ""
      return .failure(
        StrataError([
          ErrorDetail(
            path: failure.path, model: object.type.name, property: property, code: .argument,
            message: failure.message)
        ]))
    }
  }

  /// A new model: `object` with the lifted merge patch `patch` (borrowed, an
  /// object) applied to its canonical dictionary.
  package static func mergePatched(_ object: ModelObject, _ patch: JPtr) -> Result<ModelObject, StrataError> {
    guard JValue.isObject(patch) else {
      return .failure(
        StrataError([
          ErrorDetail(
            path: "", model: object.type.name, code: .argument,
            message: "a merge patch of a model is an object, not \(JValue.typeName(patch))")
        ]))
    }
    if Nesting.exceeds(patch, Nesting.documentLimit) {
      return .failure(Nesting.tooDeep("the merge patch", Nesting.documentLimit))
    }
    guard let dictionary = object.dictionary(archive: true) else { return .failure(outOfMemory) }
    defer { JValue.release(dictionary) }
    switch MergePatch.apply(dictionary, patch) {
    case .success(let result):
      defer { JValue.release(result) }
      return read(object.schema, object.type.name, result, exact: true)
    case .failure(let failure): return .failure(failure)
    }
  }

  /// Reads a canonical dictionary (borrowed) as a new model named `name`.
  /// With `exact`, a property the dictionary leaves out stays absent even
  /// where the schema gives it a `default` (the dictionary says it all).
  static func read(_ schema: Schema, _ name: String, _ dictionary: JPtr, exact: Bool) -> Result<
    ModelObject, StrataError
  > {
    switch schema.mapCanonical(name, dictionary) {
    case .success(let object):
      if exact { restoreAbsence(object, dictionary, limit: StackGuard.limit()) }
      return .success(object)
    case .failure(let error):
      return .failure(error)
    }
  }

  /// Sets absent every property of `object` (and of the models inside it)
  /// that `dictionary` leaves out: canonical reading filled in defaults there.
  private static func restoreAbsence(_ object: ModelObject, _ dictionary: JPtr, limit: UInt) {
    guard StackGuard.hasRoom(limit) else { return }
    let properties = object.type.properties
    for index in 0..<min(properties.count, object.slots.count) {
      if let member = JSONTree.member(dictionary, properties[index].name) {
        restoreAbsence(in: object.slots[index], member, limit: limit)
      } else if object.slots[index].isPresent {
        object.slots[index].release()
        object.slots[index] = .absent
      }
    }
  }

  private static func restoreAbsence(in slot: Slot, _ value: JPtr, limit: UInt) {
    switch slot {
    case .model(let nested):
      if JValue.isObject(value) { restoreAbsence(nested, value, limit: limit) }
    case .array(let elements):
      guard JValue.isArray(value) else { return }
      for (position, element) in elements.enumerated() {
        if let item = json_array_get(value, position) { restoreAbsence(in: element, item, limit: limit) }
      }
    case .dict(let entries):
      guard JValue.isObject(value) else { return }
      for entry in entries {
        if let item = JSONTree.member(value, entry.key) {
          restoreAbsence(in: entry.value, item, limit: limit)
        }
      }
    default:
      return
    }
  }

  static let outOfMemory = StrataError(code: .oom, message: "out of memory")
}

// MARK: the Swift API

extension Model {
  /// The changes from this model to `other` (a model of the same model and
  /// schema) as an RFC 6902 JSON Patch over their canonical dictionaries:
  /// `patched(diff(other))` equals `other`. Throws an `argument` error for
  /// models of different schemas or models.
  public func diff(_ other: Model) throws(StrataError) -> JSON {
    let pointer = try ModelDiff.jsonPatch(object, other.object).get()
    defer { JValue.release(pointer) }
    return JSON(borrowing: pointer)
  }

  /// The changes from this model to `other` as a merge patch (RFC 7396,
  /// lifted: `null` sets a property to null): `mergePatched(mergeDiff(other))`
  /// equals `other`. A property this model holds and `other` lacks cannot be
  /// said in a merge patch: an `argument` error names it (use `diff`).
  public func mergeDiff(_ other: Model) throws(StrataError) -> JSON {
    let pointer = try ModelDiff.mergePatch(object, other.object).get()
    defer { JValue.release(pointer) }
    return JSON(borrowing: pointer)
  }

  /// A new model: this one with the RFC 6902 JSON Patch `patch` applied to
  /// its canonical dictionary, read back as a canonical value. A failing
  /// operation is an `argument` error pointing into the patch (`/2/path`); an
  /// invalid result fails with the mapping errors, pointing into the patched
  /// dictionary.
  public func patched(_ patch: JSON) throws(StrataError) -> Model {
    guard let pointer = patch.makeJansson() else {
      throw StrataError(code: .argument, message: "the patch holds a value JSON cannot represent")
    }
    defer { JValue.release(pointer) }
    return Model(try ModelDiff.patched(object, pointer).get())
  }

  /// A new model: this one with the lifted merge patch `patch` (an object;
  /// `null` sets null) applied to its canonical dictionary.
  public func mergePatched(_ patch: JSON) throws(StrataError) -> Model {
    guard let pointer = patch.makeJansson() else {
      throw StrataError(code: .argument, message: "the patch holds a value JSON cannot represent")
    }
    defer { JValue.release(pointer) }
    return Model(try ModelDiff.mergePatched(object, pointer).get())
  }
}
