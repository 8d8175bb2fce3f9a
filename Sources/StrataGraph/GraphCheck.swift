import CJansson
import Strata

/// The invariants of a graph context, checked on demand (`check()`): what
/// tests and fuzzers run after every step, and what a user runs on a file
/// they doubt.
///
/// - every record maps under its schema: the body it is stored with (its
///   canonical values, relationships as keys) reads back through the
///   schema without an error, as opening the file reads it;
/// - every link names a live record of the context, its slot (the key a
///   record handle shows) agrees with the link, lists hold no repeat;
/// - every inverse holds both ways, and every incoming link is a link;
/// - on a file: the checks above run on the whole file read in; each row
///   reads back to the body it was written from; and every record the
///   cache holds is the file's record, with the same values, links to the
///   cache's own records, and (when known) the same incoming links.
extension GraphContext {
  /// Checks every invariant; the broken ones as `io` errors (at most 100), or nothing.
  package func check() -> Result<Void, StrataError> {
    locked { () -> Result<Void, StrataError> in
      // on a file, the checks run on the whole file read in
      let checked = store == nil ? memory : GraphMemory(schema: schema)
      defer { if checked !== memory { checked.clear() } }
      if let store {
        do throws(StrataError) {
          memory.startReading()
          try GraphLoading.load(store, into: checked, schema: schema)
        } catch {
          return .failure(error)
        }
      }
      var problems = GraphCheck(schema: schema, memory: checked)
      problems.checkRecords()
      if let store {
        problems.checkStore(store)
        problems.checkCache(memory)
      }
      if problems.errors.isEmpty { return .success(()) }
      return .failure(StrataError(problems.errors))
    }
  }
}

/// One run of the checks, collecting what broke.
struct GraphCheck {
  let schema: Schema
  let memory: GraphMemory
  var errors: [ErrorDetail] = []
  static let limit = 100

  /// Notes a broken invariant of `record`.
  mutating func broken(_ record: GraphRecord?, _ property: String = "", _ message: String) {
    guard errors.count < Self.limit else { return }
    var path = ""
    var model = ""
    if let record {
      model = record.state.model.name
      path = record.pointer(schema, property: property)
    }
    errors.append(
      ErrorDetail(
        path: path, model: model, property: property, code: .io,
        message: "graph invariant broken: \(message)"))
  }

  /// The per-record checks.
  mutating func checkRecords() {
    let collector = RelationCollector()
    for (root, records) in memory.index.sorted(by: { $0.key < $1.key }) {
      for (key, record) in records.sorted(by: { $0.key < $1.key }) {
        if record.key != key || record.keyRoot != root || record.isDeleted {
          broken(record, "", "the record is indexed under another key, or deleted")
          continue
        }
        if record.state.model.keyRoot != root {
          broken(record, "", "its model '\(record.state.model.name)' lives in another key space")
        }
        checkMaps(record, collector)
        checkLinks(record)
      }
    }
  }

  /// The record's stored body maps under its model.
  private mutating func checkMaps(_ record: GraphRecord, _ collector: RelationCollector) {
    guard let body = GraphCommit.body(record.state) else {
      broken(record, "", "its body cannot be written")
      return
    }
    defer { JValue.release(body) }
    guard let values = json_object_get(body, "values") else { return }
    let (_, found) = GraphLoading.mapStored(
      values, record.state.model, isStub: record.state.isStub,
      at: [.name(schema.models[record.keyRoot].name), .name(record.key.description)], schema: schema,
      collector: collector)
    collector.drop(to: 0)
    for detail in found where errors.count < Self.limit {
      var located = detail
      located.code = .io
      located.message = "graph invariant broken: the record does not map under its schema: \(detail.message)"
      errors.append(located)
    }
  }

