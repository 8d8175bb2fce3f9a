import CJansson
import Glibc

/// Values that hold models: nested models, and arrays and dictionaries of them.
extension Mapper {
  mutating func slot(_ value: JPtr, _ type: TypeRef, _ owner: Owner) -> Slot? {
    switch type {
    case .optional(let inner):
      if JValue.isNull(value) { return .null }
      return slot(value, inner, owner)
    case .model(let index):
      guard index < schema.models.count else { return nil }
      let modelType = schema.models[index]
      if JValue.isNull(value) {
        report(.null, "expected a '\(modelType.name)' object, found null", owner)
        return nil
      }
      if let collector = relations, !owner.model.primaryKey.isEmpty, owner.property >= 0,
        owner.property < owner.model.properties.count, owner.model.properties[owner.property].relation != nil
      {
        return collector.hold(value, steps: steps, model: index)
      }
      guard JValue.isObject(value) else {
        report(.type, "expected a '\(modelType.name)' object, found \(JValue.typeName(value))", owner)
        return nil
      }
      guard let chosen = subtype(value, modelType) else { return nil }
      return model(value, chosen).map { .model($0) }
    case .array(let element):
      if element.isLeafy { return leaf(value, type, owner, nil).map { .leaf($0) } }
      guard checkContainer(value, type, owner, JValue.isArray(value)) else { return nil }
      depth += 1
      defer { depth -= 1 }
      let count = json_array_size(value)
      var out = ContiguousArray<Slot>()
      out.reserveCapacity(count)
      var failed = false
      for position in 0..<count {
        guard let member = json_array_get(value, position) else { continue }
        steps.append(.index(position))
        if let item = slot(member, element, owner) { out.append(item) } else { failed = true }
        steps.removeLast()
      }
      if failed {
        for item in out { item.release() }
        return nil
      }
      return .array(out)
    case .dict(let element):
      if element.isLeafy { return leaf(value, type, owner, nil).map { .leaf($0) } }
      guard checkContainer(value, type, owner, JValue.isObject(value)) else { return nil }
      depth += 1
      defer { depth -= 1 }
      var out = ContiguousArray<DictEntry>()
      out.reserveCapacity(json_object_size(value))
      var failed = false
      JValue.forEachMember(value) { key, member in
        steps.append(.key(key))
        if let item = slot(member, element, owner) {
          out.append(DictEntry(key: JValue.keyString(key), value: item))
        } else {
          failed = true
        }
        steps.removeLast()
      }
      if failed {
        for entry in out { entry.value.release() }
        return nil
      }
      return .dict(out)
    default:
      return leaf(value, type, owner, nil).map { .leaf($0) }
    }
  }

  /// Checks that a container value has the right JSON type and the nesting is not too deep.
  mutating func checkContainer(_ value: JPtr, _ type: TypeRef, _ owner: Owner?, _ ok: Bool) -> Bool {
    guard ok else {
      if JValue.isNull(value) {
        report(.null, "expected \(typeName(type)), found null", owner)
      } else {
        report(.type, "expected \(typeName(type)), found \(JValue.typeName(value))", owner)
      }
      return false
    }
    if !canDescend() {
      report(
        .depth,
        depth >= maxDepth
          ? "input nested deeper than \(maxDepth) levels"
          : "input nested too deep for the calling thread's stack (\(depth) levels)", owner)
      return false
    }
    return true
  }
}
