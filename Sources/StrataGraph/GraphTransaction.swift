// Long because the drafts and the link primitives that change them must
// stay together: every primitive keeps the other side of its link in step
// through the same private sets (`incomingChanges`, `emptied`,
// `cascading`), which another file could not reach.

import CJansson
import Strata

/// The changes of one import or delete, made on drafts of the records they
/// touch, and applied to the context only when all of it succeeded: the
/// committed records never see a half-done change.
///
/// The link primitives keep both sides of every relationship in step: a
/// link (a, p) -> t is listed in t's `incoming`, and where p has an inverse
/// q, t's q holds a (one-to-one, one-to-many and many-to-many alike).
struct GraphTransaction {
  let schema: Schema
  let memory: GraphMemory
  /// The position in `touched` and `drafts` of each record changed so far.
  private var draftIndex: [Identity: Int] = [:]
  /// The records changed, in the order first changed.
  private(set) var touched: [GraphRecord] = []
  /// Their drafts, in the same order. (An array beside a dictionary of
  /// positions, not a dictionary of states: an element of an array is read
  /// in place, where a dictionary's value is copied out whole, a retain and
  /// a release for each reference in it.)
  private(set) var drafts: ContiguousArray<RecordState> = []
  /// Records made by this transaction, by key space and key.
  private(set) var created = RecordIndex()
  /// Records made by this transaction, in order.
  private(set) var createdOrder: [GraphRecord] = []
  /// Every record made by this transaction.
  private var madeHere: Set<Identity> = []
  /// Records deleted by this transaction.
  private(set) var deleted: Set<Identity> = []
  /// Records whose draft owns its attribute object (copied on first change).
  private(set) var ownsObject: Set<Identity> = []
  /// `absentLinks`, by model index.
  private var sharedAbsentLinks: [Int: RecordLinks] = [:]
  /// The links into records that this transaction adds and removes, kept
  /// apart from the drafts (whose `incoming` stays empty): a record's
  /// committed set is changed in place at commit, never copied, so linking
  /// one more post to an author with n posts costs the same for any n.
  private(set) var incomingChanges: [Identity: IncomingChange] = [:]
  /// Records a relationship with `orphans: delete` dropped.
  var orphanCandidates: [GraphRecord] = []
  /// To-one links that cannot be empty and were emptied: (record,
  /// property, the record it held). Settled by `deleteOrphans()` when
  /// still empty then, by the delete rule of the relationship that let go.
  private var emptied: [(record: GraphRecord, property: Int, former: GraphRecord)] = []
  /// Records a `cascade` delete rule deletes.
  private var cascading: [GraphRecord] = []
  /// Changes a delete rule refused (`deny`): each names both records. A
  /// transaction with refusals must not commit.
  private(set) var refusals: [ErrorDetail] = []
  private var refused: Set<String> = []
  /// The next synthetic key.
  var nextSynthetic: Int64

  init(schema: Schema, memory: GraphMemory) {
    self.schema = schema
    self.memory = memory
    self.nextSynthetic = memory.nextSynthetic
  }

  // MARK: records

  /// The record of key space `root` under `key`, as this transaction sees it.
  func lookup(_ root: Int, _ key: RecordKey) -> GraphRecord? {
    if let made = created.record(root, key) { return made }
    guard let record = memory.record(root, key, lazily: true), !deleted.contains(Identity(record))
    else {
      return nil
    }
    return record
  }

  /// A record's state as this transaction sees it. Its to-many lists may
  /// hold targets of the file unread (`RecordList.unread`): what looks at a
  /// whole list reads it first (`wholeLinks`).
  func state(_ record: GraphRecord) -> RecordState {
    if let index = draftPosition(record) { return drafts[index] }
    return record.lazyState
  }

  /// True when the transaction changed `record`.
  func hasDraft(_ record: GraphRecord) -> Bool { draftIndex[Identity(record)] != nil }

  /// The position of `record`'s draft in `drafts`, or nil: none, or the
  /// drafts were taken by the commit (`takeDrafts`).
  @inline(__always)
  private func draftPosition(_ record: GraphRecord) -> Int? {
    guard let position = draftIndex[Identity(record)], position < drafts.count else { return nil }
    return position
  }

