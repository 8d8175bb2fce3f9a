import CJansson
import Strata

// Long because the importer is one pass with shared private state: the
// records seen and updated, the input each nested record last came from,
// and the mapper's path, which every step (objects, keys, relations,
// attribute merges) reads and updates; splitting it across files would
// widen all of that to the whole module.

/// One import: the response mapped record by record into a transaction.
struct GraphImporter {
  var transaction: GraphTransaction
  var mapper: Mapper
  let collector = RelationCollector()
  var warnings: [ImportWarning] = []
  /// Records the input gave (as objects or keys).
  var seen: Set<Identity> = []
  /// True when `seen` is kept (an orphan rule reads it).
  var tracksSeen = false
  /// Records that existed and that the input gave as objects.
  var updated: [GraphRecord] = []
  private var updatedSet: Set<Identity> = []
  /// The input object each nested record was last imported from in this
  /// import: the same object again changes nothing. Borrowed from the
  /// input, or retained (`retainsInputs`) when the input goes element by
  /// element; `releaseInputs()` lets go of them.
  private var lastInput: [Identity: JPtr] = [:]
  /// True when the input is released element by element (`importElement`).
  var retainsInputs = false
  /// The model each nested record was last imported from (`importModel`):
  /// the same model again (shared by the byte reader) changes nothing.
  var lastModels: [Identity: ModelObject] = [:]
  /// The record each of those models was imported into.
  var importedFrom: [Identity: GraphRecord] = [:]
  /// True once `importModel` met what it leaves to the mapper path (a
  /// record without a key, ...): the import is to be made again that way.
  var directFailed = false
  /// The steps to the array `importElement`'s elements are read from (a
  /// response's root; empty for a bare array): what their errors' paths
  /// start with. The mapper's steps start as these.
  var elementSteps: [PathStep] = [] {
    didSet { mapper.steps = elementSteps }
  }
  let schema: Schema
  /// What `plainKey` reads of each model (by index), found on first use.
  var plainKeyPlans: ContiguousArray<PlainKeyPlan>

  /// How the key of a model's input object is read straight from it.
  enum PlainKeyPlan {
    /// Not looked at yet.
    case unknown
    /// The key is not one plain property (or relationships come from input).
    case none
    /// The key is the value at this key of the object, of this type.
    case member(Key, TypeRef)
  }

  init(schema: Schema, memory: GraphMemory) {
    self.schema = schema
    plainKeyPlans = ContiguousArray(repeating: .unknown, count: schema.models.count)
    transaction = GraphTransaction(schema: schema, memory: memory)
    mapper = Mapper(schema: schema, mode: .json)
    mapper.relations = collector
  }

  /// The JSON Pointer of where the mapper is.
  var here: String { PathStep.pointer(mapper.steps) }

  // MARK: top level

  /// Imports the records of `type` in `response` at `root`; nil after errors (in `mapper.errors`).
  mutating func importResponse(_ response: JPtr, type: ModelType, root: ResponseLocation?) -> [GraphRecord]? {
    let location = root ?? ResponseLocation(keys: [], text: "")
    let found = RecordsRoot.find(location, in: response, type: type)
    mapper.steps = location.keys.map { PathStep.name($0.name) }
    let value: JPtr
    switch found {
    case .none: return []
    case .failed(let detail):
      mapper.errors.append(detail)
      return nil
    case .object(let object):
      guard let record = importObject(object, type, parent: nil) else { return nil }
      return [record]
    case .array(let array): value = array
    }
    let base = mapper.steps.count
    var records: [GraphRecord] = []
    records.reserveCapacity(json_array_size(value))
    for position in 0..<json_array_size(value) {
      guard let element = json_array_get(value, position) else { continue }
      trimSteps(to: base)
      mapper.steps.append(.index(position))
      guard JValue.isObject(element) else {
        mapper.report(
          .type, "expected an object for model '\(type.name)', found \(JValue.typeName(element))", nil)
        continue
      }
      if let record = importObject(element, type, parent: nil) { records.append(record) }
    }
    return mapper.errors.isEmpty ? records : nil
  }

  // MARK: one object

