import CJansson

/// Versioned archives of models (Mantle's NSCoding with `modelVersion`): a
/// self-describing JSON document
/// `{"strata-archive": 1, "version": V, "model": "Name", "values": {...}}`
/// whose values are the model's canonical dictionary with `"$type"` for
/// subtypes, `"$unknown"` for kept unknown keys, and the properties that
/// `json: false` hides from JSON.
package enum Archive {
  /// The archive format this release writes and reads.
  static let format: Int64 = 1

  /// The archive of `object` (a new reference).
  package static func make(_ object: ModelObject) -> JPtr? {
    guard let out = json_object() else { return nil }
    guard let values = object.dictionary(archive: true), let name = JValue.makeString(object.type.name) else {
      JValue.release(out)
      return nil
    }
    JValue.setNew(out, "strata-archive", json_integer(format))
    JValue.setNew(out, "version", json_integer(object.schema.version))
    JValue.setNew(out, "model", name)
    JValue.setNew(out, "values", values)
    return out
  }

  /// Restores a model from an archive (borrowed): the format and version are
  /// checked, the schema's migrations bring older values up to date, and the
  /// values are read as canonical values. Errors of the archive document are
  /// `argument` errors pointing into it; errors of the values point under
  /// `/values`.
  package static func restore(_ schema: Schema, _ document: JPtr) -> Result<ModelObject, StrataError> {
    func refuse(_ path: String, _ message: String) -> Result<ModelObject, StrataError> {
      .failure(StrataError(path: path, code: .argument, message: message))
    }
    guard JValue.isObject(document) else {
      return refuse("", "an archive is a JSON object with strata-archive, version, model and values")
    }
    if Nesting.exceeds(document, Nesting.documentLimit) {
      return .failure(Nesting.tooDeep("the archive", Nesting.documentLimit))
    }
    var unknown: [ErrorDetail] = []
    JValue.forEachMember(document) { keyBytes, _ in
      let key = JValue.keyString(keyBytes)
      if !["strata-archive", "version", "model", "values"].contains(key) {
        unknown.append(
          ErrorDetail(
            path: JSONPointer.make([key]), code: .argument,
            message: "unknown archive key '\(key)' (expected strata-archive, version, model, values)"))
      }
    }
    if !unknown.isEmpty { return .failure(StrataError(unknown)) }
    guard let formatValue = json_object_get(document, "strata-archive"), JValue.isInteger(formatValue) else {
      return refuse("/strata-archive", "not a Strata archive: \"strata-archive\" must be the format number 1")
    }
    let formatNumber = json_integer_value(formatValue)
    guard formatNumber == format else {
      return refuse(
        "/strata-archive",
        formatNumber > format
          ? "archive format \(formatNumber) is newer than this release of Strata reads (\(format))"
          : "unknown archive format \(formatNumber) (expected \(format))")
    }
    guard let versionValue = json_object_get(document, "version"), JValue.isInteger(versionValue),
      json_integer_value(versionValue) >= 0
    else {
      return refuse(
        "/version",
        "the archive's \"version\" must be the schema version it was written with, an integer >= 0")
    }
    let version = json_integer_value(versionValue)
    guard let modelValue = json_object_get(document, "model"), JValue.isString(modelValue) else {
      return refuse("/model", "the archive's \"model\" must be the name of the archived model")
    }
    let name = JValue.string(modelValue)
    guard let valuesValue = json_object_get(document, "values"), JValue.isObject(valuesValue) else {
      return refuse("/values", "the archive's \"values\" must be an object: the model's canonical dictionary")
    }
    if version > schema.version {
      return refuse(
        "/version",
        "the archive was written with schema version \(version), newer than this schema's version \(schema.version): it cannot be read"
      )
    }
    let gaps = Migration.gaps(schema, from: version)
    if !gaps.isEmpty {
      return .failure(
        StrataError(
          gaps.map {
            ErrorDetail(
              path: "/version", code: .argument,
              message:
                "no migration from version \($0) to \($0 + 1): the archive (version \(version)) cannot be brought up to the schema's version \(schema.version)"
            )
          }))
    }
    guard schema.modelIndex[name] != nil else {
      return refuse(
        "/model",
        "the schema has no model named '\(name)'\(Suggestion.hint(for: name, among: schema.modelNames))")
    }
    guard let copy = json_deep_copy(valuesValue) else { return .failure(ModelDiff.outOfMemory) }
    let values: JPtr
    if version < schema.version {
      switch Migration.run(schema, values: copy, model: name, from: version) {
      case .success(let migrated): values = migrated
      case .failure(let error): return .failure(error)
      }
    } else {
      values = copy
    }
    defer { JValue.release(values) }
    // An archive of this version says everything: what it leaves out stays
    // absent. Older values take the defaults of properties added since.
    switch ModelDiff.read(schema, name, values, exact: version == schema.version) {
    case .success(let object): return .success(object)
    case .failure(let error):
      return .failure(
        StrataError(
          error.errors.map {
            var detail = $0
            detail.path = "/values" + detail.path
            return detail
          }))
    }
  }
}

// MARK: the Swift API

extension Model {
  /// A self-describing archive of the model:
  /// `{"strata-archive": 1, "version": V, "model": "Name", "values": {...}}`,
  /// the values being the canonical dictionary with `"$type"` for subtypes,
  /// `"$unknown"` for kept unknown keys and the properties `json: false` hides.
  /// `schema.unarchive(from: archive())` equals the model.
  public func archive() -> JSON {
    guard let pointer = Archive.make(object) else { return .null }
    defer { JValue.release(pointer) }
    return JSON(borrowing: pointer)
  }
}

extension Schema {
  /// Restores a model from an archive. An archive of an older schema version
  /// is brought up to date by the schema's `migrations`; one from a newer
  /// version, or an older one with no migration path, is refused with an
  /// `argument` error saying why (`no migration from version 1 to 2`).
  public func unarchive(from archive: JSON) throws(StrataError) -> Model {
    guard let pointer = archive.makeJansson() else {
      throw StrataError(code: .argument, message: "the archive holds a value JSON cannot represent")
    }
    defer { JValue.release(pointer) }
    return Model(try Archive.restore(self, pointer).get())
  }

  /// Parses the JSON text of an archive and restores the model; see ``unarchive(from:)``.
  public func unarchive(parsing text: String) throws(StrataError) -> Model {
    let pointer = try JSONText.parse(text).get()
    defer { JValue.release(pointer) }
    return Model(try Archive.restore(self, pointer).get())
  }
}
