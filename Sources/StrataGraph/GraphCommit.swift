import CJansson
import Strata

/// Applies a finished transaction: first to the file (one SQLite
/// transaction), then to memory. When the file refuses (read only, full
/// disk), memory is left as it was and the error is an `io` error.
enum GraphCommit {
  /// Records made and deleted, by model name, in the order first met.
  struct Counts {
    var created: [(String, Int)] = []
    var deleted: [(String, Int)] = []
    /// Records that existed before and whose values (attributes, links,
    /// model, being a stub) the transaction changed, in the order touched.
    var changed: [GraphRecord] = []
  }

  /// The body a record is stored with: its model, whether it is a stub, and
  /// its canonical values (relationships as keys): what `check()` compares
  /// and a rewrite of the file writes (a commit writes rows from the
  /// committed object, `RecordRows.row(object:)`).
  static func body(_ state: RecordState) -> JPtr? {
    guard let body = json_object(), let values = state.object.dictionary(archive: true) else { return nil }
    JValue.setNew(body, "model", JValue.makeString(state.model.name) ?? json_null())
    if state.isStub { JValue.setNew(body, "stub", json_true()) }
    JValue.setNew(body, "values", values)
    return body
  }

  /// For each to-many relationship of a record, the first targets of its
  /// new list that the committed one has in the same places, which the
  /// file holds already (an import that adds a post to a long list writes
  /// one row): `start`, how many they are (the position of the first link
  /// row to write), and `drop`, how many of them the new object shows (a
  /// list with targets of the file unread shows the held ones only).
  static func keptLinks(from old: RecordState, to new: RecordState) -> [String: (drop: Int, start: Int)] {
    var kept: [String: (drop: Int, start: Int)] = [:]
    for index in new.model.relations where index < new.links.count && index < old.links.count {
      guard case .many(let after) = new.links[index], case .many(let before) = old.links[index],
        index < old.model.properties.count,
        old.model.properties[index].name == new.model.properties[index].name
      else { continue }
      let name = new.model.properties[index].name
      if after.unread == 0 {
        // a whole new list: kept only against a whole committed one
        let same = before.unread == 0 ? before.sharedPrefix(with: after) : 0
        if same > 0 { kept[name] = (same, same) }
      } else if before.unread == after.unread {
        kept[name] = (before.sharedPrefix(with: after), after.unread + before.sharedPrefix(with: after))
      } else if before.unread == 0 && before.count >= after.unread {
        // the committed list was read since: its targets after the unread ones against the held
        var same = 0
        let tail = before.items.dropFirst(after.unread)
        for (old, new) in zip(tail, after.items) where old === new { same += 1 }
        kept[name] = (same, after.unread + same)
      } else {
        kept[name] = (0, after.unread)
      }
    }
    return kept
  }

  /// True when two committed states of a record hold the same values: the
  /// same model, attributes and unknown keys, and the same links (compared
  /// as records, not as the lists of keys their objects show: a long list
  /// that gained a record differs by its length at once).
  static func sameValues(_ old: RecordState, _ new: RecordState) -> Bool {
    guard old.model === new.model, old.object.type === new.object.type,
      old.object.slots.count == new.object.slots.count, old.links.count == new.links.count
    else { return false }
    for index in old.links.indices {
      switch (old.links[index], new.links[index]) {
      case (.absent, .absent), (.null, .null): continue
      case (.one(let a), .one(let b)) where a === b: continue
      case (.many(let a), .many(let b))
      where a.unread == b.unread && a.count == b.count && a.sharedPrefix(with: b) == a.count:
        continue
      default: return false
      }
    }
    let properties = new.model.properties
    for index in new.object.slots.indices where index >= properties.count || properties[index].relation == nil
    {
      if !Equality.equal(old.object.slots[index], new.object.slots[index]) { return false }
    }
    return Equality.equalUnknown(old.object, new.object)
  }