  /// The record's links, their slots, their inverses and its incoming links.
  private mutating func checkLinks(_ record: GraphRecord) {
    let state = record.state
    let model = state.model
    for index in model.relations where index < model.properties.count {
      let spec = model.properties[index]
      guard let relation = spec.relation else { continue }
      let link = index < state.links.count ? state.links[index] : .absent
      let slot = index < state.object.slots.count ? state.object.slots[index] : .absent
      if !Self.slotAgrees(slot, link) {
        broken(record, spec.name, "the value a handle shows is not the link the graph holds")
      }
      if case .many(let list) = link, list.count != Set(list.items.map(Identity.init)).count {
        broken(record, spec.name, "the list holds a record twice")
      }
      for target in link.records {
        guard !target.isDeleted, memory.record(target.keyRoot, target.key) === target else {
          broken(record, spec.name, "it holds the record \(target.key), which is not in the context")
          continue
        }
        if !target.state.incoming.contains(Incoming(record: record, property: index)) {
          broken(record, spec.name, "the record \(target.key) does not list it as incoming")
        }
        guard let back = relation.inverse else { continue }
        let targetLinks = target.state.links
        let holdsBack = back < targetLinks.count && targetLinks[back].records.contains { $0 === record }
        if !holdsBack {
          let name =
            back < target.state.model.properties.count ? target.state.model.properties[back].name : "?"
          broken(
            record, spec.name,
            "its inverse '\(target.state.model.name).\(name)' of \(target.key) does not hold it")
        }
      }
    }
    for source in state.incoming {
      let links = source.record.state.links
      let holds = source.property < links.count && links[source.property].records.contains { $0 === record }
      if source.record.isDeleted || !holds {
        broken(record, "", "the record \(source.record.key) is listed as linking to it, and does not")
      }
    }
  }

  /// True when a committed record's relationship slot shows `link`.
  static func slotAgrees(_ slot: Slot, _ link: Link) -> Bool {
    switch (slot, link) {
    case (.absent, .absent), (.null, .null): return true
    case (.leaf(let key), .one(let target)): return json_equal(key, target.keyJSON) != 0
    case (.array(let keys), .many(let list)):
      guard keys.count == list.count else { return false }
      for (key, target) in zip(keys, list.items) {
        guard case .leaf(let value) = key, json_equal(value, target.keyJSON) != 0 else { return false }
      }
      return true
    default: return false
    }
  }

  /// The file holds exactly the committed records, with the bodies memory would write.
  mutating func checkStore(_ store: GraphStore) {
    var stored = 0
    do throws(StrataError) {
      for (name, rows) in try store.loadEverything() {
        guard case .success(let type) = schema.modelType(name) else {
          broken(nil, "", "the file holds records of '\(name)', which the schema does not have")
          continue
        }
        for row in rows {
          stored += 1
          guard let key = RecordKey(json: row.key), let record = memory.record(type.keyRoot, key) else {
            broken(nil, "", "the file holds the '\(name)' record \(row.keyText), which memory does not")
            continue
          }
          guard let body = GraphCommit.body(record.state) else { continue }
          defer { JValue.release(body) }
          // the row's list of absent properties is the values' own business
          _ = json_object_del(row.body, "absent")
          if json_equal(body, row.body) == 0 {
            broken(
              record, "", "the file holds \(Mapper.show(row.body)); memory would write \(Mapper.show(body))")
          }
        }
      }
    } catch {
      broken(nil, "", "the file cannot be read: \(error.description)")
      return
    }
    let held = memory.index.values.reduce(0) { $0 + $1.count }
    if stored != held {
      broken(nil, "", "the file holds \(stored) records, memory \(held)")
    }
  }

  /// A record whose links are kept as keys (`GraphRecord.unmadeLinks`):
  /// one entry per relationship, and each relationship's keys are what its
  /// object shows and what the file's record links to.
  mutating func checkUnmade(
    _ record: GraphRecord, _ unmade: ContiguousArray<GraphLoading.UnmadeLink>, against file: GraphRecord
  ) {
    let model = record.storedState.model
    guard unmade.count == model.relations.count else {
      broken(record, "", "it keeps \(unmade.count) links as keys for \(model.relations.count) relationships")
      return
    }
    guard let own = record.storedState.object.dictionary(archive: true) else { return }
    defer { JValue.release(own) }
    func keys(_ records: ArraySlice<GraphRecord>) -> JPtr? {
      guard let array = json_array() else { return nil }
      for target in records { _ = json_array_append(array, target.keyJSON) }
      return array
    }
    for (position, index) in model.relations.enumerated() where index < model.properties.count {
      let name = model.properties[index].name
      let kept: JPtr?
      switch unmade[position] {
      case .none: kept = nil
      case .null: kept = json_null()
      case .one(let key): kept = key.makeJSON()
      case .many(let list):
        kept = json_array()
        for key in list { if let kept, let made = key.makeJSON() { _ = json_array_append_new(kept, made) } }
      case .unread(let count):
        // a lazy read makes its links at once (`GraphMemory.fill`)
        broken(record, name, "it keeps a list of \(count) targets unread as keys")
        continue
      }
      defer { if let kept { JValue.release(kept) } }
      let fileLink = index < file.state.links.count ? file.state.links[index] : .absent
      let stored: JPtr?
      switch fileLink {
      case .absent: stored = nil
      case .null: stored = json_null()
      case .one(let target): stored = JValue.retain(target.keyJSON)
      case .many(let list): stored = keys(list.items)
      }
      defer { if let stored { JValue.release(stored) } }
      let shown = json_object_get(own, name)
      func same(_ a: JPtr?, _ b: JPtr?) -> Bool {
        if let a, let b { return json_equal(a, b) != 0 }
        return a == nil && b == nil
      }
      if !same(kept, shown) {
        broken(
          record, name,
          "it keeps \(kept.map(Mapper.show) ?? "nothing") as its link's keys; its object shows \(shown.map(Mapper.show) ?? "nothing")"
        )
      } else if !same(kept, stored) {
        broken(
          record, name,
          "it keeps \(kept.map(Mapper.show) ?? "nothing") as its link's keys; the file holds \(stored.map(Mapper.show) ?? "nothing")"
        )
      }
    }
  }

