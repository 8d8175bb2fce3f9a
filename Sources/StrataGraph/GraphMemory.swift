import CJansson
import Strata

/// The records of a graph context in memory, by key space and key.
///
/// In memory only, it holds every record. On a file it is a cache: a record
/// is read from the file's tables when first asked for (`record`), the
/// records it links to are faults until used (`GraphRecord.isFault`), and
/// the links into a record are read when a change needs them
/// (`ensureIncoming`). The context drops the cache (`evict`) when another
/// connection wrote the file and when it holds more than its limit.
final class GraphMemory {
  /// keyRoot model index -> key -> record.
  var index = RecordIndex()
  /// Records read ahead (by a query, with its rows) as their stored
  /// values, by key space and key (owned): a fault of one is filled from
  /// here instead of the file. Emptied by `dropPrefetched()`.
  var prefetched: [Int: [RecordKey: RecordRows.Stored]] = [:]
  /// The lengths of the lists a record read ahead left unread (`readAhead`).
  var prefetchedUnread: [Int: [RecordKey: [String: Int]]] = [:]
  /// The row of the one record about to be asked for (`handOver`), taken
  /// before `prefetched` is looked in: a query hands each record its row
  /// so, instead of filing every row by key and finding it again.
  private var handed: RecordRows.Stored? = nil
  /// The key space and key of the record `handed` is the row of.
  private var handedRoot = -1
  private var handedKey = RecordKey.synthetic(0)
  /// Keys the file was found not to hold by a read ahead, until the call ends.
  var knownAbsent: [Int: Set<RecordKey>] = [:]
  /// The next synthetic key (records given no key).
  var nextSynthetic: Int64 = 1
  /// The file records are read from, or nil: memory holds every record.
  private(set) var store: GraphStore?
  /// The schema the records are of.
  let schema: Schema
  /// This cache's serial: the owner of the ties of its records
  /// (`RecordTie`), which the committed objects of these records hold; a
  /// handle whose record left the cache is found again by its key.
  let serial = CacheSerial.next()
  /// True when memory holds every record of the file (a new file, or one
  /// read in whole): a key memory does not hold is then not in the file.
  var complete = true
  /// The first error met while reading a record on demand: the call that
  /// met it fails with it (and the cache is dropped).
  var failure: StrataError?
  /// Set when a read of the file found it newer than the cache: the call
  /// that met it runs again on a dropped cache.
  var stale = false
  /// While a read call runs: the file's `data_version` the cache matches.
  /// The call's first read of the file opens a read transaction there
  /// (`startReading`), so that every record a call reads comes from one
  /// snapshot; a snapshot newer than the cache sets `stale`.
  var snapshotVersion: Int64?
  /// With `snapshotVersion`: the header of the file's write-ahead-log
  /// index when the cache was last found current (`GraphContext`'s
  /// `checkedHeader`), or nil when not known.
  var snapshotHeader: WALHeader?
  /// True once the running call opened its read transaction.
  private(set) var openedRead = false

  /// Tells that the call is about to read the file: opens the call's read
  /// transaction, once (inside a transaction already open, nothing to do).
  /// Whether its snapshot is newer than the cache is found when it ends
  /// (`endReading`).
  func startReading() {
    guard snapshotVersion != nil, !openedRead, let store, !store.connection.inTransaction else {
      return
    }
    openedRead = true
    do throws(StrataError) {
      try store.connection.beginReading()
    } catch {
      failure = failure ?? error
    }
  }

  /// Ends the call's read transaction, if it opened one. Before it ends,
  /// sets `stale` when its snapshot is newer than the cache: unless the
  /// log's header is still the one of the last check (nobody committed
  /// since, so the snapshot, taken after that check, is the cache's), the
  /// file's `data_version` in the snapshot tells.
  ///
  /// With `keepOpen`, a transaction whose snapshot is known to be the file
  /// as it is now (the header unchanged, no failure) is left open for the
  /// next call (`GraphContext`'s lingering read): answers true when it was.
  @discardableResult
  func endReading(keepOpen: Bool = false) -> Bool {
    let version = snapshotVersion
    snapshotVersion = nil
    guard openedRead else { return false }
    openedRead = false
    guard let store else { return false }
    var current = false
    if let version, failure == nil {
      let header = store.connection.inTransaction ? store.connection.walHeader() : nil
      if header == nil || header != snapshotHeader {
        do throws(StrataError) {
          if try store.connection.dataVersion() != version { stale = true }
        } catch {
          failure = error
        }
      } else {
        current = true
      }
    }
    // `current` means the header was read inside the transaction, still open
    if keepOpen && current { return true }
    try? store.connection.commitNow()
    return false
  }

