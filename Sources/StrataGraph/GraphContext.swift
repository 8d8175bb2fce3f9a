import CJansson
import Glibc
import Strata

// Long because every call of the context (import, get, count, delete,
// related, the nested forms) takes its lock and checks its private state
// (closed, an import running, the store) before it starts; splitting the
// calls across files would widen that state to the whole module.

/// A graph context: the uniqued records of a schema's models, in memory,
/// or in an SQLite file (Sources/Strata/Graph/Store) with memory as a
/// bounded cache of it.
///
/// Every call takes the context's lock, so a context may be shared between
/// threads; calls run one at a time. An import works on drafts and commits
/// to the file and then to memory only when all of it succeeded.
package final class GraphContext: @unchecked Sendable {
  /// The schema.
  package let schema: Schema
  /// The file, or nil for a context in memory only.
  package let path: String?
  let memory: GraphMemory
  package internal(set) var store: GraphStore?
  private var closed = false
  /// True while an import or delete runs (a callback may read, not change).
  private var changing = false
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  /// How long a change waits for another writer's lock on the file, in
  /// milliseconds, before it fails with an `io` error (SQLITE_BUSY): long
  /// enough for several processes importing pages at once to take turns.
  static let busyTimeout: Int32 = 30_000
  /// How many records the cache of a file holds at most between calls
  /// before it is dropped (records are read again on demand).
  private var cacheLimit = 50_000
  /// Texts at least this long are parsed on a helper thread while they are
  /// imported (`parseAheadDefault`); tests set 0 (always) or `Int.max` (never).
  package var parseAheadBytes = GraphContext.parseAheadDefault
  /// False to import every text on the mapper's path (`importModels` is
  /// skipped): for tests that compare the two paths.
  package var directImports = true
  /// How many imports went straight from bytes to records (`importModels`).
  package private(set) var directImportCount = 0
  /// The file's `data_version` when the cache was last known to match it:
  /// another connection's commit changes it, and the cache is then dropped.
  private var seenVersion: Int64 = 0
  /// The header of the file's write-ahead-log index when a read call last
  /// found the cache current (`refreshIfCommitted`).
  private var checkedHeader: WALHeader?
  /// How many read blocks are open (`beginReading`): while one is, the
  /// calls of the context read one snapshot of the file, held by a read
  /// transaction from the block's first call (or from after its last
  /// change) to its end, and no call asks the file whether another
  /// connection wrote it.
  private var readBlocks = 0
  /// True while the read transaction of the last read call is left open
  /// for the next one (`LingeringReads`): its snapshot is the file as it
  /// was when the log's header was `checkedHeader`, which is the cache's
  /// (a header that moves ends it before `checkedHeader` changes).
  private var lingering = false
  /// When the lingering read is to end if no call comes (monotonic, ns).
  private var lingerUntil: Int64 = 0
  /// True while `LingeringReads` watches the context.
  private var lingerWatched = false
  /// How many times the running change's write transaction has begun: more
  /// than once when the database gave it up and it runs again (PostgreSQL's
  /// serialization failures and deadlocks; `finish` warns of it).
  private var writeAttempts = 0
  /// What a context in memory keeps of the pages it fetched, by URL (a
  /// context on a database keeps it there, `FetchCache`).
  var fetchedPages: [String: FetchCache.Entry] = [:]

  /// Opens a context: in memory (`path` nil or ":memory:"), or on the SQLite
  /// file at `path` (created when missing). Only the file's metadata is read
  /// (a file of an older format or schema version is converted first, in
  /// one write transaction); records are read on demand.
  package init(schema: Schema, path: String?) throws(StrataError) {
    self.schema = schema
    self.path = path == ":memory:" ? nil : path
    memory = GraphMemory(schema: schema)
    mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
    pthread_mutex_init(mutex, &attributes)
    pthread_mutexattr_destroy(&attributes)
    if let file = self.path {
      do throws(StrataError) {
        let opened = try GraphStore(path: file, schema: schema, busyTimeout: Self.busyTimeout)
        store = opened
        // read before the records: a commit in between is found by the next call
        seenVersion = try opened.connection.dataVersion()
        if opened.needsRewrite {
          // converted or migrated now, in one transaction, read while at it
          try GraphLoading.load(opened, into: memory, schema: schema)
          memory.readOnDemand(from: opened, complete: true)
        } else {
          memory.readOnDemand(from: opened, complete: try opened.holdsNoRecord())
        }
      } catch {
        store?.close()
        memory.clear()
        throw error
      }
    }
  }

  deinit {
    // first: the helper that ends reads left open calls the contexts it
    // watches without retaining them, under its lock, which this waits for
    LingeringReads.forget(self)
    memory.clear()
    store?.close()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` under the lock, refusing a closed context. On a file, the
  /// cache is dropped first when another connection wrote the file (see
  /// `refresh`), and the records `body` reads come from one snapshot of the
  /// file: the first read opens a read transaction, which finds the file
  /// as the cache knew it, or else `body` runs again inside one on a
  /// dropped cache. A record that cannot be read fails the call.
  func locked<R>(_ body: () -> Result<R, StrataError>) -> Result<R, StrataError> {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    if closed { return .failure(StrataError(code: .argument, message: "the context is closed")) }
    guard let store, !changing else { return body() }
    memory.startCall()
    if readBlocks > 0 {
      endLingeringRead(store)
      do throws(StrataError) { try holdSnapshot(store) } catch { return .failure(error) }
      return settled(body(), store)
    }
    let header = store.connection.walHeader()
    if lingering && (header == nil || header != checkedHeader || !store.connection.inTransaction) {
      endLingeringRead(store)
    }
    do throws(StrataError) {
      try refreshIfCommitted(store, header: header)
    } catch {
      return .failure(error)
    }
    memory.snapshotVersion = seenVersion
    memory.snapshotHeader = checkedHeader
    var result = body()
    if memory.endReading(keepOpen: true) { lingering = true }
    if lingering { keepLingering(store) }
    if memory.stale && memory.failure == nil {
      memory.stale = false
      memory.evict()
      do throws(StrataError) {
        result = try store.connection.readTransaction { () throws(StrataError) -> Result<R, StrataError> in
          try refresh(store)
          return body()
        }
      } catch {
        result = .failure(error)
      }
    }
    return settled(result, store)
  }

  /// The result of a call on a file: the error of a record that could not
  /// be read, if one could not (the cache is then dropped); the cache
  /// brought within its limit (`fitCache`).
  private func settled<R>(_ result: Result<R, StrataError>, _ store: GraphStore, change: Bool = false)
    -> Result<R, StrataError>
  {
    memory.stale = false
    if let failure = memory.failure {
      memory.failure = nil
      memory.evict()
      endLingeringRead(store)
      return .failure(failure)
    }
    fitCache(store, change: change)
    return result
  }

  /// Brings the cache within `cacheLimit` when it weighs more: the records
  /// used least recently are dropped down to half the limit, all of them
  /// for a limit of 0. After a read, the records the call used stay; after
  /// a change (an import of more records than the limit), they may go too,
  /// so that the change, not the next read, pays for its records leaving.
  private func fitCache(_ store: GraphStore, change: Bool = false) {
    guard memory.weight > cacheLimit, store.readsOnDemand else { return }
    if cacheLimit == 0 { memory.evict() } else { memory.trim(to: cacheLimit, keepingCurrent: !change) }
  }

  /// Runs a change under the lock; a change from inside another (a callback)
  /// is refused. On a file, the change runs inside one write transaction
  /// that holds the file's write lock from before the cache is checked
  /// against the file until its commit: two contexts, threads or processes
  /// writing one file take turns, and each builds on what the other
  /// committed (the records a change touches are read inside it).
  func changingLocked<R>(_ body: () -> Result<R, StrataError>) -> Result<R, StrataError> {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    if closed { return .failure(StrataError(code: .argument, message: "the context is closed")) }
    if changing {
      return .failure(
        StrataError(
          code: .argument, message: "the context is importing: a callback may read it, not change it"))
    }
    changing = true
    defer { changing = false }
    guard let store else { return body() }
    memory.startCall()
    // a change writes the file as it is now: the last read's snapshot ends
    endLingeringRead(store)
    // a change inside a read block ends the block's snapshot: the block's
    // later calls read the file as it is after the change
    if readBlocks > 0 { try? store.connection.commitNow() }
    guard !store.isReadOnly else {
      do throws(StrataError) { try refresh(store) } catch { return .failure(error) }
      return settled(body(), store, change: true)
    }
    let result: Result<R, StrataError>
    writeAttempts = 0
    do throws(StrataError) {
      result = .success(
        try store.connection.writeTransaction { () throws(StrataError) -> R in
          writeAttempts += 1
          // a run again starts from the database: the cache may hold what the given-up run read
          if writeAttempts > 1 { memory.evict() }
          try refresh(store)
          if !memory.complete {
            memory.nextSynthetic = max(memory.nextSynthetic, try store.largestSyntheticKey() + 1)
          }
          return try body().get()
        })
    } catch {
      result = .failure(error)
    }
    return settled(result, store, change: true)
  }

  /// Drops the cache when another connection committed to the file since
  /// it was last checked (its `data_version` moved): records are read again
  /// on demand (a file read in whole because it cannot be read record by
  /// record is read in again). A file migrated meanwhile to a newer schema
  /// version is an `argument` error.
  private func refresh(_ store: GraphStore) throws(StrataError) {
    let version = try store.connection.dataVersion()
    if version == seenVersion { return }
    try store.reloadMeta()
    memory.evict()
    if !store.readsOnDemand {
      try GraphLoading.load(store, into: memory, schema: schema)
      memory.complete = true
    }
    seenVersion = version
  }

  /// `refresh`, skipped when nobody committed to the file since a read
  /// call last found the cache current: `header`, the header of the file's
  /// write-ahead-log index read by the caller, is the same (a read of shared
  /// memory, where `refresh` runs a statement). The header is read before
  /// `refresh` asks, so that a commit landing in between changes it, and the
  /// next call asks.
  private func refreshIfCommitted(_ store: GraphStore, header: WALHeader?) throws(StrataError) {
    if let header, header == checkedHeader { return }
    checkedHeader = nil
    try refresh(store)
    checkedHeader = header
  }

  /// Ends the read transaction the last read call left open, if it did.
  private func endLingeringRead(_ store: GraphStore) {
    guard lingering else { return }
    lingering = false
    try? store.connection.commitNow()
  }

  /// Moves the lingering read's end to `LingeringReads.idle` from now, and
  /// has the helper watch the context if it does not yet (when no helper
  /// can run, the read ends now).
  private func keepLingering(_ store: GraphStore) {
    lingerUntil = LingeringReads.now() + LingeringReads.idle
    guard !lingerWatched else { return }
    lingerWatched = LingeringReads.watch(self, until: lingerUntil)
    if !lingerWatched { endLingeringRead(store) }
  }

  /// For `LingeringReads`, at `now`: ends the lingering read if the context
  /// has been idle for `LingeringReads.idle`. Answers when to look again
  /// (the context is in a call, or was used since), or nil when it need not
  /// be watched any more (the read ended, or none is open).
  func endLingeringRead(ifIdleAt now: Int64) -> Int64? {
    guard pthread_mutex_trylock(mutex) == 0 else { return now + LingeringReads.idle }
    defer { pthread_mutex_unlock(mutex) }
    if lingering, store != nil, now < lingerUntil { return lingerUntil }
    if let store { endLingeringRead(store) }
    lingerWatched = false
    return nil
  }

  /// Opens the read transaction of the open read blocks, if none is open
  /// (the block's first call, or the first after a change), and drops the
  /// cache when another connection wrote the file since it was last
  /// checked.
  private func holdSnapshot(_ store: GraphStore) throws(StrataError) {
    guard !store.connection.inTransaction else { return }
    try store.connection.beginReading()
    do {
      try refresh(store)
    } catch {
      try? store.connection.commitNow()
      throw error
    }
  }

  /// Opens a read block: until the matching `endReading`, every call of the
  /// context (from any thread) reads one snapshot of the file, whatever
  /// other connections commit meanwhile, and no call checks the file for
  /// their commits, so that many reads in a row cost what they cost in
  /// memory. Blocks nest; a change (import, delete) inside one ends its
  /// snapshot, and the block's next read takes a new one. In memory, a
  /// block changes nothing. Other writers' commits wait for nothing, but
  /// the file's write-ahead log cannot be folded back past the snapshot
  /// while the block is open: keep blocks short.
  package func beginReading() -> Result<Void, StrataError> {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    if closed { return .failure(StrataError(code: .argument, message: "the context is closed")) }
    readBlocks += 1
    return .success(())
  }

  /// Closes the innermost read block (`beginReading`); the last one ends
  /// the block's snapshot. Without an open block, an `argument` error. On
  /// a context closed inside the block, the block just ends.
  package func endReading() -> Result<Void, StrataError> {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    guard readBlocks > 0 else {
      return .failure(StrataError(code: .argument, message: "no read block is open on the context"))
    }
    readBlocks -= 1
    if readBlocks == 0, !changing, let store {
      lingering = false
      try? store.connection.commitNow()
    }
    return .success(())
  }

  /// Closes the context: the file is closed and every later call is an
  /// `argument` error. Record handles stay readable as models. Idempotent.
  package func close() {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    if closed || changing { return }
    closed = true
    if let store { endLingeringRead(store) }
    memory.clear()
    store?.close()
    store = nil
  }

  /// Sets how many records the cache of a file may hold between calls
  /// (0: none are kept after a call); it is dropped when it holds more.
  package func setCacheLimit(_ records: Int) -> Result<Void, StrataError> {
    locked { () -> Result<Void, StrataError> in
      guard records >= 0 else {
        return .failure(StrataError(code: .argument, message: "the cache limit cannot be negative"))
      }
      cacheLimit = records
      memory.listReadAtOnce = min(16, records / 4)
      memory.listShownAtCommit = memory.listReadAtOnce
      if let store { fitCache(store) }
      return .success(())
    }
  }

  /// Reads up to `bytes` of the context's SQLite file through a memory map
  /// (`PRAGMA mmap_size`; 0, the default, turns it off): a cold read then
  /// takes its pages from the operating system's cache without a copy. A
  /// context in memory or on PostgreSQL takes the call and maps nothing.
  /// Refused inside a read block (its snapshot holds pages of the file).
  /// The price (docs/graph.md, "Reading through a memory map"): an I/O error
  /// of the disk, or the file cut short by a program that does not lock it
  /// as SQLite does, stops the process with SIGBUS instead of failing a call.
  package func setMemoryMap(_ bytes: Int) -> Result<Void, StrataError> {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    if closed { return .failure(StrataError(code: .argument, message: "the context is closed")) }
    guard bytes >= 0 else {
      return .failure(StrataError(code: .argument, message: "the memory map's size cannot be negative"))
    }
    guard readBlocks == 0, !changing else {
      return .failure(
        StrataError(code: .argument, message: "the memory map cannot change inside a read block or an import")
      )
    }
    guard let store, let sqlite = store.sqlite else { return .success(()) }
    endLingeringRead(store)
    do throws(StrataError) {
      try sqlite.setMemoryMap(Int64(bytes))
    } catch {
      return .failure(error)
    }
    return .success(())
  }

  /// How many bytes of the file the context reads through a memory map now
  /// (`setMemoryMap`; 0 when none, in memory, or on PostgreSQL).
  package func memoryMap() -> Result<Int, StrataError> {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    if closed { return .failure(StrataError(code: .argument, message: "the context is closed")) }
    guard let sqlite = store?.sqlite else { return .success(0) }
    do throws(StrataError) {
      return .success(Int(try sqlite.memoryMap()))
    } catch {
      return .failure(error)
    }
  }

  /// The cache's limit and the number of records it holds now (in memory
  /// only: every record, and no limit applies).
  package func cacheInfo() -> Result<(limit: Int, held: Int), StrataError> {
    locked { () -> Result<(limit: Int, held: Int), StrataError> in .success((cacheLimit, memory.readCount)) }
  }

  /// The records the cache holds: `all`, faults (records known by key,
  /// not read) included, and `read`, without them; for tests.
  package var cacheCounts: (read: Int, all: Int) {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return (memory.readCount, memory.count)
  }

  /// True while the last read call's read transaction is left open for
  /// the next call (`LingeringReads`), for tests.
  package var holdsLingeringRead: Bool {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return lingering && store?.connection.inTransaction == true
  }

  /// True once closed.
  package var isClosed: Bool {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return closed
  }

  // MARK: models

  /// The model named `name`, which must have a primary key.
  func recordType(_ name: String) -> Result<ModelType, StrataError> {
    switch schema.modelType(name) {
    case .failure(let error): return .failure(error)
    case .success(let type):
      if type.primaryKey.isEmpty {
        return .failure(
          StrataError(
            code: .argument,
            message: "model '\(name)' has no primaryKey: only models with a primaryKey are records of a graph"
          ))
      }
      return .success(type)
    }
  }

  // MARK: importing

  /// Imports the records of `model` in `response` (borrowed): one transaction.
  package func importValue(_ model: String, _ response: JPtr, _ request: ImportRequest) -> Result<
    ImportOutcome, StrataError
  > {
    changingLocked { () -> Result<ImportOutcome, StrataError> in
      importTarget(model, request).flatMap { importResolved($0.type, $0.shape, response, request) }
    }
  }

  /// The record model named `model` and where its records and metadata sit
  /// in a response, with the request's root and meta over the model's.
  private func importTarget(_ model: String, _ request: ImportRequest) -> Result<
    (type: ModelType, shape: ResponseShape), StrataError
  > {
    recordType(model).flatMap { type in schema.responseShape(type, request.response).map { (type, $0) } }
  }

  /// Imports the records of `type` in `response` (borrowed) where `shape`
  /// places them, with the metadata; the caller holds the change lock.
  private func importResolved(
    _ type: ModelType, _ shape: ResponseShape, _ response: JPtr, _ request: ImportRequest
  ) -> Result<ImportOutcome, StrataError> {
    defer { memory.dropPrefetched() }
    do throws(StrataError) {
      try prefetch(response, type, root: shape.root)
    } catch {
      return .failure(error)
    }
    var importer = GraphImporter(schema: schema, memory: memory)
    importer.tracksSeen = request.orphans != nil
    let records = importer.importResponse(response, type: type, root: shape.root)
    // the metadata is a plain model (never a record of the graph), mapped
    // as map_response maps it; its errors fail the import as the records' do
    var metadata: ModelObject? = nil
    if let meta = shape.metadata(in: schema) {
      var mapper = Mapper(schema: schema, mode: .json)
      metadata = mapper.mapMetadata(response, type: meta.type, location: meta.location)
      importer.mapper.errors += mapper.errors
    }
    return finish(&importer, records, request, metadata: metadata)
  }

  /// Imports a top-level array of records of `model` read element by
  /// element (each released before the next is built); nil when the text is
  /// not such an array or holds anything unusual (then nothing happened and
  /// the caller takes the whole-text path).
  private func importElements(_ model: String, _ bytes: UnsafeBufferPointer<UInt8>, _ request: ImportRequest)
    -> Result<ImportOutcome, StrataError>?
  {
    // metadata is mapped from the whole response: whole-text path
    guard case .success(let (type, shape)) = importTarget(model, request), !type.primaryKey.isEmpty,
      shape.meta == nil
    else { return nil }
    let plan = schema.parsePlans.plan(type, in: schema)
    let root = shape.root?.keys ?? []
    let rootBytes = root.map { Array($0.name.utf8) }
    let outcome = changingLocked { () -> Result<ImportOutcome?, StrataError> in
      // no key injector (the host's code sees jansson objects): straight
      // from the bytes to records,
      // unless the text holds what only the mapper's path takes
      if directImports, schema.keyInjectors.isEmpty {
        var direct = GraphImporter(schema: schema, memory: memory)
        direct.tracksSeen = request.orphans != nil
        defer { memory.dropPrefetched() }
        do throws(StrataError) {
          if let records = try importModels(&direct, bytes, type, root: root) {
            directImportCount += 1
            return finish(&direct, records, request).map { $0 }
          }
        } catch {
          return .failure(error)
        }
      }
      var importer = GraphImporter(schema: schema, memory: memory)
      // errors in the records are placed under the root, as the whole-text path places them
      importer.elementSteps = root.map { PathStep.name($0.name) }
      importer.tracksSeen = request.orphans != nil
      importer.retainsInputs = true
      defer { importer.releaseInputs() }
      var records: [GraphRecord] = []
      // a cache that does not hold the whole file reads the records of the
      // page ahead, a window of elements at a time (kept until then; a small
      // window stays in the processor's cache between parse and import)
      let readsAhead = !memory.complete && memory.store != nil
      var imported = 0
      var failure: StrataError? = nil
      defer { memory.dropPrefetched() }
      func importWindow(_ window: [JPtr]) {
        if failure == nil {
          do throws(StrataError) {
            if readsAhead { try prefetch(window, type) }
            for (offset, element) in window.enumerated() {
              if let record = importer.importElement(element, type, position: imported + offset) {
                records.append(record)
              }
            }
          } catch {
            failure = error
          }
        }
        for element in window { JValue.release(element) }
        imported += window.count
      }
      // objects repeated byte for byte are shared, unless a key injector (the host's code) gets them
      let interning = schema.keyInjectors.isEmpty
      let want = Want.object(PlanRef(plan: plan))
      let streamed: Bool?
      var stopped = false
      if bytes.count >= parseAheadBytes {
        // a long text is parsed on a helper thread, windows ahead of the import
        streamed =
          Overlap.run(
            depth: readsAhead ? 2 : 8,
            produce: { (channel: Overlap.Channel<JPtr>) -> Bool? in
              Self.parseWindows(
                bytes, want, root: rootBytes, interning: interning,
                windows: readsAhead ? GraphStore.prefetchChunk : Self.parseWindow, into: channel)
            },
            consume: { window in
              importWindow(window)
              stopped = failure != nil
              return !stopped
            },
            drop: { window in for element in window { JValue.release(element) } }) ?? nil
      } else {
        var kept: [JPtr] = []
        streamed = PrunedParser.forEachElement(bytes, want, root: rootBytes, interning: interning) {
          element, position in
          if readsAhead {
            kept.append(element)
            if kept.count == GraphStore.prefetchChunk {
              importWindow(kept)
              kept = []
            }
            return true
          }
          if let record = importer.importElement(element, type, position: position) { records.append(record) }
          JValue.release(element)
          return true
        }
        if streamed == true {
          importWindow(kept)
        } else {
          for element in kept { JValue.release(element) }
        }
      }
      // (a parse stopped because the import failed ends with that failure)
      guard streamed == true || stopped else { return .success(nil) }
      if let failure { return .failure(failure) }
      return finish(&importer, importer.mapper.errors.isEmpty ? records : nil, request).map { $0 }
    }
    switch outcome {
    case .failure(let error): return .failure(error)
    case .success(let finished): return finished.map { .success($0) }
    }
  }

  /// The end of an import: the orphan rules, then the commit.
  private func finish(
    _ importer: inout GraphImporter, _ records: [GraphRecord]?, _ request: ImportRequest,
    metadata: ModelObject? = nil
  ) -> Result<ImportOutcome, StrataError> {
    do {
      guard let records, importer.mapper.errors.isEmpty else {
        return .failure(StrataError(importer.mapper.errors))
      }
      if let rule = request.orphans {
        let contained = rule.topLevelOnly ? Set(records.map(Identity.init)) : importer.seen
        if case .failure(let error) = deleteOrphans(rule, &importer, contained: contained) {
          return .failure(error)
        }
      }
      importer.transaction.deleteOrphans()
      if !importer.transaction.refusals.isEmpty {
        return .failure(StrataError(importer.transaction.refusals))
      }
      let changes: GraphCommit.Counts
      do throws(StrataError) {
        changes = try GraphCommit.commit(&importer.transaction, memory: memory, store: store)
      } catch {
        return .failure(error)
      }
      if writeAttempts > 1 {
        importer.warnings.append(
          ImportWarning(
            path: "", model: "",
            message:
              "the database gave up the import's transaction \(writeAttempts - 1) time(s) (a serialization failure or a deadlock): it ran again and committed once"
          ))
      }
      let changed = Set(changes.changed.map(Identity.init))
      let unchanged = importer.updated.filter { !$0.isDeleted && !changed.contains(Identity($0)) }
      return .success(
        ImportOutcome(
          records: records.map(\.state.object), created: changes.created,
          updated: Self.countByModel(changes.changed), unchanged: Self.countByModel(unchanged),
          deleted: changes.deleted, warnings: importer.warnings, metadata: metadata))
    }
  }

  /// How many of `records` each model has, models in the order first met.
  private static func countByModel(_ records: [GraphRecord]) -> [(String, Int)] {
    var counts: [String: Int] = [:]
    var order: [String] = []
    for record in records {
      let name = record.lazyState.model.name
      if counts[name] == nil { order.append(name) }
      counts[name, default: 0] += 1
    }
    return order.map { ($0, counts[$0] ?? 0) }
  }

  /// Deletes the records in the rule's scope that the import did not meet
  /// (`contained`: the records the response counts as holding).
  private func deleteOrphans(
    _ rule: OrphanRule, _ importer: inout GraphImporter, contained: Set<Identity>
  ) -> Result<Void, StrataError> {
    let type: ModelType
    switch recordType(rule.model) {
    case .failure(let error): return .failure(error)
    case .success(let found): type = found
    }
    var scope: [(Int, JPtr)] = []
    for (name, value) in rule.scope {
      guard let index = type.propertyIndex[name] else {
        return .failure(
          StrataError(
            code: .argument,
            message: "the orphan rule's 'where' names '\(name)', which is not a property of '\(type.name)'"
              + Suggestion.hint(for: name, among: type.properties.map(\.name))))
      }
      if case .failure(let error) = checkScopeValue(value, type, index) { return .failure(error) }
      scope.append((index, value))
    }
    let keys: [RecordKey]
    do throws(StrataError) {
      keys = try memory.keys(type.keyRoot)
    } catch {
      return .failure(error)
    }
    for key in keys {
      guard let record = importer.transaction.lookup(type.keyRoot, key) else { continue }
      let state = record.state
      guard state.model.isSelfOrDescendant(of: type), !contained.contains(Identity(record)),
        !importer.transaction.isDeleted(record)
      else { continue }
      let object = state.object
      var inScope = true
      for (index, value) in scope {
        guard index < object.slots.count, let current = Serializer.canonical(object.slots[index]) else {
          inScope = false
          break
        }
        defer { JValue.release(current) }
        if json_equal(current, value) == 0 {
          inScope = false
          break
        }
      }
      if !inScope { continue }
      if let keep = rule.keep, keep(object) { continue }
      importer.transaction.delete(record)
    }
    return .success(())
  }

  /// An orphan rule's `where` value must be what the property can hold
  /// (its canonical form; a relationship: the related record's key), as a
  /// key given to `get` must: anything else would silently match nothing.
  private func checkScopeValue(_ value: JPtr, _ type: ModelType, _ index: Int) -> Result<Void, StrataError> {
    let spec = type.properties[index]
    let failed: [ErrorDetail]
    if let relation = spec.relation, relation.target < schema.models.count {
      if JValue.isNull(value) && spec.type.acceptsNull { return .success(()) }
      guard case .failure(let error) = readKey(value, schema.models[relation.target]) else {
        return .success(())
      }
      failed = error.errors
    } else {
      var reader = Mapper(schema: schema, mode: .canonical)
      reader.read(value, type: spec.type, model: type, property: index).release()
      failed = reader.errors
    }
    if failed.isEmpty { return .success(()) }
    return .failure(
      StrataError(
        failed.map { detail in
          var located = detail
          located.path = "/delete_orphans/where/" + JSONPointer.escape(spec.name) + detail.path
          located.message = "the orphan rule's 'where' value of '\(spec.name)': \(detail.message)"
          return located
        }))
  }

  // MARK: reading

  /// The record of `model` under `key` (borrowed: the key's canonical value,
  /// a list for a composite key), nil when there is none.
  package func record(_ model: String, key: JPtr) -> Result<ModelObject?, StrataError> {
    locked { () -> Result<ModelObject?, StrataError> in
      if let last = lastGetType, last.name == model { return record(of: last.type, key: key) }
      return recordOfNewType(model, key: key)
    }
  }

  /// `record(_:key:)` with the model's name as a C string (borrowed): a C
  /// host's gets of one model compare the name's bytes with the last get's
  /// instead of making a Swift string of it each call.
  package func record(named model: UnsafePointer<CChar>, key: JPtr) -> Result<ModelObject?, StrataError> {
    locked { () -> Result<ModelObject?, StrataError> in
      if let last = lastGetType, Self.equal(last.name, model) { return record(of: last.type, key: key) }
      return recordOfNewType(String(cString: model), key: key)
    }
  }

  /// True when `name` holds the bytes of the C string `text`, no more.
  private static func equal(_ name: String, _ text: UnsafePointer<CChar>) -> Bool {
    var name = name
    return name.withUTF8 { bytes in
      guard let base = bytes.baseAddress, !bytes.isEmpty else { return text[0] == 0 }
      let count = bytes.count
      let bytesAsText = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
      return strncmp(text, bytesAsText, count) == 0 && text[count] == 0
    }
  }

  /// A get of a model other than the last one's (under the lock): finds its
  /// type and keeps it for the next get.
  private func recordOfNewType(_ model: String, key: JPtr) -> Result<ModelObject?, StrataError> {
    switch recordType(model) {
    case .failure(let error): return .failure(error)
    case .success(let found):
      lastGetType = (model, found)
      return record(of: found, key: key)
    }
  }

  /// The record of `type` under `key`, nil when there is none (under the lock).
  private func record(of type: ModelType, key: JPtr) -> Result<ModelObject?, StrataError> {
    switch readKey(key, type) {
    case .failure(let error): return .failure(error)
    case .success(let recordKey):
      guard let record = memory.record(type.keyRoot, recordKey),
        record.shownState.model.isSelfOrDescendant(of: type)
      else { return .success(nil) }
      return .success(record.shownState.object)
    }
  }

  /// The model of the last `record(_:key:)`, by name (read and set under
  /// the lock): gets by key repeated for one model find its type without
  /// hashing its name each time.
  private var lastGetType: (name: String, type: ModelType)? = nil

  /// A key given to `get`, read through the key properties' types.
  func readKey(_ key: JPtr, _ type: ModelType) -> Result<RecordKey, StrataError> {
    if JValue.isObject(key), let synthetic = RecordKey(json: key), case .synthetic = synthetic {
      return .success(synthetic)
    }
    let keys = type.primaryKey
    // one plain key property (the common case): read in place, no list of parts
    if keys.count == 1, keys[0] < type.properties.count, type.properties[keys[0]].rules == nil,
      let plain = Self.plainKey(key, type.properties[keys[0]].type)
    {
      return .success(plain)
    }
    var parts: [RecordKey] = []
    for (position, index) in keys.enumerated() where index < type.properties.count {
      let value: JPtr?
      if keys.count == 1 {
        value = key
      } else {
        guard JValue.isArray(key), json_array_size(key) == keys.count else {
          return .failure(
            StrataError(
              code: .type,
              message: "a key of '\(type.name)' is a list of \(keys.count) values, found \(Mapper.show(key))")
          )
        }
        value = json_array_get(key, position)
      }
      guard let value else { return .failure(StrataError(code: .type, message: "the key is missing")) }
      let spec = type.properties[index]
      if spec.rules == nil, let plain = Self.plainKey(value, spec.type) {
        parts.append(plain)
        continue
      }
      if let relation = spec.relation, relation.target < schema.models.count {
        switch readKey(value, schema.models[relation.target]) {
        case .failure(let error): return .failure(error)
        case .success(let part): parts.append(part)
        }
        continue
      }
      var reader = Mapper(schema: schema, mode: .canonical)
      let slot = reader.read(value, type: spec.type, model: type, property: index)
      defer { slot.release() }
      guard reader.errors.isEmpty, let part = slot.recordKey else {
        var errors = reader.errors
        if errors.isEmpty {
          errors = [ErrorDetail(path: "", code: .type, message: "\(Mapper.show(value)) cannot be a key")]
        }
        return .failure(
          StrataError(
            errors.map { detail in
              var keyed = detail
              keyed.message = "the key of '\(type.name)': \(detail.message)"
              return keyed
            }))
      }
      parts.append(part)
    }
    return .success(parts.count == 1 ? parts[0] : .composite(parts))
  }

  /// The key part a value gives a property of a plain type (no transform,
  /// enum or validation) without mapping it: an int for `int`, a string for
  /// `string`, a bool for `bool`; nil for anything else (then it is mapped).
  static func plainKey(_ value: JPtr, _ type: TypeRef) -> RecordKey? {
    switch (type, value.pointee.type) {
    case (.int, JSON_INTEGER): return .int(Int64(json_integer_value(value)))
    case (.string, JSON_STRING): return .string(JValue.string(value))
    case (.bool, JSON_TRUE): return .bool(true)
    case (.bool, JSON_FALSE): return .bool(false)
    default: return nil
    }
  }

  /// Every record of `model` (and its subtypes), in key order.
  /// With `stubs` false, records known by their key only are left out.
  package func records(_ model: String, stubs: Bool = true) -> Result<[ModelObject], StrataError> {
    locked { () -> Result<[ModelObject], StrataError> in
      switch recordType(model) {
      case .failure(let error): return .failure(error)
      case .success(let type):
        return Result { () throws(StrataError) in
          try memory.readAll(type.keyRoot).filter {
            $0.shownState.model.isSelfOrDescendant(of: type) && (stubs || !$0.shownState.isStub)
          }.map(\.shownState.object)
        }
      }
    }
  }

  /// The number of records of `model` (and its subtypes); with `stubs`
  /// false, records known by their key only are not counted.
  package func count(_ model: String, stubs: Bool = true) -> Result<Int, StrataError> {
    locked { () -> Result<Int, StrataError> in
      switch recordType(model) {
      case .failure(let error): return .failure(error)
      case .success(let type):
        if !memory.complete, let store {
          return Result { () throws(StrataError) in try coldCount(store, type, stubs: stubs) }
        }
        let records = memory.index[type.keyRoot] ?? [:]
        if stubs && type.keyRoot == type.index && !schema.hasSubtypesSharingKeys(type) {
          return .success(records.count)
        }
        return .success(
          records.values.reduce(0) {
            $0 + ($1.lazyState.model.isSelfOrDescendant(of: type) && (stubs || !$1.lazyState.isStub) ? 1 : 0)
          })
      }
    }
  }

  /// The live record behind a record handle of this context.
  private func liveRecord(_ object: ModelObject) -> Result<GraphRecord, StrataError> {
    guard let key = object.recordKey else {
      return .failure(
        StrataError(
          code: .argument, message: "the '\(object.type.name)' model is not a record of a graph context"))
    }
    let deleted = StrataError(
      code: .argument,
      message:
        "the '\(object.type.name)' record \(key) was deleted: its handle keeps the values it had, and its relationships can no longer be followed"
    )
    let foreign = StrataError(
      code: .argument, message: "the '\(object.type.name)' record \(key) is another context's")
    guard let tie = object.recordTie else { return .failure(deleted) }
    guard tie.owner == memory.serial else { return .failure(foreign) }
    // the tie's record is read only by the context whose cache made it (`RecordTie`)
    if let record = tie.record as? GraphRecord, !record.isEvicted {
      guard !record.isDeleted else { return .failure(deleted) }
      guard memory.record(record.keyRoot, record.key) === record else { return .failure(foreign) }
      return .success(record)
    }
    // the record left the cache: found again by its key
    guard let record = memory.record(object.type.keyRoot, key) else { return .failure(deleted) }
    return .success(record)
  }

  /// Deletes a record: its links, on both sides, go with it.
  package func delete(_ object: ModelObject) -> Result<Void, StrataError> {
    changingLocked { () -> Result<Void, StrataError> in
      switch liveRecord(object) {
      case .failure(let error): return .failure(error)
      case .success(let record):
        var transaction = GraphTransaction(schema: schema, memory: memory)
        transaction.delete(record)
        transaction.deleteOrphans()
        if !transaction.refusals.isEmpty { return .failure(StrataError(transaction.refusals)) }
        do throws(StrataError) {
          _ = try GraphCommit.commit(&transaction, memory: memory, store: store)
        } catch {
          return .failure(error)
        }
        return .success(())
      }
    }
  }

  /// The records a relationship of a record holds (none, one, or the list), as they are now.
  package func related(_ object: ModelObject, _ property: String) -> Result<[ModelObject]?, StrataError> {
    locked { () -> Result<[ModelObject]?, StrataError> in
      switch liveRecord(object) {
      case .failure(let error): return .failure(error)
      case .success(let record):
        let model = record.state.model
        guard let index = model.propertyIndex[property], index < model.properties.count else {
          return .failure(
            StrataError(
              code: .argument,
              message: "model '\(model.name)' has no property '\(property)'"
                + Suggestion.hint(for: property, among: model.properties.map(\.name))))
        }
        guard model.properties[index].relation != nil else {
          return .failure(
            StrataError(
              code: .argument,
              message:
                "'\(model.name).\(property)' is not a relationship (its type holds no model with a primaryKey)"
            ))
        }
        switch index < record.state.links.count ? record.state.links[index] : .absent {
        case .absent, .null: return .success(nil)
        case .one(let target): return .success([target.shownState.object])
        case .many(let list): return .success(list.items.map(\.shownState.object))
        }
      }
    }
  }

  /// The record's canonical dictionary with relationships nested (a new reference).
  /// With `levels`, nested that many levels down (relationships as keys below).
  package func nestedDictionary(_ object: ModelObject, levels: Int? = nil) -> Result<JPtr, StrataError> {
    locked { () -> Result<JPtr, StrataError> in
      switch liveRecord(object) {
      case .failure(let error): return .failure(error)
      case .success(let record):
        guard let made = GraphOutput.nestedDictionary(record, levels: levels) else {
          return .failure(StrataError(code: .argument, message: "cannot build the dictionary"))
        }
        return .success(made)
      }
    }
  }

  /// The record serialized to JSON with relationships nested (a new reference).
  package func nestedJSON(_ object: ModelObject) -> Result<JPtr, StrataError> {
    locked { () -> Result<JPtr, StrataError> in
      liveRecord(object).flatMap { GraphOutput.nestedJSON($0, schema: schema) }
    }
  }
}

extension Schema {
  /// True when some other model shares `type`'s key space (its subtypes along `extends`).
  func hasSubtypesSharingKeys(_ type: ModelType) -> Bool {
    models.contains { $0 !== type && $0.keyRoot == type.keyRoot }
  }

  /// The names of `type` and of its subtypes in its key space: the
  /// `strata_type` values its records have in the file.
  func recordModelNames(_ type: ModelType) -> [String] {
    models.filter { $0.keyRoot == type.keyRoot && $0.isSelfOrDescendant(of: type) }.map(\.name)
  }
}

extension GraphContext {
  /// Imports the records of `model` in UTF-8 JSON text: parsed by the byte
  /// parser (building only what the model reads, at its root), or by jansson
  /// for anything unusual, then imported as `importValue` imports.
  package func importBytes(_ model: String, _ bytes: UnsafeBufferPointer<UInt8>, _ request: ImportRequest)
    -> Result<ImportOutcome, StrataError>
  {
    if let streamed = importElements(model, bytes, request) { return streamed }
    var parsed: JPtr? = nil
    // one parse builds the records and the metadata; a model or options
    // that do not resolve take jansson's path, and importValue reports them
    let target = try? importTarget(model, request).get()
    if let (type, shape) = target {
      let meta = shape.metadata(in: schema).map { ($0.location.keys, $0.type) }
      parsed = ResponsePlan(schema: schema, records: type, root: shape.root?.keys ?? [], meta: meta).parse(
        bytes)
    }
    if parsed == nil {
      switch JSONText.parse(bytes) {
      case .success(let value): parsed = value
      case .failure(let error): return .failure(error)
      }
    }
    guard let value = parsed else {
      return .failure(StrataError(code: .syntax, message: "cannot parse the input"))
    }
    defer { JValue.release(value) }
    guard let (type, shape) = target else { return importValue(model, value, request) }
    return changingLocked { () -> Result<ImportOutcome, StrataError> in
      importResolved(type, shape, value, request)
    }
  }
}