  /// The parent an object is imported under: the record and its relationship.
  typealias Parent = (record: GraphRecord, property: Int)

  /// Imports one input object of `declared` (or the subtype it chooses): the record.
  mutating func importObject(_ value: JPtr, _ declared: ModelType, parent: Parent?) -> GraphRecord? {
    guard mapper.canDescend() else {
      mapper.report(.depth, "input nested too deep (\(mapper.depth) levels)", nil)
      return nil
    }
    mapper.depth += 1
    defer { mapper.depth -= 1 }
    // The steps are restored by trimming (a copy of the array would make
    // the mapper's next step copy its storage).
    let depthOfSteps = mapper.steps.count
    guard let chosen = mapper.subtype(value, declared) else { return nil }
    if let existing = unchangedRecord(value, chosen) { return existing }
    let errorsBefore = mapper.errors.count
    let mark = collector.mark
    defer { collector.drop(to: mark) }
    guard let mapped = mapObject(value, chosen, stepsFrom: depthOfSteps) else { return nil }
    // the relationships, in a holder of their own that releases them
    let held = takeRelations(mapped, chosen).slots
    reportNullRelations(held, chosen)
    if mapper.errors.count > errorsBefore { return nil }
    guard let keyParts = keyParts(mapped, chosen, held: held, parent: parent) else { return nil }
    trimSteps(to: depthOfSteps)
    guard
      let key = recordKey(
        value, chosen, mapped, parts: keyParts.parts, keyless: keyParts.keyless, parent: parent),
      let record = findOrMake(mapped, chosen, key, held: held)
    else { return nil }
    if tracksSeen { seen.insert(Identity(record)) }
    applyRelations(record, chosen, held: held, keyTargets: keyParts.targets)
    trimSteps(to: depthOfSteps)
    if parent != nil, mapper.errors.isEmpty { rememberInput(value, of: record) }
    return record
  }

  /// A record given again with exactly the same object (a user in many
  /// issues) changes nothing: found by its plain key, compared, done. The
  /// record, or nil when the object is to be imported.
  @inline(__always)
  private mutating func unchangedRecord(_ value: JPtr, _ chosen: ModelType) -> GraphRecord? {
    guard let key = plainKey(value, chosen), let existing = transaction.lookup(chosen.keyRoot, key),
      let last = lastInput[Identity(existing)], strata_json_same(last, value) != 0
    else { return nil }
    if tracksSeen { seen.insert(Identity(existing)) }
    noteUpdated(existing)
    return existing
  }

  /// Maps `value` under `chosen` partially (what the input lacks stays
  /// absent), its relationships set aside in `collector` by their steps past
  /// the first `depthOfSteps`; nil after errors.
  @inline(__always)
  private mutating func mapObject(_ value: JPtr, _ chosen: ModelType, stepsFrom depthOfSteps: Int)
    -> ModelObject?
  {
    collector.base = depthOfSteps
    mapper.partial = true
    let mapped = mapper.model(value, chosen)
    mapper.partial = false
    mapper.clearing = false
    mapper.clearsNull = false
    return mapped
  }

  /// Takes the relationship values out of `mapped` (the record holds links,
  /// not slots): a model of `chosen` holding only them, which releases them
  /// when dropped.
  @inline(__always)
  private func takeRelations(_ mapped: ModelObject, _ chosen: ModelType) -> ModelObject {
    let holder = ModelObject.make(schema: schema, type: chosen, count: chosen.properties.count)
    let held = holder.slots
    let from = mapped.slots
    for index in chosen.relations where index < from.count {
      held[index] = from[index]
      from[index] = .absent
    }
    return holder
  }

  /// Reports null where a relationship's type is not `T?`: the error
  /// mapping gives.
  @inline(__always)
  mutating func reportNullRelations(_ held: ModelSlots, _ chosen: ModelType) {
    let unmanaged = Unmanaged.passUnretained(chosen)
    for index in chosen.relations where index < held.count {
      if case .null = held[index], !chosen.properties[index].type.acceptsNull {
        mapper.report(
          .null, "expected \(mapper.typeName(chosen.properties[index].type)), found null",
          Mapper.Owner(model: chosen, property: index), extra: [.property(unmanaged, index)])
      }
    }
  }

