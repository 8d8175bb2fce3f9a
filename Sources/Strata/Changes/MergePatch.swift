import CJansson

/// JSON Merge Patch (RFC 7396), lifted to models: a patch is an object whose
/// members replace the target's, objects merging recursively, and `null`
/// *sets* null (a model property has three states, and null is one of them)
/// instead of removing. So a member present in the target and absent from the
/// result cannot be said; `diff` refuses it, naming the property.
enum MergePatch {
  /// Where a value sits while diffing: inside a model's dictionary, or inside
  /// a value of a known type (nil: any JSON).
  private enum Scope {
    case model(ModelType)
    case value(TypeRef?)
  }

  // MARK: apply

  /// `target` (borrowed; nil or a non-object counts as `{}` when the patch is
  /// an object) with `patch` (borrowed) merged in: a new reference, or a
  /// `depth` error for a patch nested deeper than the stack allows.
  static func apply(_ target: JPtr?, _ patch: JPtr) -> Result<JPtr, StrataError> {
    let limit = StackGuard.limit()
    guard let merged = merge(target, patch, limit, 0) else {
      return .failure(
        StrataError(
          code: .depth,
          message: "the merge patch is nested deeper than \(maxDepth) levels or the stack allows"))
    }
    return .success(merged)
  }

  private static func merge(_ target: JPtr?, _ patch: JPtr, _ limit: UInt, _ depth: Int) -> JPtr? {
    guard JValue.isObject(patch) else { return json_deep_copy(patch) }
    guard depth < maxDepth, StackGuard.hasRoom(limit) else { return nil }
    let base: JPtr?
    if let target, JValue.isObject(target) { base = json_copy(target) } else { base = json_object() }
    guard let out = base else { return nil }
    var failed = false
    JValue.forEachMember(patch) { key, value in
      guard !failed else { return }
      let next: JPtr?
      if JValue.isObject(value) {
        next = merge(JSONTree.member(out, key), value, limit, depth + 1)
      } else {
        next = json_deep_copy(value)
      }
      guard let next else {
        failed = true
        return
      }
      JValue.setMember(out, key, next)
    }
    if failed {
      JValue.release(out)
      return nil
    }
    return out
  }

  // MARK: diff

  /// The lifted merge patch from the canonical dictionary `a` to `b` (both
  /// borrowed) of a model of type `type`: a new reference, or an `argument`
  /// error for every member that `a` holds and `b` lacks, naming the model
  /// and property it belongs to.
  static func diff(_ a: JPtr, _ b: JPtr, type: ModelType, schema: Schema) -> Result<JPtr, StrataError> {
    var differ = Differ(schema: schema, limit: StackGuard.limit())
    let out = differ.object(a, b, (.model(type), .model(type)), owner: (type.name, ""), tokens: [])
    if !differ.errors.isEmpty {
      if let out { JValue.release(out) }
      return .failure(StrataError(differ.errors))
    }
    guard let out else { return .failure(StrataError(code: .oom, message: "out of memory")) }
    return .success(out)
  }

  private struct Differ {
    let schema: Schema
    let limit: UInt
    var errors: [ErrorDetail] = []

    /// The members of `b` that differ from `a`'s, objects diffed recursively.
    /// `scopes` are those of `a` and `b` (a nested model may change subtype).
    mutating func object(
      _ a: JPtr, _ b: JPtr, _ scopes: (a: Scope, b: Scope), owner: (model: String, property: String),
      tokens: [String]
    ) -> JPtr? {
      guard tokens.count < maxDepth, StackGuard.hasRoom(limit) else {
        errors.append(
          ErrorDetail(
            path: JSONPointer.make(tokens), model: owner.model, property: owner.property, code: .depth,
            message: "the values are nested too deep to diff"))
        return nil
      }
      guard let out = json_object() else { return nil }
      JValue.forEachMember(a) { keyBytes, _ in
        guard JSONTree.member(b, keyBytes) == nil else { return }
        let key = JValue.keyString(keyBytes)
        let (place, _) = child(scopes.a, key, owner)
        let what = tokens.isEmpty ? "'\(key)'" : "'\(JSONPointer.make(tokens + [key]))'"
        errors.append(
          ErrorDetail(
            path: JSONPointer.make(tokens + [key]), model: place.model, property: place.property,
            code: .argument,
            message:
              "\(what) is set in the first model and absent in the second: a merge patch cannot remove it (use a JSON Patch diff)"
          ))
      }
      JValue.forEachMember(b) { keyBytes, value in
        guard let old = JSONTree.member(a, keyBytes) else {
          if let copy = json_deep_copy(value) { JValue.setMember(out, keyBytes, copy) }
          return
        }
        if JSONTree.equal(old, value, exact: true) { return }
        if JValue.isObject(old) && JValue.isObject(value) {
          let key = JValue.keyString(keyBytes)
          let (place, type) = child(scopes.b, key, owner)
          let (_, oldType) = child(scopes.a, key, owner)
          let nestedScopes = (inner(oldType, old), inner(type, value))
          if let nested = object(old, value, nestedScopes, owner: place, tokens: tokens + [key]) {
            JValue.setMember(out, keyBytes, nested)
          }
          return
        }
        if let copy = json_deep_copy(value) { JValue.setMember(out, keyBytes, copy) }
      }
      return out
    }

    /// The owner and type of the member `key` of a value in `scope`.
    private func child(_ scope: Scope, _ key: String, _ owner: (model: String, property: String))
      -> ((model: String, property: String), TypeRef?)
    {
      switch scope {
      case .model(let type):
        guard let index = type.propertyIndex[key], index < type.properties.count else {
          return ((type.name, ""), nil)
        }
        return ((type.name, key), type.properties[index].type)
      case .value(let type):
        if case .dict(let element)? = type?.unwrapped { return (owner, element) }
        return (owner, nil)
      }
    }

    /// The scope inside an object `value` of type `type`: a model's (the
    /// subtype its "$type" names), or a dictionary's.
    private func inner(_ type: TypeRef?, _ value: JPtr) -> Scope {
      guard case .model(let index)? = type?.unwrapped, index < schema.models.count else {
        return .value(type)
      }
      if let tag = json_object_get(value, "$type"), JValue.isString(tag),
        let chosen = schema.modelIndex[JValue.string(tag)], chosen < schema.models.count
      {
        return .model(schema.models[chosen])
      }
      return .model(schema.models[index])
    }
  }
}