  /// Hands the drafts (in the order of `touched`) to the commit, moved
  /// rather than copied: the commit makes them the records' committed
  /// states. The transaction then sees each record as committed
  /// (`state(record)` is `record.lazyState`); `hasDraft` still answers.
  mutating func takeDrafts() -> ContiguousArray<RecordState> {
    var taken: ContiguousArray<RecordState> = []
    swap(&taken, &drafts)
    return taken
  }

  /// The model of `record`'s state as this transaction sees it (as
  /// `state(record).model`, without copying the rest of the state: a copy
  /// retains and releases each of its references).
  @inline(__always)
  func model(of record: GraphRecord) -> ModelType {
    if let index = draftPosition(record) { return drafts[index].model }
    return record.lazyState.model
  }

  /// Reads the targets of the file that `record`'s lists (committed and
  /// draft) left unread, so that its lists as this transaction sees them
  /// are whole. A draft's list is the committed one with targets appended:
  /// the whole committed list, then the targets appended by this
  /// transaction.
  mutating func wholeLinks(_ record: GraphRecord) {
    // A fault is read whole first. Read lazily (as `state` reads it), its
    // lists would hold none of the file's targets and show no pending
    // ones either, so a delete of it cascaded to none of them.
    if record.isFault { memory.fill(record) }
    guard let position = draftPosition(record),
      drafts[position].hasPendingLists
    else {
      if record.pendingLists { memory.readLists(record) }
      return
    }
    memory.readLists(record)
    guard !record.pendingLists else { return }  // the read failed (memory.failure): the call fails
    let committed = record.storedState.links
    var changed = drafts[position]
    for index in changed.links.indices where changed.links[index].isPending {
      guard case .many(let appended) = changed.links[index], index < committed.count,
        case .many(let whole) = committed[index]
      else { continue }
      var list = whole
      // the draft holds the committed targets that follow the unread ones, then its own
      for target in appended.items.dropFirst(max(whole.count - appended.unread, 0)) { list.append(target) }
      changed.links[index] = .many(list)
    }
    drafts[position] = changed
  }

  /// True when `record` was made by this transaction (and not deleted by it).
  func isNew(_ record: GraphRecord) -> Bool { created.record(record.keyRoot, record.key) === record }

  /// True when `record` was made by this transaction, deleted by it or not.
  func isNewlyMade(_ record: GraphRecord) -> Bool { madeHere.contains(Identity(record)) }

  /// True when `record` is deleted (committed or by this transaction).
  func isDeleted(_ record: GraphRecord) -> Bool {
    record.isDeleted || deleted.contains(Identity(record))
  }

  /// The links into `record` as this transaction sees them.
  func incoming(_ record: GraphRecord) -> Set<Incoming> {
    memory.ensureIncoming(record)
    guard let change = incomingChanges[Identity(record)] else { return record.lazyState.incoming }
    return record.lazyState.incoming.subtracting(change.removed).union(change.added)
  }

  /// Notes the link `entry` into `record`.
  private mutating func addIncoming(_ record: GraphRecord, _ entry: Incoming) {
    // changed in place: its sets stay uniquely referenced (no copy)
    incomingChanges[Identity(record), default: IncomingChange(record: record)].add(entry)
  }

  /// Notes that the link `entry` into `record` is gone.
  private mutating func removeIncoming(_ record: GraphRecord, _ entry: Incoming) {
    incomingChanges[Identity(record), default: IncomingChange(record: record)].remove(entry)
  }

  /// Changes `record`'s draft.
  mutating func edit(_ record: GraphRecord, _ change: (inout RecordState) -> Void) {
    if let index = draftPosition(record) {
      change(&drafts[index])
      return
    }
    var draft = record.lazyState
    draft.incoming = []  // kept in `incomingChanges`: the draft holds no reference to the set
    startDraft(record, draft)
    change(&drafts[drafts.count - 1])
  }

  /// Makes `draft` the first draft of `record` (which has none yet).
  private mutating func startDraft(_ record: GraphRecord, _ draft: RecordState) {
    draftIndex[Identity(record)] = drafts.count
    drafts.append(draft)
    touched.append(record)
  }

  /// Replaces the draft's attribute object with one the draft owns.
  mutating func setObject(_ record: GraphRecord, _ object: ModelObject, model: ModelType, isStub: Bool) {
    ownsObject.insert(Identity(record))
    edit(record) { state in
      if state.model !== model {
        var links = RecordLinks(model)
        for index in model.relations where index < state.links.count { links[index] = state.links[index] }
        state.links = links
        state.model = model
      }
      state.object = object
      state.isStub = isStub
    }
  }