  /// The parts of the record's key, from its key properties (a relationship
  /// from the record it names, resolved now, or from the parent when it is
  /// the inverse of the parent's); the records those relationships link;
  /// and whether a part is missing. Nil after errors.
  @inline(__always)
  private mutating func keyParts(
    _ mapped: ModelObject, _ chosen: ModelType, held: ModelSlots, parent: Parent?
  ) -> (parts: [RecordKey], targets: [Int: GraphRecord], keyless: Bool)? {
    var parts: [RecordKey] = []
    var keyTargets: [Int: GraphRecord] = [:]
    var keyless = false
    for index in chosen.primaryKey where index < chosen.properties.count {
      if chosen.properties[index].relation != nil {
        var target: GraphRecord? = nil
        if let entry = collector.entry(held[index]) {
          target = resolve(entry, parent: nil)
          guard target != nil else { return nil }
        } else if let parent, inverseOf(parent) == index {
          target = parent.record
        }
        if let target {
          parts.append(target.key)
          keyTargets[index] = target
        } else {
          keyless = true
        }
      } else if let part = mapped.slots[index].recordKey {
        parts.append(part)
      } else {
        keyless = true
      }
    }
    return (parts, keyTargets, keyless)
  }

  /// The record's key: made of its parts; for a record missing one, the key
  /// an injector gives, else a new synthetic key (with a warning). Nil after
  /// errors.
  @inline(__always)
  private mutating func recordKey(
    _ value: JPtr, _ chosen: ModelType, _ mapped: ModelObject, parts: [RecordKey], keyless: Bool,
    parent: Parent?
  ) -> RecordKey? {
    guard keyless else { return parts.count == 1 ? parts[0] : .composite(parts) }
    let before = mapper.errors.count
    if let injected = inject(value, chosen, into: mapped, parent: parent) { return injected }
    if mapper.errors.count > before { return nil }
    let key = RecordKey.synthetic(transaction.nextSynthetic)
    transaction.nextSynthetic += 1
    warnings.append(
      ImportWarning(
        path: here, model: chosen.name,
        message:
          "a '\(chosen.name)' record has no key (\(keyNames(chosen))): made a new record; a key injector would let a re-import find it"
      ))
    return key
  }

  /// Finds the record of `key` and merges the attributes into it, or makes
  /// it; nil after errors.
  @inline(__always)
  mutating func findOrMake(
    _ mapped: ModelObject, _ chosen: ModelType, _ key: RecordKey, held: ModelSlots
  ) -> GraphRecord? {
    if let existing = transaction.lookup(chosen.keyRoot, key) {
      guard merge(mapped, into: existing, chosen, held: held) else { return nil }
      return existing
    }
    guard complete(mapped, chosen, held: held) else { return nil }
    return transaction.create(chosen, key, object: mapped, isStub: false)
  }

  /// Sets the record's relationships, in property order: those in its key
  /// to the records found for the key, the others from their slots.
  @inline(__always)
  private mutating func applyRelations(
    _ record: GraphRecord, _ chosen: ModelType, held: ModelSlots, keyTargets: [Int: GraphRecord]
  ) {
    for index in chosen.relations where index < chosen.properties.count {
      if let target = keyTargets[index] {
        transaction.setOne(record, index, target)
        continue
      }
      let slot: Slot
      // A default fills a relationship never set (a record made now); a
      // record met again in this import already holds links (its inverses
      // among them), which absent input never wipes.
      if case .absent = held[index], case .absent = transaction.link(record, index),
        let fallback = chosen.properties[index].defaultSlot
      {
        slot = fallback
      } else {
        slot = held[index]
      }
      applyRelation(record, index, chosen.properties[index], slot)
    }
  }

  /// Keeps `value` as the input `record` last came from (retained when the
  /// input is released element by element).
  @inline(__always)
  private mutating func rememberInput(_ value: JPtr, of record: GraphRecord) {
    let id = Identity(record)
    if retainsInputs {
      if let previous = lastInput[id] { JValue.release(previous) }
      JValue.retain(value)
    }
    lastInput[id] = value
  }