  /// The number of the current call (`startCall`): a record is marked with
  /// it when the call reads it, looks it up or writes it.
  private(set) var generation = 0
  /// The number of records held, faults included.
  private(set) var count = 0
  /// The number of faults held (records known by key, not read yet): cheap,
  /// and held only while a record read links to them.
  private var faults = 0
  /// The number of records held that were read (or written).
  var readCount: Int { count - faults }
  /// What the cache's limit bounds: the records read, and the faults they
  /// link to at a quarter each (a fault is a key and a few references).
  var weight: Int { readCount + faults / 4 }
  /// The state a fault holds until it is read (a stub of the key space's
  /// model with nothing set), per key space; copies share its storage.
  private var placeholders: [Int: RecordState] = [:]

  init(schema: Schema) {
    self.schema = schema
  }

  /// Reads records from `store` on demand from now on; `complete` when
  /// memory holds every record of the file (read in whole, or none there).
  func readOnDemand(from store: GraphStore, complete: Bool) {
    self.store = store
    self.complete = complete
  }

  /// The committed record of key space `root` under `key`; on a file, read
  /// from it when memory does not hold it (`lazily`: its long lists left
  /// unread, as `fill`).
  func record(_ root: Int, _ key: RecordKey, lazily: Bool = false) -> GraphRecord? {
    if let held = index.record(root, key) {
      held.lastUse = generation
      return held
    }
    guard !complete, store != nil, knownAbsent[root]?.contains(key) != true else { return nil }
    guard let made = newFault(root, key) else { return nil }
    // the caller asks `state` (links made) or `shownState` (kept as keys)
    fill(made, linked: false, lazily: lazily, makingLinks: false)
    return made.isEvicted ? nil : made
  }

  /// Adds `record` (committed) under its key.
  func insert(_ record: GraphRecord) {
    record.lastUse = generation
    if index[record.keyRoot, default: [:]].updateValue(record, forKey: record.key) == nil { count += 1 }
  }

  /// Removes the record of key space `root` under `key`.
  func remove(_ root: Int, _ key: RecordKey) {
    if index[root]?.removeValue(forKey: key) != nil { count -= 1 }
  }

  /// The record of key space `root` under `key` that memory holds, or a
  /// fault of it (read from the file when first used).
  func fault(_ root: Int, _ key: RecordKey) -> GraphRecord? {
    if let held = index.record(root, key) { return held }
    return newFault(root, key)
  }

  /// A fault of the record of key space `root` under `key`, which memory
  /// does not hold (the caller looked).
  private func newFault(_ root: Int, _ key: RecordKey) -> GraphRecord? {
    guard let made = GraphRecord(key: key, keyRoot: root, state: placeholder(root), owner: serial) else {
      failure = failure ?? StrataError(code: .oom, message: "out of memory")
      return nil
    }
    insert(made)
    makeFault(made)
    return made
  }

  /// Makes a record held a fault: its state (links and incoming links
  /// included) becomes the placeholder, read again from the file when used.
  private func makeFault(_ record: GraphRecord) {
    record.storedState = placeholder(record.keyRoot)
    record.unmadeLinks = nil
    record.isFault = true
    record.pendingLists = false
    record.staleObject = false
    record.source = self
    record.incomingKnown = false
    faults += 1
  }

  /// The state a fault of key space `root` holds until it is read.
  private func placeholder(_ root: Int) -> RecordState {
    if let shared = placeholders[root] { return shared }
    let model = schema.models[root]
    let made = RecordState(
      model: model, object: ModelObject.make(schema: schema, type: model, count: model.properties.count),
      isStub: true)
    placeholders[root] = made
    return made
  }

  /// The longest to-many list a lazy read (`fill(lazily:)`) reads at once;
  /// a longer one is left unread (`RecordList.unread`) until someone looks
  /// at it. 16, or less for a cache too small to hold that many targets
  /// (`GraphContext.setCacheLimit`: a quarter of the limit; 0 for a cache
  /// of fewer than 4 records, which reads no list it can leave unread).
  var listReadAtOnce = 16
  /// The longest to-many list a commit writes into a record's committed
  /// object; a longer one is written when the object is first asked for
  /// (`GraphRecord.staleObject`, `showLists`), so a list that every import
  /// extends is not copied into a new object at each commit. 16, or less
  /// for a tiny cache, as `listReadAtOnce`.
  var listShownAtCommit = 16

