import CJansson
import Strata

/// Importing records read straight from bytes (`DirectReader.forEachRecord`):
/// the input's objects arrive as partial models, their relationships' values
/// as nested models, instead of jansson objects that the mapper maps and
/// whose relationships `RelationCollector` sets aside.
///
/// The models may be shared (a user repeated byte for byte in many issues
/// is one model), so nothing here changes them: a record takes a copy of
/// its attributes. Errors are not reported from here: anything that would
/// report one, or that this path leaves to the mapper's (a record without a
/// key), sets `directFailed`, and the caller imports the whole input again
/// on the mapper's path, which reports exactly what it always did.
extension GraphImporter {
  /// Imports one record (or the records it nests) from its partial model:
  /// the record, or nil when the import must go the mapper's way.
  mutating func importModel(_ object: ModelObject, parent: Parent?) -> GraphRecord? {
    let chosen = object.type
    if let record = unchangedRecord(object) { return record }
    guard mapper.canDescend() else { return fail() }
    mapper.depth += 1
    defer { mapper.depth -= 1 }
    let errorsBefore = mapper.errors.count
    // the relationships' values are the model's own slots (borrowed: it
    // may be shared); every reader of `held` looks at relationships only
    let held = object.slots
    reportNullRelations(held, chosen)
    guard mapper.errors.count == errorsBefore else { return fail() }
    var parts: [RecordKey] = []
    var keyTargets: [Int: GraphRecord] = [:]
    for index in chosen.primaryKey where index < chosen.properties.count {
      if chosen.properties[index].relation != nil {
        if case .model(let nested) = held[index] {
          guard let target = importModel(nested, parent: nil) else { return nil }
          parts.append(target.key)
          keyTargets[index] = target
        } else if let parent, inverseOf(parent) == index {
          parts.append(parent.record.key)
          keyTargets[index] = parent.record
        } else {
          return fail()
        }
      } else if let part = object.slots[index].recordKey {
        parts.append(part)
      } else {
        return fail()
      }
    }
    guard !parts.isEmpty else { return fail() }
    let key = parts.count == 1 ? parts[0] : RecordKey.composite(parts)
    guard let record = findOrMake(attributes(object), chosen, key, held: held),
      mapper.errors.count == errorsBefore
    else { return fail() }
    if tracksSeen { seen.insert(Identity(record)) }
    for index in chosen.relations where index < chosen.properties.count {
      if let target = keyTargets[index] {
        transaction.setOne(record, index, target)
        continue
      }
      // a default fills a relationship never set, as `applyRelations` does
      if case .absent = held[index], case .absent = transaction.link(record, index),
        let fallback = chosen.properties[index].defaultSlot
      {
        applyRelation(record, index, chosen.properties[index], fallback)
      } else if !applyModels(record, index, chosen, held[index]) {
        return nil
      }
    }
    guard mapper.errors.count == errorsBefore, !directFailed else { return fail() }
    if parent != nil {
      lastModels[Identity(record)] = object
      importedFrom[Identity(object)] = record
    }
    return record
  }

  /// The record `object` was imported into when it is that record's last
  /// input and its model's relationships never come from input (as
  /// `unchangedRecord` for objects: other records' links may have changed
  /// those since).
  private mutating func unchangedRecord(_ object: ModelObject) -> GraphRecord? {
    guard let record = importedFrom[Identity(object)],
      lastModels[Identity(record)] === object
    else { return nil }
    let type = object.type
    guard type.index < plainKeyPlans.count else { return nil }
    if case .unknown = plainKeyPlans[type.index] { plainKeyPlans[type.index] = Self.plainKeyPlan(type) }
    guard case .member = plainKeyPlans[type.index] else { return nil }
    if tracksSeen { seen.insert(Identity(record)) }
    noteUpdated(record)
    return record
  }

  /// A new model holding `object`'s attributes (its relationships absent),
  /// for the record to own and change: `object` may be shared.
  private func attributes(_ object: ModelObject) -> ModelObject {
    let made = ModelObject.make(
      schema: schema, type: object.type, count: object.slots.count,
      unknown: object.unknown.map { json_copy($0) })
    let slots = made.slots
    let properties = object.type.properties
    for (index, slot) in object.slots.enumerated()
    where index >= properties.count || properties[index].relation == nil {
      slots[index] = slot.shared()
    }
    return made
  }

  /// Sets one relationship of `record` from the nested models the input
  /// gave; false when the import must go the mapper's way.
  private mutating func applyModels(_ record: GraphRecord, _ index: Int, _ chosen: ModelType, _ slot: Slot)
    -> Bool
  {
    // the property's relation read in place: a copy of its whole spec
    // would retain and release every string and type in it
    guard let relation = chosen.properties[index].relation else { return true }
    switch slot {
    case .absent:
      return true
    case .null:
      if relation.toMany {
        transaction.setMany(record, index, nil, policy: .replace)
      } else {
        transaction.setOne(record, index, nil)
      }
      return true
    case .model(let nested):
      guard let target = importModel(nested, parent: (record, index)) else { return false }
      transaction.setOne(record, index, target)
      return true
    case .array(let elements):
      var targets: [GraphRecord] = []
      targets.reserveCapacity(elements.count)
      for element in elements {
        guard case .model(let nested) = element, let target = importModel(nested, parent: (record, index))
        else { return fail() != nil }
        targets.append(target)
      }
      transaction.setMany(
        record, index, targets, policy: GraphTransaction.ListPolicy(chosen.properties[index].merge))
      return true
    case .leaf, .integer, .real, .text, .list, .dict:
      return fail() != nil
    }
  }

  /// Notes that the import must go the mapper's way: nil.
  private mutating func fail() -> GraphRecord? {
    directFailed = true
    return nil
  }
}