  /// Releases the inputs kept for `retainsInputs`.
  mutating func releaseInputs() {
    if retainsInputs { for value in lastInput.values { JValue.release(value) } }
    lastInput = [:]
  }

  /// Imports one element of a top-level array of records (the input read
  /// element by element): its record, or nil after errors.
  mutating func importElement(_ element: JPtr, _ type: ModelType, position: Int) -> GraphRecord? {
    trimSteps(to: elementSteps.count)
    mapper.steps.append(.index(position))
    guard JValue.isObject(element) else {
      mapper.report(
        .type, "expected an object for model '\(type.name)', found \(JValue.typeName(element))", nil)
      return nil
    }
    return importObject(element, type, parent: nil)
  }

  /// The key of an input object read straight from it, when the model's key
  /// is one plain property at one key (no transform, no relationship), the
  /// value there has the key's type and the model's relationships are not
  /// read from input (`json: false`); nil otherwise.
  @inline(__always)
  private mutating func plainKey(_ value: JPtr, _ type: ModelType) -> RecordKey? {
    guard type.index < plainKeyPlans.count else { return nil }
    if case .unknown = plainKeyPlans[type.index] { plainKeyPlans[type.index] = Self.plainKeyPlan(type) }
    guard case .member(let key, let keyType) = plainKeyPlans[type.index],
      let member = JValue.member(value, key)
    else { return nil }
    return GraphContext.plainKey(member, keyType)
  }

  /// How `plainKey` reads the key of `type`'s objects.
  static func plainKeyPlan(_ type: ModelType) -> PlainKeyPlan {
    guard let spec = PageKeys.keySpec(type), case .path(let keys) = spec.location, keys.count == 1 else {
      return .none
    }
    // Relationships the input can give could have been changed since by
    // other records' links: those records are imported again in full.
    for relation in type.relations where relation < type.properties.count {
      if case .none = type.properties[relation].location {} else { return .none }
    }
    return .member(keys[0], spec.type)
  }

  /// Drops the mapper's steps past the first `count`.
  private mutating func trimSteps(to count: Int) {
    if mapper.steps.count > count { mapper.steps.removeSubrange(count...) }
  }

  /// Sets one relationship of `record` from its mapped slot.
  mutating func applyRelation(_ record: GraphRecord, _ index: Int, _ spec: PropertySpec, _ slot: Slot) {
    guard let relation = spec.relation else { return }
    switch slot {
    case .absent:
      return
    case .null:
      if relation.toMany {
        transaction.setMany(record, index, nil, policy: .replace)
      } else {
        transaction.setOne(record, index, nil)
      }
    case .leaf, .integer, .real, .text:
      guard let entry = collector.entry(slot), let target = resolve(entry, parent: (record, index)) else {
        return
      }
      transaction.setOne(record, index, target)
    case .array(let elements):
      var targets: [GraphRecord] = []
      var failed = false
      for element in elements {
        if let entry = collector.entry(element) {
          if let target = resolve(entry, parent: (record, index)) {
            targets.append(target)
          } else {
            failed = true
          }
        } else if case .model(let object) = element, let target = adopt(object) {
          targets.append(target)
        }
      }
      if failed { return }
      transaction.setMany(record, index, targets, policy: GraphTransaction.ListPolicy(spec.merge))
    case .model(let object):
      if let target = adopt(object) { transaction.setOne(record, index, target) }
    case .dict, .list:
      return
    }
  }

  /// The inverse (in the child's model) of the parent's relationship.
  func inverseOf(_ parent: Parent) -> Int? {
    let properties = transaction.model(of: parent.record).properties
    return parent.property < properties.count ? properties[parent.property].relation?.inverse : nil
  }

  /// The names of a model's key properties, for messages.
  private func keyNames(_ type: ModelType) -> String {
    type.primaryKey.compactMap { $0 < type.properties.count ? type.properties[$0].name : nil }
      .joined(separator: ", ")
  }