  /// Reads a fault's state from the file. A record the file does not hold
  /// leaves memory (evicted: `record` answers nil); a record that cannot be
  /// read, or that another record links to (`linked`) and the file does
  /// not hold, sets `failure`. `lazily`, a to-many list longer than
  /// `listReadAtOnce` is left unread (`GraphRecord.pendingLists`), for a
  /// change that only appends to it; otherwise a record holding unread
  /// lists reads them now (`readLists`).
  ///
  /// A record read keeps its links as keys (`GraphRecord.unmadeLinks`)
  /// unless `makingLinks` or `lazily`; one that kept them makes them now
  /// when `makingLinks`.
  func fill(_ record: GraphRecord, linked: Bool = true, lazily: Bool = false, makingLinks: Bool = true) {
    if !record.isFault {
      if makingLinks && record.unmadeLinks != nil { makeLinks(record) }
      if record.pendingLists && !lazily { readLists(record) }
      if record.staleObject && !lazily && !record.pendingLists { showLists(record) }
      return
    }
    record.isFault = false
    record.lastUse = generation
    faults -= 1
    guard let store else { return }
    startReading()
    do throws(StrataError) {
      guard let state = try read(record, store, lazily: lazily) else {
        remove(record.keyRoot, record.key)
        record.isEvicted = true
        if linked {
          failure =
            failure
            ?? StrataError(
              code: .io,
              message:
                "the graph file is damaged: a record refers to the '\(schema.models[record.keyRoot].name)' record \(record.key), which is not in the file"
            )
        }
        return
      }
      record.storedState = state
      record.pendingLists = false
      // a lazy read (an import's) makes the links at once, with its unread lists
      if (makingLinks || lazily) && record.unmadeLinks != nil { makeLinks(record) }
    } catch {
      failure = failure ?? error
      remove(record.keyRoot, record.key)
      record.isEvicted = true
    }
  }

  /// Writes the long to-many lists a commit left out of the record's
  /// committed object into it (`GraphRecord.staleObject`).
  func showLists(_ record: GraphRecord) {
    _ = GraphOutput.materializeInPlace(record.storedState)
    record.staleObject = false
  }

  /// Reads the targets of the file a record's lists left unread (placed
  /// before the ones held), and shows the whole lists in its committed
  /// object. A failure sets `failure`, and the lists stay as they were.
  func readLists(_ record: GraphRecord) {
    guard record.pendingLists, let store else { return }
    startReading()
    var state = record.storedState
    let root = schema.models[record.keyRoot]
    do throws(StrataError) {
      for index in state.links.indices where state.links[index].isPending {
        guard case .many(let held) = state.links[index], index < state.model.properties.count,
          let relation = state.model.properties[index].relation, relation.target < schema.models.count
        else { continue }
        let name = state.model.properties[index].name
        let keys = try store.linkTargets(model: root.name, key: record.keyJSON, property: name)
        guard keys.count >= held.unread else {
          throw StrataError(
            code: .io,
            message:
              "the graph file changed under the cache: the '\(root.name)' record \(record.key) holds \(keys.count) targets through '\(name)', not \(held.unread) or more"
          )
        }
        let targetRoot = schema.models[relation.target].keyRoot
        var whole = RecordList()
        for key in keys.prefix(held.unread) {
          guard let target = fault(targetRoot, key) else {
            throw StrataError(code: .oom, message: "out of memory")
          }
          whole.append(target)
        }
        for target in held.items { whole.append(target) }
        state.links[index] = .many(whole)
      }
    } catch {
      failure = failure ?? error
      return
    }
    record.storedState = state
    record.pendingLists = false
    showLists(record)
  }

  /// Reads the links into `record` from the file, when they are not known
  /// yet: the records whose foreign-key columns or link rows hold its key.
  func ensureIncoming(_ record: GraphRecord) {
    guard !record.incomingKnown else { return }
    fill(record, lazily: true)  // a fault's state, read now, would replace what is set here
    record.incomingKnown = true
    guard let store else { return }
    startReading()
    let target = schema.models[record.keyRoot].name
    var incoming = Set<Incoming>()
    do throws(StrataError) {
      for referrer in store.referrers(to: target, schema: schema) {
        guard case .success(let ownerType) = schema.modelType(referrer.table.name) else { continue }
        for key in try store.owners(referrer, target: target, key: record.key) {
          guard let owner = self.record(ownerType.keyRoot, key, lazily: true) else { continue }
          guard let property = owner.lazyState.model.propertyIndex[referrer.property] else { continue }
          incoming.insert(Incoming(record: owner, property: property))
        }
      }
    } catch {
      failure = failure ?? error
      return
    }
    record.storedState.incoming = incoming
  }

  /// Every record, in no particular order.
  var records: [GraphRecord] { index.values.flatMap { $0.values } }

