/// A relationship: a property whose type is a model with a `primaryKey`
/// (`User`, `User?`, `[Tag]`, `[Tag]?`). Outside a graph context it maps
/// as a nested model like any other; inside one it refers to uniqued
/// records (Sources/Strata/Graph).
package struct Relation: Sendable {
  /// The index of the model the property refers to (as declared: a cluster's base stays the base).
  package let target: Int
  /// True for `[T]` and `[T]?`.
  package let toMany: Bool
  /// The index, in the target model, of the property that points back, or nil.
  package var inverse: Int? = nil
  /// True when the records this property drops are deleted unless something
  /// else refers to them (`"orphans": "delete"`).
  package var deletesOrphans = false
  /// What deleting a record does to the records this property holds, and
  /// what happens when this property lets go of a record whose inverse
  /// cannot be empty (`"deleteRule"`; its default is set at load).
  package var deleteRule: DeleteRule = .nullify
  /// True when the schema wrote `deleteRule` (false: the loader's default).
  var declaresDeleteRule = false

  /// The relation a property of `type` has, when the model it holds has a primary key.
  static func of(_ type: TypeRef, models: [ModelType]) -> Relation? {
    switch type.unwrapped {
    case .model(let index) where index < models.count && !models[index].primaryKey.isEmpty:
      return Relation(target: index, toMany: false)
    case .array(let element):
      if case .model(let index) = element, index < models.count, !models[index].primaryKey.isEmpty {
        return Relation(target: index, toMany: true)
      }
      return nil
    default:
      return nil
    }
  }
}

/// A relationship's delete rule, as Core Data names them.
package enum DeleteRule: String, Sendable {
  /// The held records let go of the deleted one (their inverse loses it).
  case nullify
  /// The held records are deleted with it (and a record dropped from the
  /// relationship whose inverse cannot be empty is deleted).
  case cascade
  /// Deleting a record that holds any record through this relationship is
  /// an error, as is dropping one whose inverse cannot be empty.
  case deny
}

extension Schema {
  /// 1 when `property` of `model` is a to-one relationship, 2 when to-many, 0 when it is not one.
  package func relationshipKind(_ model: String, _ property: String) -> Result<Int, StrataError> {
    modelType(model).flatMap { type in
      guard let index = type.propertyIndex[property], index < type.properties.count else {
        return .failure(
          StrataError(
            code: .argument,
            message: "model '\(model)' has no property '\(property)'"
              + Suggestion.hint(for: property, among: type.properties.map(\.name))))
      }
      guard let relation = type.properties[index].relation else { return .success(0) }
      return .success(relation.toMany ? 2 : 1)
    }
  }
}