  /// Resolves a set-aside relationship value into its record.
  mutating func resolve(_ entry: RelationCollector.Pending, parent: Parent?) -> GraphRecord? {
    guard entry.model < schema.models.count else { return nil }
    let saved = mapper.steps.count
    var whole: [PathStep]? = nil
    if let path = entry.path {
      whole = mapper.steps
      mapper.steps = path
    } else {
      if let first = entry.first { mapper.steps.append(first) }
      if let second = entry.second { mapper.steps.append(second) }
    }
    defer {
      if let whole {
        mapper.steps = whole
      } else if mapper.steps.count > saved {
        mapper.steps.removeSubrange(saved...)
      }
    }
    let type = schema.models[entry.model]
    let record: GraphRecord?
    if JValue.isObject(entry.value) {
      record = importObject(entry.value, type, parent: parent)
    } else {
      record = reference(entry.value, type)
    }
    if tracksSeen, let record { seen.insert(Identity(record)) }
    return record
  }

  // MARK: keys

  /// The record a bare key refers to: found, or made as a stub that a later
  /// full object fills.
  mutating func reference(_ value: JPtr, _ type: ModelType) -> GraphRecord? {
    guard let (key, targets) = bareKey(value, type) else { return nil }
    if let existing = transaction.lookup(type.keyRoot, key) { return existing }
    let object = ModelObject.make(schema: schema, type: type, count: type.properties.count)
    let slots = object.slots
    if case .composite(let parts) = key, type.primaryKey.count > 1 {
      for (position, index) in type.primaryKey.enumerated()
      where targets[index] == nil && position < parts.count {
        slots[index] = parts[position].makeJSON().map { .leaf($0) } ?? .absent
      }
    } else if let index = type.primaryKey.first, targets[index] == nil {
      slots[index] = key.makeJSON().map { .leaf($0) } ?? .absent
    }
    guard let record = transaction.create(type, key, object: object, isStub: true) else { return nil }
    for (index, target) in targets.sorted(by: { $0.key < $1.key }) {
      transaction.setOne(record, index, target)
    }
    return record
  }

  /// Reads a bare key of `type` (a value, or a list for a composite key)
  /// through the key properties' types and transforms; the records of key
  /// parts that are relationships.
  private mutating func bareKey(_ value: JPtr, _ type: ModelType) -> (RecordKey, [Int: GraphRecord])? {
    let keys = type.primaryKey
    var targets: [Int: GraphRecord] = [:]
    if keys.count == 1, let index = keys.first {
      guard let part = keyPart(value, type, index, &targets) else { return nil }
      return (part, targets)
    }
    guard JValue.isArray(value), json_array_size(value) == keys.count else {
      mapper.report(
        .type,
        "expected '\(type.name)': an object, or its key as a list of \(keys.count) values (\(keyNames(type))), found \(Mapper.show(value))",
        nil)
      return nil
    }
    var parts: [RecordKey] = []
    for (position, index) in keys.enumerated() {
      guard let element = json_array_get(value, position) else { return nil }
      mapper.steps.append(.index(position))
      let part = keyPart(element, type, index, &targets)
      mapper.steps.removeLast()
      guard let part else { return nil }
      parts.append(part)
    }
    return (.composite(parts), targets)
  }

  /// One part of a bare key.
  private mutating func keyPart(
    _ value: JPtr, _ type: ModelType, _ index: Int, _ targets: inout [Int: GraphRecord]
  )
    -> RecordKey?
  {
    guard index < type.properties.count else { return nil }
    let spec = type.properties[index]
    if let relation = spec.relation, relation.target < schema.models.count {
      guard let target = reference(value, schema.models[relation.target]) else { return nil }
      targets[index] = target
      return target.key
    }
    if JValue.isObject(value) || JValue.isArray(value) || JValue.isNull(value) {
      mapper.report(
        .type,
        "expected '\(type.name)': an object, or its key '\(spec.name)' (\(mapper.typeName(spec.type))), found \(JValue.typeName(value))",
        Mapper.Owner(model: type, property: index))
      return nil
    }
    let before = mapper.errors.count
    let slot = mapper.read(value, type: spec.type, model: type, property: index)
    defer { slot.release() }
    guard mapper.errors.count == before, let part = slot.recordKey else {
      if mapper.errors.count == before {
        mapper.report(
          .type, "'\(Mapper.show(value))' cannot be a key", Mapper.Owner(model: type, property: index))
      }
      return nil
    }
    return part
  }