  /// Makes a record (not yet committed) of `model` under `key`.
  mutating func create(_ model: ModelType, _ key: RecordKey, object: ModelObject, isStub: Bool)
    -> GraphRecord?
  {
    // The draft owns the record's links; the record's first state holds the
    // model's all-absent links, one array shared by every record this
    // transaction makes of the model. (With one array for both, the draft's
    // first link copied it and the commit freed the record's: one freed
    // array per record made, holes in the middle of the heap that kept the
    // resident set of a large in-memory graph 9 MB above what it holds.)
    let absent = absentLinks(model)
    guard
      let record = GraphRecord(
        key: key, keyRoot: model.keyRoot,
        state: RecordState(model: model, object: object, isStub: isStub, links: absent), owner: memory.serial)
    else { return nil }
    created[model.keyRoot, default: [:]][key] = record
    createdOrder.append(record)
    madeHere.insert(Identity(record))
    ownsObject.insert(Identity(record))
    startDraft(record, RecordState(model: model, object: object, isStub: isStub))
    return record
  }

  /// The links of a new record of `model` before any is set: one array per
  /// model, shared (never changed in place: a change copies it).
  private mutating func absentLinks(_ model: ModelType) -> RecordLinks {
    if let links = sharedAbsentLinks[model.index] { return links }
    let links = RecordLinks(model)
    sharedAbsentLinks[model.index] = links
    return links
  }

  // MARK: links

  /// Sets the to-one relationship `property` of `record` to `target` (nil: null).
  mutating func setOne(_ record: GraphRecord, _ property: Int, _ target: GraphRecord?) {
    let current = link(record, property)
    if target == nil, case .null = current { return }
    if case .one(let old) = current {
      if old === target { return }
      detach(record, property, old)
      dropped(record, property, old)
    }
    edit(record) { $0.links[property] = target.map { .one($0) } ?? .null }
    if let target { attach(record, property, target) }
  }

  /// How a to-many relationship takes an input list.
  enum ListPolicy {
    /// The policy of a relationship whose merge policy is `merge`:
    /// `union` and `append` as they say, any other replaces.
    init(_ merge: MergePolicy) {
      switch merge {
      case .union: self = .union
      case .append: self = .append
      default: self = .replace
      }
    }

    /// Exactly the input's list, in its order.
    case replace
    /// What is there stays where it is; records not there are added at the end.
    case union
    /// What is there stays; the input's records follow at the end (one already there moves to its new place).
    case append
  }

  /// Sets the to-many relationship `property` of `record` from `targets` (nil: null) by `policy`.
  mutating func setMany(
    _ record: GraphRecord, _ property: Int, _ targets: [GraphRecord]?, policy: ListPolicy
  ) {
    if link(record, property).isPending { wholeLinks(record) }
    let old = link(record, property).records
    if let targets, policy == .replace, targets.count == old.count,
      zip(targets, old).allSatisfy({ $0 === $1 })
    {
      if case .many = link(record, property) { return }  // the same list: nothing to do
    }
    if targets == nil, case .null = link(record, property) { return }
    let oldList = RecordList(old)
    guard let targets else {
      for target in old {
        detach(record, property, target)
        dropped(record, property, target)
      }
      edit(record) { $0.links[property] = .null }
      return
    }
    let given = RecordList(targets)
    var final: RecordList
    switch policy {
    case .replace: final = given
    case .union:
      final = oldList
      for target in given.items { final.append(target) }
    case .append:
      final = RecordList(old.filter { !given.contains($0) })
      for target in given.items { final.append(target) }
    }
    for target in old where !final.contains(target) {
      detach(record, property, target)
      dropped(record, property, target)
    }
    let finalList = final
    edit(record) { $0.links[property] = .many(finalList) }
    for target in final.items where !oldList.contains(target) { attach(record, property, target) }
  }

  /// The link of `record`'s `property` in this transaction.
  @inline(__always)
  func link(_ record: GraphRecord, _ property: Int) -> Link {
    if let index = draftPosition(record) {
      return property < drafts[index].links.count ? drafts[index].links[property] : .absent
    }
    return record.lazyLink(property)
  }

