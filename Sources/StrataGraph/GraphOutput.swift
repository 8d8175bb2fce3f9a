import CJansson
import Strata

/// Records as values: the committed object of a record (relationships as
/// keys), and the nested dictionary and JSON that follow relationships,
/// writing a record met again on a cycle as its key.
enum GraphOutput {
  /// True when `state` holds a to-many list longer than `limit`.
  static func hasLongLists(_ state: RecordState, longerThan limit: Int) -> Bool {
    state.links.contains { link in
      if case .many(let list) = link { return list.count > limit }
      return false
    }
  }

  /// The object a committed state shows: the attribute slots (shared) and
  /// each relationship as the key, or list of keys, of what it holds. With
  /// `leavingLongerThan`, a to-many list longer than that is left absent
  /// (written later by `materializeInPlace`; `GraphRecord.staleObject`).
  static func materialize(_ state: RecordState, schema: Schema, leavingLongerThan limit: Int = .max)
    -> ModelObject
  {
    let object = state.object
    let made = ModelObject.make(
      schema: schema, type: state.model, count: state.model.properties.count,
      unknown: object.unknown.map { json_copy($0) })
    let slots = made.slots
    for index in state.model.properties.indices {
      let link = index < state.links.count ? state.links[index] : .absent
      if state.model.properties[index].relation != nil {
        switch link {
        // A stub's key part that is a relationship has no link yet only while importing.
        case .absent: continue
        case .null: slots[index] = .null
        case .one(let target): slots[index] = .leaf(JValue.retain(target.keyJSON))
        case .many(let list) where list.count > limit: continue
        case .many(let list):
          slots[index] = .array(ContiguousArray(list.items.map { .leaf(JValue.retain($0.keyJSON)) }))
        }
      } else {
        let old =
          object.type === state.model ? index : object.type.propertyIndex[state.model.properties[index].name]
        if let old, old < object.slots.count { slots[index] = object.slots[old].shared() }
      }
    }
    return made
  }

  /// Writes the relationships of `state` into its own object, which nothing
  /// else holds (a draft's): the same result as `materialize` without a copy.
  static func materializeInPlace(_ state: RecordState, leavingLongerThan limit: Int = .max) -> ModelObject {
    let object = state.object
    for index in state.model.relations where index < object.slots.count {
      let link = index < state.links.count ? state.links[index] : .absent
      let slot: Slot
      switch link {
      case .absent: slot = .absent
      case .null: slot = .null
      case .one(let target): slot = .leaf(JValue.retain(target.keyJSON))
      case .many(let list) where list.count > limit: slot = .absent
      case .many(let list):
        slot = .array(ContiguousArray(list.items.map { .leaf(JValue.retain($0.keyJSON)) }))
      }
      object.slots[index].release()
      object.slots[index] = slot
    }
    return object
  }

  /// The canonical flat dictionary of a record as a transaction sees it (a new reference).
  static func flatDictionary(_ state: RecordState, transaction: GraphTransaction) -> JPtr? {
    materialize(state, schema: transaction.schema).dictionary()
  }

  /// The canonical dictionary of a committed record with its relationships
  /// nested (a new reference); a record already on the way down is written
  /// as its key.
  /// With `levels` (0 or more), relationships are nested that many levels
  /// down and written as keys below (0: the record's own dictionary).
  static func nestedDictionary(_ record: GraphRecord, levels: Int? = nil) -> JPtr? {
    var path: Set<Identity> = []
    return nested(record, &path, depth: 0, levels: levels.map { max($0, 0) } ?? maxDepth)
  }

  private static func nested(
    _ record: GraphRecord, _ path: inout Set<Identity>, depth: Int, levels: Int
  ) -> JPtr? {
    guard let flat = record.state.object.dictionary() else { return nil }
    let id = Identity(record)
    path.insert(id)
    defer { path.remove(id) }
    let model = record.state.model
    for index in model.relations where index < record.state.links.count && index < model.properties.count {
      let name = model.properties[index].name
      func value(_ target: GraphRecord) -> JPtr? {
        if path.contains(Identity(target)) || target.isDeleted || depth >= min(levels, maxDepth) {
          return JValue.retain(target.keyJSON)
        }
        return nested(target, &path, depth: depth + 1, levels: levels)
      }
      switch record.state.links[index] {
      case .one(let target):
        if let made = value(target) { JValue.setNew(flat, name, made) }
      case .many(let list):
        guard let array = json_array() else { continue }
        for target in list.items { _ = json_array_append_new(array, value(target) ?? json_null()) }
        JValue.setNew(flat, name, array)
      default: continue
      }
    }
    return flat
  }

  /// The record serialized back to JSON with its relationships nested (a
  /// new reference), or the errors of reverse transformers.
  static func nestedJSON(_ record: GraphRecord, schema: Schema) -> Result<JPtr, StrataError> {
    var path: Set<Identity> = []
    let tree = nestedObject(record, &path, schema: schema, depth: 0)
    return tree.serialized()
  }

  /// A model tree of the record: relationships hold the related records'
  /// trees, or their keys on a cycle.
  private static func nestedObject(
    _ record: GraphRecord, _ path: inout Set<Identity>, schema: Schema, depth: Int
  ) -> ModelObject {
    let object = record.state.object
    let id = Identity(record)
    path.insert(id)
    defer { path.remove(id) }
    let model = record.state.model
    let made = ModelObject.make(
      schema: schema, type: model, count: object.slots.count, unknown: object.unknown.map { json_copy($0) })
    let slots = made.slots
    for index in slots.indices { slots[index] = object.slots[index].shared() }
    for index in model.relations where index < record.state.links.count && index < slots.count {
      func slot(_ target: GraphRecord) -> Slot {
        if path.contains(Identity(target)) || target.isDeleted || depth >= maxDepth {
          return .leaf(JValue.retain(target.keyJSON))
        }
        return .model(nestedObject(target, &path, schema: schema, depth: depth + 1))
      }
      switch record.state.links[index] {
      case .one(let target):
        slots[index].release()
        slots[index] = slot(target)
      case .many(let list):
        slots[index].release()
        slots[index] = .array(ContiguousArray(list.items.map { slot($0) }))
      default: continue
      }
    }
    return made
  }
}