  /// Every record of key space `root`, in key order (on a file, read from
  /// it when memory does not hold them all).
  func readAll(_ root: Int) throws(StrataError) -> [GraphRecord] {
    try keys(root).compactMap { record(root, $0) }
  }

  /// The keys of every record of key space `root`, in key order.
  func keys(_ root: Int) throws(StrataError) -> [RecordKey] {
    if complete || store == nil { return (index[root] ?? [:]).keys.sorted() }
    guard let store else { return [] }
    startReading()
    return try store.keys(model: schema.models[root].name)
  }

  /// Makes the records used least recently faults again (their state and
  /// links dropped; read again when used) until the cache weighs at most
  /// half of `limit` (`weight`), never those the current call used (unless
  /// `keepingCurrent` is false: the end of a change), and forgets
  /// the links into every record (read again when needed); then drops from
  /// the cache every fault that no record held links to. What stays is what
  /// the latest calls used and the records it links to, known by key.
  func trim(to limit: Int, keepingCurrent: Bool = true) {
    guard store != nil else { return }
    var older: [GraphRecord] = []
    for records in index.values {
      for record in records.values where !record.isFault {
        // the links into a record kept are read again when needed: a record
        // many others link to (a tag, a popular user) holds no set of them all
        record.storedState.incoming = []
        record.incomingKnown = false
        if !keepingCurrent || record.lastUse != generation { older.append(record) }
      }
    }
    older.sort { $0.lastUse < $1.lastUse }
    for record in older {
      if weight <= limit / 2 { break }
      makeFault(record)
    }
    for root in Array(index.keys) {
      guard var records = index.removeValue(forKey: root) else { continue }
      for key in Array(records.keys) {
        guard records[key]?.isFault == true, var record = records.removeValue(forKey: key) else { continue }
        if isKnownUniquelyReferenced(&record) {
          count -= 1
          faults -= 1
        } else {
          records[key] = record
        }
      }
      if !records.isEmpty { index[root] = records }
    }
    complete = false
  }

  /// Holds `stored`, the whole row of the record of key space `root` under
  /// `key`, for the fill of that record alone (`takeHanded`); the row of
  /// a handover before it that no fill took is released.
  func handOver(_ root: Int, _ key: RecordKey, _ stored: RecordRows.Stored) {
    handed?.release()
    handed = stored
    handedRoot = root
    handedKey = key
  }

  /// The row handed over for the record of key space `root` under `key`
  /// (owned by the caller from now on), or nil.
  func takeHanded(_ root: Int, _ key: RecordKey) -> RecordRows.Stored? {
    guard handedRoot == root, handed != nil, handedKey == key else { return nil }
    defer { handed = nil }
    return handed
  }

  /// Releases the records read ahead that no fault used.
  func dropPrefetched() {
    handed?.release()
    handed = nil
    for rows in prefetched.values { for stored in rows.values { stored.release() } }
    prefetched = [:]
    prefetchedUnread = [:]
    knownAbsent = [:]
  }

  /// Keeps what a read ahead of key space `root` found (`GraphStore.prefetch`)
  /// until the records are used or the call ends (`dropPrefetched`).
  func readAhead(_ root: Int, _ read: GraphStore.Prefetched) {
    for entry in read.found {
      if let old = prefetched[root, default: [:]].updateValue(entry.stored, forKey: entry.key) {
        old.release()
      }
      if !entry.unread.isEmpty { prefetchedUnread[root, default: [:]][entry.key] = entry.unread }
    }
    if !read.absent.isEmpty { knownAbsent[root, default: []].formUnion(read.absent) }
  }

  /// Starts a call: the records it uses are marked with a new generation
  /// (see `trim`).
  func startCall() { generation &+= 1 }

  /// Drops every record from the cache (on a file: they are read again on
  /// demand). Handles of them find their records again by key.
  func evict() {
    for record in records { record.evict() }
    index = [:]
    count = 0
    faults = 0
    if store != nil { complete = false }
  }

  /// Drops every record, breaking the reference cycles between them. A
  /// large graph's links and index are let go of on a helper thread
  /// (`ReleaseAside`); each record is marked deleted here, at once.
  func clear() {
    guard count >= ReleaseAside.from else {
      for record in records { record.clear() }
      index = [:]
      count = 0
      faults = 0
      return
    }
    var held: [Any] = []
    do {
      // no reference to a record outlives this block but those in `held`
      let all = records
      held.reserveCapacity(2 * all.count + 1)
      for record in all {
        held.append(record.storedState.links)
        held.append(record.storedState.incoming)
        record.clear()
      }
    }
    held.append(index)
    index = [:]
    ReleaseAside.release(consume held)
    count = 0
    faults = 0
  }
}