  /// The cache of a file context holds the file's records (`memory` is the
  /// file read in whole): each record read has the file's values and
  /// links, links to the cache's own record of each key, and knows the
  /// file's incoming links when it says it does.
  mutating func checkCache(_ cache: GraphMemory) {
    for (root, records) in cache.index.sorted(by: { $0.key < $1.key }) {
      for (key, record) in records.sorted(by: { $0.key < $1.key }) {
        if record.key != key || record.keyRoot != root || record.isDeleted || record.isEvicted {
          broken(record, "", "the cache holds the record under another key, or deleted")
          continue
        }
        guard let file = memory.record(root, key) else {
          if !record.isFault { broken(record, "", "the cache holds a record the file does not") }
          continue
        }
        if record.isFault { continue }
        if record.staleObject { cache.showLists(record) }
        let state = record.storedState
        if let unmade = record.unmadeLinks {
          // a record read for a get keeps its links as keys (not made here:
          // checking must not change what it checks)
          checkUnmade(record, unmade, against: file)
        } else if let own = state.object.dictionary(archive: true) {
          // its object shows what its links hold
          defer { JValue.release(own) }
          if let linked = GraphOutput.materialize(state, schema: schema).dictionary(archive: true) {
            defer { JValue.release(linked) }
            if json_equal(own, linked) == 0 {
              broken(
                record, "", "its object shows \(Mapper.show(own)); its links \(Mapper.show(linked))")
            }
          }
        }
        if record.pendingLists != state.hasPendingLists {
          broken(record, "", "the cache's note of its unread lists is wrong")
        }
        // a list read lazily holds the file's targets after its unread ones
        var unreadNames: [String] = []
        for index in state.links.indices
        where state.links[index].isPending && index < state.model.properties.count {
          guard case .many(let held) = state.links[index] else { continue }
          let name = state.model.properties[index].name
          unreadNames.append(name)
          let fileLinks = file.state.links
          let whole = index < fileLinks.count ? Array(fileLinks[index].records) : []
          let tail = whole.dropFirst(held.unread)
          if whole.count != held.unread + held.count
            || !zip(tail, held.items).allSatisfy({ $0.key == $1.key })
          {
            broken(
              record, name,
              "the cache holds \(held.unread) targets unread and then [\(held.items.map { $0.key.description }.joined(separator: ", "))]; the file holds [\(whole.map { $0.key.description }.joined(separator: ", "))]"
            )
          }
        }
        if let held = GraphCommit.body(state), let stored = GraphCommit.body(file.state) {
          for name in unreadNames {
            for body in [held, stored] {
              if let values = json_object_get(body, "values") { json_object_del(values, name) }
            }
          }
          if json_equal(held, stored) == 0 {
            broken(record, "", "the cache holds \(Mapper.show(held)); the file \(Mapper.show(stored))")
          }
          JValue.release(held)
          JValue.release(stored)
        }
        for link in state.links {
          for target in link.records where cache.index.record(target.keyRoot, target.key) !== target {
            broken(
              record, "", "it links to a record \(target.key) that is not the cache's record of that key")
          }
        }
        guard record.incomingKnown else { continue }
        func named(_ entries: Set<Incoming>) -> [String] {
          entries.map {
            "\(schema.models[$0.record.keyRoot].name) \($0.record.key) through '\($0.record.state.model.properties[$0.property].name)'"
          }.sorted()
        }
        let known = named(state.incoming)
        let stored = named(file.state.incoming)
        if known != stored {
          broken(
            record, "",
            "the cache knows the links into it from [\(known.joined(separator: ", "))], the file holds [\(stored.joined(separator: ", "))]"
          )
        }
      }
    }
  }
}