  /// Asks the model's key injector for a key, and sets the key properties from it.
  private mutating func inject(_ value: JPtr, _ type: ModelType, into object: ModelObject, parent: Parent?)
    -> RecordKey?
  {
    guard
      let injector = schema.keyInjectors[type.name] ?? schema.keyInjectors[schema.models[type.keyRoot].name]
    else { return nil }
    var parentDictionary: JPtr? = nil
    if let parent {
      transaction.wholeLinks(parent.record)  // the injector sees the parent's lists whole
      let state = transaction.state(parent.record)
      parentDictionary = GraphOutput.flatDictionary(state, transaction: transaction)
    }
    defer { if let parentDictionary { JValue.release(parentDictionary) } }
    switch injector.function(value, parentDictionary) {
    case .failure(let refusal):
      mapper.report(.format, "the key injector of '\(type.name)' refused: \(refusal.message)", nil)
      return nil
    case .success(let made):
      defer { JValue.release(made) }
      let keys = type.primaryKey
      var parts: [RecordKey] = []
      for (position, index) in keys.enumerated() where index < type.properties.count {
        let part = keys.count == 1 ? made : json_array_get(made, position)
        guard let part, type.properties[index].relation == nil else {
          mapper.report(
            .format,
            "the key injector of '\(type.name)' returned \(Mapper.show(made)), not a key (\(keyNames(type)))",
            nil)
          return nil
        }
        var reader = Mapper(schema: schema, mode: .canonical)
        let slot = reader.read(part, type: type.properties[index].type, model: type, property: index)
        guard reader.errors.isEmpty, let key = slot.recordKey else {
          slot.release()
          mapper.report(
            .format,
            "the key injector of '\(type.name)' returned \(Mapper.show(made)), which does not fit '\(type.properties[index].name)'",
            nil)
          return nil
        }
        if index < object.slots.count {
          object.slots[index].release()
          object.slots[index] = slot
        } else {
          slot.release()
        }
        parts.append(key)
      }
      guard !parts.isEmpty else { return nil }
      return parts.count == 1 ? parts[0] : .composite(parts)
    }
  }

  // MARK: attributes

  /// Gives a new record's partial mapping its defaults, and reports the
  /// required values it lacks and the nulls its types refuse.
  private mutating func complete(_ object: ModelObject, _ type: ModelType, held: ModelSlots)
    -> Bool
  {
    let before = mapper.errors.count
    let unmanaged = Unmanaged.passUnretained(type)
    for index in type.properties.indices
    where index < object.slots.count && type.properties[index].relation == nil {
      let spec = type.properties[index]
      switch object.slots[index] {
      case .absent:
        if case .none = spec.location { object.slots[index] = spec.defaultSlot?.copy() ?? .absent; continue }
        if spec.required {
          mapper.report(
            .missing, "required key '\(spec.locationText)' is missing",
            Mapper.Owner(model: type, property: index),
            extra: [.property(unmanaged, index)])
        } else if let fallback = spec.defaultSlot {
          object.slots[index] = fallback.copy()
        }
      case .null where !spec.type.acceptsNull:
        mapper.report(
          .null, "expected \(mapper.typeName(spec.type)), found null",
          Mapper.Owner(model: type, property: index),
          extra: [.property(unmanaged, index)])
      case .model, .array:
        // nested models that merge were mapped partially: they take their defaults
        if spec.merge.mergesModels, let whole = object.slots[index].modelsWithDefaults() {
          object.slots[index].release()
          object.slots[index] = whole
        }
      default:
        continue
      }
    }
    for index in type.relations where index < type.properties.count && index < held.count {
      let spec = type.properties[index]
      if spec.required, case .absent = held[index] {
        mapper.report(
          .missing, "required key '\(spec.locationText)' is missing",
          Mapper.Owner(model: type, property: index),
          extra: [.property(unmanaged, index)])
      }
    }
    return mapper.errors.count == before
  }

