import CJansson

/// One step of a schema's `migrations`: how an archive written at version
/// `from` is brought toward `from + 1`. Read and checked at load by
/// `MigrationReader`; applied by `Migration.run` when an archive is restored.
package struct MigrationStep: Sendable {
  /// Its position in the document's `migrations` list.
  let position: Int
  /// The version of the archives it upgrades.
  let from: Int64
  /// The archived model it applies to; nil: every archive.
  let model: String?
  /// Keys of "values" renamed, old -> new, in order.
  let rename: [(old: String, new: String)]
  /// Keys of "values" removed.
  let remove: [String]
  /// Canonical values set, in order.
  let set: [(key: String, value: JSON)]
  /// A transformer whose forward function rewrites the whole "values" object.
  let transform: Transformer?
}

/// Brings the values of an archive up to the schema's version.
package enum Migration {
  /// The versions from `version` up to the schema's for which no step is
  /// declared (each needs at least one).
  package static func gaps(_ schema: Schema, from version: Int64) -> [Int64] {
    guard version < schema.version else { return [] }
    let declared = Set(schema.migrations.map(\.from))
    var missing: [Int64] = []
    var current = version
    while current < schema.version {
      if !declared.contains(current) { missing.append(current) }
      current += 1
    }
    return missing
  }

  /// Applies every step from `version` up (those for `model`, or for every
  /// model) to `values` (stolen): the migrated values (a new reference), or the
  /// error of a step whose transformer failed or returned a non-object.
  package static func run(_ schema: Schema, values: JPtr, model: String, from version: Int64) -> Result<
    JPtr, StrataError
  > {
    var current = values
    for step in schema.migrations where step.from >= version && (step.model == nil || step.model == model) {
      for (old, new) in step.rename {
        guard let value = JSONTree.member(current, old) else { continue }
        JValue.retain(value)
        JSONTree.removeMember(current, old)
        JValue.setNew(current, new, value)
      }
      for key in step.remove { JSONTree.removeMember(current, key) }
      for (key, value) in step.set {
        if let made = value.makeJansson() { JValue.setNew(current, key, made) }
      }
      guard let transformer = step.transform else { continue }
      let label = "migration \(step.position) (from version \(step.from), transform '\(transformer.name)')"
      switch transformer.forward(current) {
      case .value(let next):
        JValue.release(current)
        guard JValue.isObject(next) else {
          let kind = JValue.typeName(next)
          JValue.release(next)
          return .failure(
            StrataError(
              path: "/values", code: .format, message: "\(label) returned \(kind), not an object of values"))
        }
        current = next
      case .failed(let failures):
        JValue.release(current)
        return .failure(
          StrataError(
            failures.map {
              ErrorDetail(
                path: JSONPointer.make(["values"] + $0.at), model: model, code: .format,
                message: "\(label): \($0.message)")
            }))
      }
    }
    return .success(current)
  }
}