  static func commit(_ transaction: inout GraphTransaction, memory: GraphMemory, store: GraphStore?)
    throws(StrataError) -> Counts
  {
    // each record's committed state (nil: deleted), its object made below
    // (`committed`); the drafts are moved here, not copied (a copy of a
    // state retains and releases each reference in it)
    let records = transaction.touched
    var finished: ContiguousArray<RecordState?> = []
    var owned: [Bool] = []
    finished.reserveCapacity(records.count)
    owned.reserveCapacity(records.count)
    for (record, state) in zip(records, transaction.takeDrafts()) {
      if transaction.deleted.contains(Identity(record)) {
        finished.append(nil)
        owned.append(false)
        continue
      }
      owned.append(
        transaction.ownsObject.contains(Identity(record)) && state.object.type === state.model)
      finished.append(consume state)
    }
    let schema = transaction.schema
    let limit = memory.listShownAtCommit
    // The committed object of `finished[index]`. It touches nothing but the
    // record's new state and object, so it may run on the store's helper
    // thread while the calling thread writes rows.
    func committed(_ record: GraphRecord, _ state: RecordState, owned: Bool) -> ModelObject {
      // a long list is written into the object when the object is first
      // asked for (`GraphRecord.staleObject`), not at every commit that adds to it
      let object =
        owned
        ? GraphOutput.materializeInPlace(state, leavingLongerThan: limit)
        : GraphOutput.materialize(state, schema: schema, leavingLongerThan: limit)
      record.tie(object, isStub: state.isStub)
      return object
    }
    // the objects the store's write made (none in memory, or for no change)
    var made: CommittedObjects? = nil
    defer { made?.release() }
    if let store {
      // the rows are made from the committed objects (as from `body(state)`),
      // each object made as its row is (on a helper thread when they are many)
      var changes: [GraphStore.Change] = []
      var changed: [Int] = []
      for (index, record) in records.enumerated() {
        let root = transaction.schema.models[record.keyRoot].name
        let isNew = transaction.isNewlyMade(record)
        if let model = finished[index]?.model {
          var change = GraphStore.Change(model: root, key: record.keyJSON, body: nil, isNew: isNew)
          change.objectType = model
          changes.append(change)
        } else if !isNew {
          changes.append(GraphStore.Change(model: root, key: record.keyJSON, body: nil))
        } else {
          continue
        }
        changed.append(index)
      }
      let objects = CommittedObjects(count: finished.count)
      made = objects
      if !changes.isEmpty {
        try store.write(changes) { (position: Int) -> GraphStore.Change in
          let index = changed[position]
          let record = records[index]
          guard let state = finished[index] else { return changes[position] }
          let object = committed(record, state, owned: owned[index])
          objects.set(index, object)
          // its to-many lists from the links (the object may leave long ones out)
          let kept = changes[position].isNew ? [:] : keptLinks(from: record.storedState, to: state)
          var lists: [String: [JPtr]] = [:]
          for property in state.model.relations where property < state.links.count {
            guard case .many(let list) = state.links[property], property < state.model.properties.count else {
              continue
            }
            let name = state.model.properties[property].name
            lists[name] = list.items.dropFirst(kept[name]?.drop ?? 0).map(\.keyJSON)
          }
          return GraphStore.Change(
            model: changes[position].model, key: record.keyJSON, object: object, stub: state.isStub,
            lists: lists, keptLinks: kept.mapValues(\.start), isNew: changes[position].isNew)
        }
      }
      // the change is in the file (committed, when a transaction holds the
      // file's write lock around the whole change) before memory takes it
      try store.connection.commitNow()
    }
    for index in finished.indices {
      guard let state = finished[index] else { continue }
      let object = made?.take(index) ?? committed(records[index], state, owned: owned[index])
      finished[index]?.object = object
    }
    var counts = Counts()
    var created: [String: Int] = [:]
    var deleted: [String: Int] = [:]
    for (index, record) in records.enumerated() {
      if var state = finished[index].take() {
        // the committed links into the record, changed in place (a draft holds none)
        swap(&state.incoming, &record.storedState.incoming)
        if record.incomingKnown, let change = transaction.incomingChanges[Identity(record)] {
          change.apply(to: &state.incoming)
        }
        if transaction.isNew(record) {
          memory.insert(record)
          let name = state.model.name
          if created[name] == nil { counts.created.append((name, 0)) }
          created[name, default: 0] += 1
        } else if record.storedState.isStub != state.isStub || !sameValues(record.storedState, state) {
          counts.changed.append(record)
        }
        record.storedState = state
        record.pendingLists = state.hasPendingLists
        record.staleObject = GraphOutput.hasLongLists(state, longerThan: memory.listShownAtCommit)
        record.source = memory
        record.lastUse = memory.generation
      } else {
        if !transaction.isNewlyMade(record) {
          let name = record.storedState.model.name
          if deleted[name] == nil { counts.deleted.append((name, 0)) }
          deleted[name, default: 0] += 1
          memory.remove(record.keyRoot, record.key)
        }
        record.clear()
      }
    }
    // links into records the transaction changed nothing else of
    for change in transaction.incomingChanges.values
    where !transaction.hasDraft(change.record) && !change.record.isDeleted && change.record.incomingKnown {
      change.apply(to: &change.record.storedState.incoming)
    }
    counts.created = counts.created.map { ($0.0, created[$0.0] ?? 0) }
    counts.deleted = counts.deleted.map { ($0.0, deleted[$0.0] ?? 0) }
    memory.nextSynthetic = transaction.nextSynthetic
    return counts
  }
}

/// The committed objects a store's write made (`GraphCommit.commit`), by
/// the index of their record: set on the write's helper thread, each slot
/// once, and read on the calling thread after the write returned.
private final class CommittedObjects {
  private let slots: UnsafeMutablePointer<Unmanaged<ModelObject>?>
  private let count: Int

  init(count: Int) {
    self.count = count
    slots = .allocate(capacity: max(count, 1))
    slots.initialize(repeating: nil, count: max(count, 1))
  }

  /// Keeps `object` as the one of record `index`.
  func set(_ index: Int, _ object: ModelObject) {
    slots[index]?.release()
    slots[index] = .passRetained(object)
  }

  /// The object of record `index` (given up by this holder), or nil.
  func take(_ index: Int) -> ModelObject? {
    defer { slots[index] = nil }
    return slots[index]?.takeRetainedValue()
  }

  /// Lets go of the objects not taken.
  func release() {
    for index in 0..<max(count, 1) { slots[index]?.release() }
    slots.deallocate()
  }
}