  /// Merges a partial mapping into an existing record (a stub is filled as a new record is).
  private mutating func merge(
    _ mapped: ModelObject, into record: GraphRecord, _ chosen: ModelType, held: ModelSlots
  ) -> Bool {
    let state = transaction.state(record)
    if state.isStub {
      guard complete(mapped, chosen, held: held) else { return false }
      // The stub's key slots stay (a relationship-keyed stub holds none).
      let old = state.object
      for index in chosen.primaryKey where index < mapped.slots.count {
        if case .absent = mapped.slots[index],
          let oldIndex = old.type.propertyIndex[chosen.properties[index].name],
          oldIndex < old.slots.count
        {
          mapped.slots[index] = old.slots[oldIndex].shared()
        }
      }
      transaction.setObject(record, mapped, model: chosen, isStub: false)
      return true
    }
    noteUpdated(record)
    var target = state.object
    var model = state.model
    if chosen === model, Self.changesNothing(mapped, target) { return true }
    if chosen !== model {
      if chosen.isSelfOrDescendant(of: model) {
        // The input refines the record's model: carry its values over by name.
        let refined = ModelObject.make(
          schema: schema, type: chosen, count: chosen.properties.count,
          unknown: target.unknown.map { json_copy($0) })
        let slots = refined.slots
        for (index, spec) in chosen.properties.enumerated() {
          if let old = target.type.propertyIndex[spec.name], old < target.slots.count {
            slots[index] = target.slots[old].shared()
          }
        }
        target = refined
        model = chosen
      } else if !model.isSelfOrDescendant(of: chosen) {
        mapper.report(
          .subtype,
          "the '\(schema.models[record.keyRoot].name)' record \(record.key) is a '\(model.name)'; this input makes it a '\(chosen.name)'",
          nil)
        return false
      }
    }
    var merging = Merging(schema: schema)
    guard let merged = merging.merged(mapped, onto: target) else {
      let prefix = here
      for error in merging.errors {
        var located = error
        located.path = prefix + error.path
        mapper.errors.append(located)
      }
      return false
    }
    transaction.setObject(record, merged, model: model, isStub: false)
    return true
  }

  /// True when merging `incoming` into `target` would change nothing: every
  /// value the input gives equals the record's, under a policy that then
  /// keeps it (the common case of a record repeated in a response, and of a
  /// re-import). Relationship slots are left out (the links handle them).
  static func changesNothing(_ incoming: ModelObject, _ target: ModelObject) -> Bool {
    guard incoming.type === target.type else { return false }
    switch (incoming.unknown, target.unknown) {
    case (nil, _): break
    case (let mine?, let theirs?): if json_equal(mine, theirs) == 0 { return false }
    case (.some, nil): return false
    }
    let properties = incoming.type.properties
    for index in properties.indices where index < incoming.slots.count && index < target.slots.count {
      if case .absent = incoming.slots[index] { continue }
      if properties[index].relation != nil { continue }
      switch properties[index].merge {
      case .append, .custom: return false
      default: break
      }
      if !Equality.equal(incoming.slots[index], target.slots[index]) { return false }
    }
    return true
  }

  /// Counts `record` as updated (once).
  mutating func noteUpdated(_ record: GraphRecord) {
    if !transaction.isNew(record), updatedSet.insert(Identity(record)).inserted {
      updated.append(record)
    }
  }

  /// A nested model held where a relationship is (a default value): imported as a record by its key.
  private mutating func adopt(_ object: ModelObject) -> GraphRecord? {
    var parts: [RecordKey] = []
    for index in object.type.primaryKey where index < object.slots.count {
      guard let part = object.slots[index].recordKey else { return nil }
      parts.append(part)
    }
    guard !parts.isEmpty else { return nil }
    let key = parts.count == 1 ? parts[0] : .composite(parts)
    if let existing = transaction.lookup(object.type.keyRoot, key) { return existing }
    return transaction.create(object.type, key, object: object.copy(), isStub: false)
  }
}