  /// Notes that `record`'s `property` no longer holds `target`: a candidate
  /// for deletion when the relationship deletes its orphans.
  private mutating func dropped(_ record: GraphRecord, _ property: Int, _ target: GraphRecord) {
    let properties = self.model(of: record).properties
    if property < properties.count, properties[property].relation?.deletesOrphans == true {
      orphanCandidates.append(target)
    }
  }

  /// The inverse property of `record`'s `property`, if it has one.
  private func inverse(_ record: GraphRecord, _ property: Int) -> Int? {
    let properties = self.model(of: record).properties
    return property < properties.count ? properties[property].relation?.inverse : nil
  }

  /// Records the new link (record, property) -> target on target's side.
  private mutating func attach(_ record: GraphRecord, _ property: Int, _ target: GraphRecord) {
    addIncoming(target, Incoming(record: record, property: property))
    guard let back = inverse(record, property) else { return }
    let targetProperties = self.model(of: target).properties
    guard back < targetProperties.count, let backRelation = targetProperties[back].relation else { return }
    if backRelation.toMany {
      edit(target) { state in
        if case .many(var list) = state.links[back] {
          state.links[back] = .absent  // the list's only owner: appended in place, not copied
          list.append(record)
          state.links[back] = .many(list)
        } else {
          state.links[back] = .many(RecordList([record]))
        }
      }
    } else {
      if case .one(let previous) = link(target, back), previous !== record {
        // target belonged to `previous` through `property`: it leaves it.
        removeForward(previous, property, target)
        removeIncoming(target, Incoming(record: previous, property: property))
        removeIncoming(previous, Incoming(record: target, property: back))
      }
      edit(target) { $0.links[back] = .one(record) }
    }
    addIncoming(record, Incoming(record: target, property: back))
  }

  /// Removes the link (record, property) -> target from target's side (the
  /// caller changes record's own slot).
  private mutating func detach(_ record: GraphRecord, _ property: Int, _ target: GraphRecord) {
    removeIncoming(target, Incoming(record: record, property: property))
    guard let back = inverse(record, property) else { return }
    removeForward(target, back, record)
    removeIncoming(record, Incoming(record: target, property: back))
  }

  /// Takes `target` out of `record`'s `property` (to-one: null; to-many: removed).
  private mutating func removeForward(_ record: GraphRecord, _ property: Int, _ target: GraphRecord) {
    switch link(record, property) {
    case .one(let current) where current === target:
      edit(record) { $0.links[property] = .null }
      let model = self.model(of: record)
      if property < model.properties.count,
        model.primaryKey.contains(property) || !model.properties[property].type.acceptsNull
      {
        emptied.append((record, property, target))
      }
    case .many:
      if link(record, property).isPending { wholeLinks(record) }
      // the membership test lets go of its copy of the list before the edit
      guard listHolds(record, property, target) else { return }
      edit(record) { state in
        guard case .many(var changed) = state.links[property] else { return }
        state.links[property] = .absent  // the list's only owner: changed in place, not copied
        changed.remove(target)
        state.links[property] = .many(changed)
      }
    default: return
    }
  }

  /// True when `record`'s to-many `property` holds `target`.
  private func listHolds(_ record: GraphRecord, _ property: Int, _ target: GraphRecord) -> Bool {
    if case .many(let list) = link(record, property) { return list.contains(target) }
    return false
  }

  // MARK: deleting

  /// Deletes `record`: every link to and from it goes, on both sides; the
  /// records its `orphans: delete` relationships held become candidates.
  mutating func delete(_ record: GraphRecord) {
    guard !isDeleted(record) else { return }
    wholeLinks(record)
    let current = state(record)
    for property in current.model.relations where property < current.links.count {
      let targets = current.links[property].records
      if let relation = current.model.properties[property].relation, let first = targets.first {
        switch relation.deleteRule {
        case .cascade: cascading.append(contentsOf: targets)
        case .deny where !settles(first, relation.inverse):
          let name = current.model.properties[property].name
          refuse(
            record, property,
            "cannot delete the '\(current.model.name)' record \(record.key): it holds the '\(self.model(of: first).name)' record \(first.key) through '\(name)', whose deleteRule is deny"
          )
        case .nullify, .deny: break
        }
      }
      for target in targets {
        detach(record, property, target)
        dropped(record, property, target)
      }
    }
    let into = incoming(record)  // a link to itself is removed twice below, which is harmless
    for source in into {
      removeForward(source.record, source.property, record)
      removeIncoming(source.record, Incoming(record: record, property: source.property))
    }
    for entry in into { removeIncoming(record, entry) }
    edit(record) { state in
      for index in state.links.indices { state.links[index] = .absent }
    }
    deleted.insert(Identity(record))
    if isNew(record) { created[record.keyRoot]?[record.key] = nil }
  }

