import CJansson

/// Reads JSON text straight into model storage: the objects of models with a
/// `DirectPlan` become `ModelObject`s as they are read, each property's slot
/// filled from its value, with no jansson object for the model and no key
/// lookups afterwards. A plain integer, double or string property's value
/// is kept without jansson (`Slot.integer`, `Slot.real`, and `Slot.text` in
/// the call's chunks of text, `texts`); other leaves are the jansson values the mapper keeps
/// (built by `PrunedParser`, mapped by `Mapper.propertyValue`), and
/// everything the plan does not read directly goes through the ordinary
/// `Mapper`, so a successful read gives exactly the models the DOM path gives.
///
/// The reader gives up on the first error of any kind (invalid text, a value
/// the mapper refuses, a missing required key): the caller then maps the
/// text again on the path that collects every error (`PrunedParser` and the
/// `Mapper`, or jansson), so the errors reported are the DOM path's.
package struct DirectReader {
  var parser: PrunedParser
  var mapper: Mapper
  let schema: Schema
  /// The direct plan of each model, by index.
  private let plans: ContiguousArray<DirectPlan?>
  /// An empty object, for generic properties of an object that had none of their keys.
  private var empty: JPtr? = nil
  /// Numbers outside jansson's range met (see `NumberMarkers`).
  let numbers = NumberMarkers()
  /// Where the strings of plain string properties go (`TextLeaf`).
  let texts: TextWriter
  /// The keys met under each object plan and path plan (`KeyMemo`).
  let memos: KeyMemos
  /// The nested models read so far, by their bytes (`SharedModels`): for
  /// an array of records or a response; nil for one record (a call of its
  /// own, or a line of JSON lines), whose nested objects are read each time.
  let shared: SharedModels?
  /// True when the text is read for a graph import (`forEachRecord`): the
  /// objects of keyed models are records, read partially, and anything the
  /// import reads its own way (a bare key, a relationship behind a key path
  /// or a pluck) ends the read, for the import's mapper path.
  let records: Bool
  /// True while reading an object partially, as `Mapper.partial` says: a
  /// record, or a nested model of one whose merge policy merges models.
  /// Its missing keys stay absent (no default, no `missing` error), and a
  /// null where its property is not required clears.
  var partial = false

  /// A reader of `bytes`. `sharing`: nested models are shared by their
  /// bytes, in `shared` when given (the reads of one array's pieces on one
  /// thread keep one table), else in a table of the reader's own.
  init(
    _ bytes: UnsafeBufferPointer<UInt8>, _ schema: Schema, _ plans: ContiguousArray<DirectPlan?>?,
    memos: KeyMemos? = nil, sharing: Bool = false, shared: SharedModels? = nil, records: Bool = false,
    texts: TextWriter? = nil
  ) {
    self.texts = texts ?? TextWriter()
    parser = PrunedParser(bytes)
    mapper = Mapper(schema: schema, mode: .json)
    parser.markers = numbers
    mapper.numbers = numbers
    self.schema = schema
    self.plans = plans ?? schema.parsePlans.directPlans(in: schema)
    self.memos = memos ?? KeyMemos()
    self.shared = sharing ? (shared ?? SharedModels()) : nil
    self.records = records
  }

  /// The models of a text that is one object of `type`, or nil to map it
  /// on the error-collecting path. `plans`: the schema's direct plans, when
  /// the caller holds them (JSON lines fetch them once, not per line);
  /// `memos`: the key memos of earlier texts (JSON lines keep one set);
  /// `texts`: the writer of kept strings, shared with earlier texts (JSON
  /// lines share one), or nil for a writer of this text's own.
  static func one(
    _ bytes: UnsafeBufferPointer<UInt8>, _ type: ModelType, in schema: Schema,
    plans: ContiguousArray<DirectPlan?>? = nil, memos: KeyMemos? = nil, texts: TextWriter? = nil
  ) -> ModelObject? {
    guard bytes.baseAddress != nil, bytes.count > 0 else { return nil }
    var reader = DirectReader(bytes, schema, plans, memos: memos, texts: texts)
    defer { reader.finish() }
    reader.parser.skipSpace()
    guard let object = reader.cleanRoot(type) else { return nil }
    reader.parser.skipSpace()
    guard reader.parser.position == reader.parser.end else { return nil }
    return object
  }

  /// One line of JSON lines at the start of `bytes` (which run on past it):
  /// an object of `type` read straight into a model, then spaces, tabs or
  /// "\r" and the "\n" that ends the line; the model and the line's length
  /// with its "\n". nil for anything else, to split the line the ordinary way:
  /// an error, a value that runs over a newline (two lines, each to be
  /// mapped alone), no newline in `bytes`, or a line longer than `limit`.
  static func line(
    _ bytes: UnsafeBufferPointer<UInt8>, _ type: ModelType, in schema: Schema,
    plans: ContiguousArray<DirectPlan?>, memos: KeyMemos, texts: TextWriter, limit: Int
  ) -> (ModelObject, Int)? {
    guard let base = bytes.baseAddress, bytes.count > 0, base[0] == UInt8(ascii: "{") else { return nil }
    var reader = DirectReader(bytes, schema, plans, memos: memos, texts: texts)
    defer { reader.finish() }
    guard let object = reader.cleanRoot(type), !reader.parser.sawNewline else { return nil }
    var index = reader.parser.position
    while index < bytes.count
      && (base[index] == UInt8(ascii: " ") || base[index] == UInt8(ascii: "\t") || base[index] == 0x0D)
    {
      index += 1
    }
    guard index < bytes.count, base[index] == 0x0A else { return nil }
    // the line without its "\n" (a "\r" counts), as the splitter measures it
    guard index <= limit else { return nil }
    return (object, index + 1)
  }

  /// The models of a text that is one array of `type` objects, or nil to
  /// map it on the error-collecting path. A long array is read in pieces
  /// on several threads as `splitting` says (`ArraySplit`), with the same
  /// answer; `report` (for tests) learns how it was split.
  static func many(
    _ bytes: UnsafeBufferPointer<UInt8>, _ type: ModelType, in schema: Schema,
    splitting: Splitting = DirectReader.splitting, report: PieceReport? = nil
  ) -> [ModelObject]? {
    guard bytes.baseAddress != nil, bytes.count > 0 else { return nil }
    let plans = schema.parsePlans.directPlans(in: schema)
    var reader = DirectReader(bytes, schema, plans, sharing: true)
    defer { reader.finish() }
    guard let empty = reader.openArray() else { return nil }
    guard empty else {
      return reader.elementsInPieces(type, plans: plans, splitting: splitting, report: report)
    }
    reader.parser.skipSpace()
    guard reader.parser.position == reader.parser.end else { return nil }
    return []
  }

  /// Enters the top-level array at the start of the text (spaces before it
  /// skipped): past its `[` and the spaces after, or past its `]` too when
  /// it is empty. True for an empty array, false when an element follows,
  /// nil when the text does not start with `[`.
  mutating func openArray() -> Bool? {
    parser.skipSpace()
    guard parser.position < parser.end, parser.base[parser.position] == UInt8(ascii: "[") else { return nil }
    parser.depth += 1
    parser.position += 1
    parser.skipSpace()
    guard parser.position < parser.end, parser.base[parser.position] == UInt8(ascii: "]") else {
      return false
    }
    parser.position += 1
    return true
  }

  /// The top-level object of `type` (`root`), kept only when the text read
  /// without a parse failure and every number outside jansson's range was
  /// taken by a property that reports it: the check `one` and `line` share.
  private mutating func cleanRoot(_ type: ModelType) -> ModelObject? {
    guard let object = root(type), !parser.failed, numbers.allConsumed else { return nil }
    return object
  }

  mutating func finish() {
    if let empty { JValue.release(empty) }
    empty = nil
  }

  // MARK: roots

  /// One top-level object: read directly, or built as its parse plan says
  /// and mapped by the mapper (class clusters, kept keys, ...).
  mutating func root(_ type: ModelType) -> ModelObject? {
    guard parser.position < parser.end else { return nil }
    if parser.base[parser.position] == UInt8(ascii: "{"), let plan = directPlan(type.index) {
      return object(plan)
    }
    if records { return nil }
    let want = Want.object(PlanRef(plan: schema.parsePlans.plan(type, in: schema)))
    guard let value = parser.value(want), !parser.failed else { return nil }
    defer { JValue.release(value) }
    guard let object = mapper.mapRoot(value, type: type), mapper.errors.isEmpty else { return nil }
    return object
  }

  /// The direct plan for the object at `position` of model `index`: the
  /// model's own, or for a class cluster the plan of the subtype the object
  /// chooses (its keys read first); nil to read the object the ordinary way.
  mutating func directPlan(_ index: Int) -> DirectPlan? {
    guard index < plans.count else { return nil }
    if let own = plans[index] { return own }
    let type = schema.models[index]
    guard type.cluster != nil, let chosen = parser.chosenSubtype(type, in: schema), chosen.index < plans.count
    else { return nil }
    return plans[chosen.index]
  }

  /// True when objects of model `index` may be read directly: it has a plan
  /// or it is a class cluster (whose subtypes may).
  private func readsDirectly(_ index: Int) -> Bool {
    index < plans.count && (plans[index] != nil || schema.models[index].cluster != nil)
  }

  // MARK: objects

  /// The object at `position` read as `plan`'s model; nil on any error.
  mutating func object(_ plan: DirectPlan) -> ModelObject? {
    let type = plan.type
    // as Mapper.model: one level of the mapper's nesting per model
    guard mapper.canDescend() else { return nil }
    mapper.depth += 1
    defer { mapper.depth -= 1 }
    parser.depth += 1
    defer { parser.depth -= 1 }
    guard parser.depth < PrunedParser.depthLimit, StackGuard.hasRoom(parser.stackLimit) else { return nil }
    // a keyed model nested where it is no record: the import's own path
    if records && !partial && !type.primaryKey.isEmpty { return nil }
    // filled in place; dropped (and its slots with it) on an error
    let object = ModelObject.make(schema: schema, type: type, count: type.properties.count)
    let slots = object.slots
    var collected: JPtr? = nil
    var unknown: JPtr? = nil
    var complete = false
    defer {
      if !complete, let unknown { JValue.release(unknown) }
      if let collected { JValue.release(collected) }
    }
    parser.position += 1
    parser.skipSpace()
    if parser.position < parser.end && parser.base[parser.position] == UInt8(ascii: "}") {
      parser.position += 1
    } else {
      let memo = memos.memo(ObjectIdentifier(plan))
      var cursor = 0
      // a key with escapes, decoded (read only where `key` is nil); made
      // here, not per member, so that a member does not release an array
      var decoded: [UInt8] = []
      while true {
        let key: Range<Int>?
        let found: Int?
        if let hit = memo.match(parser.base, parser.position, parser.end, cursor: &cursor) {
          key = (parser.position + 1)..<(parser.position + 1 + hit.keyLength)
          found = hit.found < 0 ? nil : hit.found
          parser.position += hit.span
          parser.skipSpace()
        } else {
          let start = parser.position
          guard let read = parser.memberKeyAndColon() else { return nil }
          key = read
          if let raw = read {
            found = plan.want.find(UnsafeBufferPointer(start: parser.base + raw.lowerBound, count: raw.count))
            memo.note(
              parser.base, start: start, span: parser.position - start, keyLength: raw.count,
              found: found ?? -1,
              cursor: &cursor)
          } else {
            decoded = parser.withString { Array($0) }
            found = decoded.withUnsafeBufferPointer { plan.want.find($0) }
          }
        }
        if let found, found < plan.scalars.count, case let scalar = plan.scalars[found], scalar.property >= 0
        {
          guard let slot = scalarSlot(plan, scalar.property, scalar.scalar) else { return nil }
          slots[scalar.property].release()
          slots[scalar.property] = slot
        } else if let found, found < plan.entries.count {
          switch plan.entries[found] {
          case .property(let index, let shape, let want):
            guard let slot = property(plan, index, shape, want) else { return nil }
            slots[index].release()
            slots[index] = slot
          case .descend(let path):
            guard descend(path, plan, slots) else { return nil }
          case .plucks(let pluck):
            guard !partial, plucked(pluck, plan, slots) else { return nil }
          case .collect(let want):
            guard let value = parser.value(want), !parser.failed else { return nil }
            let into = collected ?? json_object()
            guard let into else {
              JValue.release(value)
              return nil
            }
            collected = into
            if let raw = key {
              JValue.setMember(
                into, UnsafeBufferPointer(start: parser.base + raw.lowerBound, count: raw.count), value)
            } else {
              decoded.withUnsafeBufferPointer { JValue.setMember(into, $0, value) }
            }
          }
        } else if plan.unknownKeys == .ignore {
          if !parser.skipMember() { return nil }
        } else if !unknownMember(plan, key, decoded, &unknown) {
          return nil
        }
        switch parser.afterMember(closing: UInt8(ascii: "}")) {
        case .more: continue
        case .closed: break
        case .failed: return nil
        }
        break
      }
    }
    if !plan.generic.isEmpty {
      guard let members = collected ?? emptyObject() else { return nil }
      let unmanaged = Unmanaged.passUnretained(type)
      // a relationship read from the input other than at one key: the import's own path
      if records && partial
        && plan.generic.contains(where: {
          if case .none = type.properties[$0].location { return false }  // json: false, never read
          return type.properties[$0].relation != nil
        })
      {
        return nil
      }
      for index in plan.generic {
        // `Mapper.property` sets its partial flags from `partial` per property
        mapper.partial = partial
        slots[index] = mapper.property(members, type, index, unmanaged)
      }
      mapper.partial = false
      mapper.clearing = false
      mapper.clearsNull = false
    }
    for index in plan.direct where !slots[index].isPresent {
      if partial { continue }
      slots[index] = mapper.missing(
        type.properties[index], Mapper.Owner(model: type, property: index), extra: [])
    }
    guard mapper.errors.isEmpty else { return nil }
    complete = true
    object.unknown = unknown
    return object
  }

  private mutating func emptyObject() -> JPtr? {
    if empty == nil { empty = json_object() }
    return empty
  }

  /// The slot of property `index` of `plan`'s model from the value at `position`; nil on any error.
  mutating func property(_ plan: DirectPlan, _ index: Int, _ shape: DirectPlan.Shape, _ want: Want)
    -> Slot?
  {
    guard parser.position < parser.end else { return nil }
    let start = parser.position
    switch shape {
    case .model(let model):
      if parser.base[start] == UInt8(ascii: "{"), let nested = directPlan(model) {
        let outer = partial
        defer { partial = outer }
        partial = nestedPartial(plan, index)
        return nestedObject(nested).map { .model($0) }
      }
    case .models(let model):
      if parser.base[start] == UInt8(ascii: "["), readsDirectly(model) {
        let outer = partial
        defer { partial = outer }
        partial = nestedPartial(plan, index)
        switch list(model) {
        case .read(let slot): return slot
        case .failed: return nil
        case .other: parser.position = start
        }
      }
    case .scalar(let scalar): return scalarSlot(plan, index, scalar)
    case .date(let date):
      if parser.base[start] == UInt8(ascii: "\"") { return dateSlot(plan, index, date) }
    case .enumerated(let map):
      if parser.base[start] == UInt8(ascii: "\"") { return enumSlot(plan, index, map) }
    case .list(let scalar):
      if parser.base[start] == UInt8(ascii: "[") {
        if let list = keptList(scalar) { return list }
        // text that is not JSON: the ordinary way would only fail again
        // (and it expects `failed` clear as it starts)
        if parser.failed { return nil }
      }
    case .value: break
    }
    guard let value = parser.value(want), !parser.failed else { return nil }
    return mapped(value, plan, index)
  }

  /// The slot the mapper makes of `value` (released here) for property
  /// `index` of `plan`'s model; nil on any error.
  mutating func mapped(_ value: JPtr, _ plan: DirectPlan, _ index: Int) -> Slot? {
    defer { JValue.release(value) }
    guard index < plan.types.count else { return nil }
    if records {
      let spec = plan.type.properties[index]
      // a record's relationship given other than as objects (a bare key):
      // the import's own path
      if spec.relation != nil && !plan.type.primaryKey.isEmpty && !JValue.isNull(value) { return nil }
      // as `Mapper.property` sets them for a property of a partial model
      mapper.clearing = partial
      mapper.clearsNull = partial && !spec.required
      mapper.partial = partial && spec.merge.mergesModels
    }
    defer {
      if records {
        mapper.partial = false
        mapper.clearing = false
        mapper.clearsNull = false
      }
    }
    let slot = mapper.propertyValue(
      value, plan.types[index], Mapper.Owner(model: plan.type, property: index), plan.rules[index])
    guard mapper.errors.isEmpty else {
      slot.release()
      return nil
    }
    return slot
  }

  /// Whether the nested model of property `index` of `plan`'s model is
  /// read partially: a record's relationship is a record (always partial);
  /// another nested model is partial inside a partial one where its merge
  /// policy merges models, as `Mapper.property` says.
  private func nestedPartial(_ plan: DirectPlan, _ index: Int) -> Bool {
    guard records, index < plan.type.properties.count else { return false }
    let spec = plan.type.properties[index]
    if spec.relation != nil && !plan.type.primaryKey.isEmpty { return true }
    return partial && spec.merge.mergesModels
  }

}