  /// Deletes the orphan candidates that nothing refers to any more (and
  /// those their deletion orphans in turn).
  mutating func deleteOrphans() {
    while !emptied.isEmpty || !cascading.isEmpty || !orphanCandidates.isEmpty {
      if let doomed = cascading.popLast() {
        if !isDeleted(doomed) { delete(doomed) }
        continue
      }
      if let (record, property, former) = emptied.popLast() {
        settle(record, property, former)
        continue
      }
      if let candidate = orphanCandidates.popLast() {
        if isDeleted(candidate) || !incoming(candidate).isEmpty { continue }
        delete(candidate)
      }
    }
  }

  /// A to-one link that cannot be empty lost `former`: when it is still
  /// empty, the delete rule of the relationship on the other side decides
  /// (none there: a key part cascades, anything else is refused).
  private mutating func settle(_ record: GraphRecord, _ property: Int, _ former: GraphRecord) {
    guard !isDeleted(record), case .null = link(record, property) else { return }
    let model = self.model(of: record)
    guard property < model.properties.count else { return }
    let spec = model.properties[property]
    var rule: DeleteRule = model.primaryKey.contains(property) ? .cascade : .deny
    var holder = "'\(spec.name)' has no inverse"
    if let back = spec.relation?.inverse {
      let formerModel = self.model(of: former)
      if back < formerModel.properties.count, let relation = formerModel.properties[back].relation {
        rule = relation.deleteRule
        holder =
          "the deleteRule of '\(formerModel.name).\(formerModel.properties[back].name)' is \(rule.rawValue)"
      }
    }
    switch rule {
    case .cascade:
      delete(record)
    case .deny, .nullify:
      let action = isDeleted(former) ? "is deleted" : "lets go of it"
      refuse(
        record, property,
        "the '\(model.name)' record \(record.key) would be left without its '\(spec.name)', which cannot be empty: the '\(self.model(of: former).name)' record \(former.key) \(action), and \(holder)"
      )
    }
  }

  /// True when `target` losing its link `back` is settled by `settle` (a
  /// to-one that cannot be empty): the refusal then names each record.
  private func settles(_ target: GraphRecord, _ back: Int?) -> Bool {
    let model = self.model(of: target)
    guard let back, back < model.properties.count, let relation = model.properties[back].relation,
      !relation.toMany
    else { return false }
    return model.primaryKey.contains(back) || !model.properties[back].type.acceptsNull
  }

  /// Notes a change a delete rule refuses (once per record and property).
  private mutating func refuse(_ record: GraphRecord, _ property: Int, _ message: String) {
    let model = self.model(of: record)
    let name = property < model.properties.count ? model.properties[property].name : ""
    let path = record.pointer(schema, property: name)
    guard refused.insert(path).inserted else { return }
    refusals.append(ErrorDetail(path: path, model: model.name, property: name, code: .deny, message: message))
  }
}

/// The links into one record that a transaction adds and removes.
struct IncomingChange {
  let record: GraphRecord
  var added: Set<Incoming> = []
  var removed: Set<Incoming> = []

  /// Notes the link `entry` as added (or as no longer removed).
  mutating func add(_ entry: Incoming) {
    if removed.isEmpty || removed.remove(entry) == nil { added.insert(entry) }
  }

  /// Notes the link `entry` as removed (or as no longer added).
  mutating func remove(_ entry: Incoming) {
    if added.isEmpty || added.remove(entry) == nil { removed.insert(entry) }
  }

  /// Applies the change to `incoming`, the record's committed links into it.
  func apply(to incoming: inout Set<Incoming>) {
    if incoming.isEmpty && removed.isEmpty {
      incoming = added  // a record with no links into it yet: shares the set, no rehashing
      return
    }
    incoming.subtract(removed)
    incoming.formUnion(added)
  }
}
