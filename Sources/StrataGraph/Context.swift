import CJansson
import Strata

/// A graph context for Swift: uniqued records of a schema's models (found
/// by `primaryKey`), their relationships kept in step with their inverses,
/// in memory or in an SQLite file. See docs/graph.md.
///
/// ```swift
/// let context = try Context(schema: schema)               // in memory
/// let result = try context.import("Post", posts)
/// let author = try result.records[0].one("author")
/// ```
///
/// A context may be shared between threads: every call takes its lock.
public final class Context: Sendable {
  package let engine: GraphContext

  /// The schema.
  public var schema: Schema { engine.schema }

  /// Opens a context in memory (`path` nil) or on the SQLite file at `path`
  /// (created when missing; only its metadata is read, records are read when
  /// asked for; a file written by an older schema version is migrated first,
  /// a newer one is an `argument` error).
  /// A PostgreSQL URL in `path` opens the graph there (see `init(schema:url:)`).
  public init(schema: Schema, path: String? = nil) throws(StrataError) {
    engine = try GraphContext(schema: schema, path: path)
  }

  /// Opens a context on the graph at `url`: a PostgreSQL database
  /// (`postgresql://user@host:5432/db?schema=NAME`: the graph's tables in
  /// the schema `NAME`, created on first use; docs/graph.md, "PostgreSQL"),
  /// or, for any other text, the SQLite file of that path.
  public convenience init(schema: Schema, url: String) throws(StrataError) {
    try self.init(schema: schema, path: url)
  }

  /// Closes the context (and its file); later calls throw `argument` errors.
  public func close() { engine.close() }

  /// Imports the records of `model` in `data` as one transaction: each found
  /// by its key and updated, or made; relationships linked; the result lists
  /// the top-level records in input order. On any error nothing changes.
  /// `root` overrides the model's `root`; `meta` its `meta`: the response's
  /// metadata, mapped as `Schema.mapResponse` maps it, is the result's `metadata`.
  public func `import`(
    _ model: String, _ data: JSON, root: String? = nil, meta: ResponseMeta? = nil,
    deleteOrphans: OrphanDeletion? = nil
  ) throws(StrataError) -> ImportResult {
    guard let pointer = data.makeJansson() else {
      throw StrataError(code: .type, message: "the input holds a value JSON cannot represent")
    }
    defer { JValue.release(pointer) }
    return try importRequest(model, root: root, meta: meta, deleteOrphans: deleteOrphans) { request in
      engine.importValue(model, pointer, request)
    }
  }

  /// Imports the records of `model` in JSON text (parsed once, by the byte
  /// parser, records and metadata together).
  public func `import`(
    _ model: String, parsing text: String, root: String? = nil, meta: ResponseMeta? = nil,
    deleteOrphans: OrphanDeletion? = nil
  ) throws(StrataError) -> ImportResult {
    var copy = text
    var result: Result<ImportResult, StrataError> = .failure(StrataError(code: .argument, message: "not run"))
    copy.withUTF8 { bytes in
      do throws(StrataError) {
        result = .success(
          try importRequest(model, root: root, meta: meta, deleteOrphans: deleteOrphans) { request in
            engine.importBytes(model, bytes, request)
          })
      } catch {
        result = .failure(error)
      }
    }
    return try result.get()
  }

  /// Runs an import with the request made of `root`, `meta` and `deleteOrphans`.
  private func importRequest(
    _ model: String, root: String?, meta: ResponseMeta?, deleteOrphans: OrphanDeletion?,
    _ run: (ImportRequest) -> Result<ImportOutcome, StrataError>
  ) throws(StrataError) -> ImportResult {
    var scope: [(String, JPtr)] = []
    defer { for (_, value) in scope { JValue.release(value) } }
    var rule: OrphanRule? = nil
    if let deleteOrphans {
      for (name, value) in deleteOrphans.scope.sorted(by: { $0.key < $1.key }) {
        guard let made = value.makeJansson() else {
          throw StrataError(code: .type, message: "the orphan rule's value of '\(name)' is not JSON")
        }
        scope.append((name, made))
      }
      let keep = deleteOrphans.keep
      rule = OrphanRule(
        model: deleteOrphans.model, scope: scope,
        keep: keep.map { function in { object in function(Record(object, context: self)) } },
        topLevelOnly: deleteOrphans.onlyTopLevel)
    }
    return result(try run(ImportRequest(root: root, meta: meta, orphans: rule)).get())
  }

  /// Imports the records of `model` in JSON text with the options object C
  /// and Python give (`"root"`, `"meta"`, `"delete_orphans"`), read by the same
  /// reader, so every face refuses the same unknown members alike: what the
  /// command line uses.
  package func `import`(_ model: String, parsing text: String, options: JSON) throws(StrataError)
    -> ImportResult
  {
    guard let pointer = options.makeJansson() else {
      throw StrataError(code: .argument, message: "the import options are not JSON")
    }
    defer { JValue.release(pointer) }
    let request = try ImportRequest.read(pointer, keep: nil).get()
    var copy = text
    var outcome: Result<ImportOutcome, StrataError> = .failure(
      StrataError(code: .argument, message: "not run"))
    copy.withUTF8 { bytes in outcome = engine.importBytes(model, bytes, request) }
    return result(try outcome.get())
  }

  /// The Swift result of an import's outcome.
  func result(_ outcome: ImportOutcome) -> ImportResult {
    ImportResult(
      records: outcome.records.map { Record($0, context: self) },
      created: Dictionary(outcome.created, uniquingKeysWith: +),
      updated: Dictionary(outcome.updated, uniquingKeysWith: +),
      unchanged: Dictionary(outcome.unchanged, uniquingKeysWith: +),
      deleted: Dictionary(outcome.deleted, uniquingKeysWith: +),
      warnings: outcome.warnings.map {
        ErrorDetail(path: $0.path, model: $0.model, code: .missing, message: $0.message)
      },
      metadata: outcome.metadata.map(Model.init))
  }

  /// The record of `model` under `key` (its canonical value; a list for a
  /// composite key; the related record's key for a relationship key), or nil.
  public func get(_ model: String, key: JSON) throws(StrataError) -> Record? {
    guard let pointer = key.makeJansson() else {
      throw StrataError(code: .type, message: "the key is not JSON")
    }
    defer { JValue.release(pointer) }
    return try engine.record(model, key: pointer).get().map { Record($0, context: self) }
  }

  /// Every record of `model` (and its subtypes), in key order; with `stubs`
  /// false, without the records known by their key only (`Record.isStub`).
  public func all(_ model: String, stubs: Bool = true) throws(StrataError) -> [Record] {
    try engine.records(model, stubs: stubs).get().map { Record($0, context: self) }
  }

  /// The number of records of `model` (and its subtypes); with `stubs`
  /// false, the records known by their key only are not counted.
  public func count(_ model: String, stubs: Bool = true) throws(StrataError) -> Int {
    try engine.count(model, stubs: stubs).get()
  }

  /// The records of `model` (and its subtypes) that meet `where`, ordered by
  /// `orderBy` (property names or key paths through to-one relationships,
  /// `-` first for descending; ties by key), `offset` of them skipped and at
  /// most `limit` kept (docs/graph.md#queries). `where` maps property names
  /// and key paths (`"user.name"`; through a to-many relationship: any of
  /// the records) to a value or an operator object
  /// (`["retweetCount": [">=": 10]]`), and takes `and`, `or` and `not`.
  public func query(
    _ model: String, where condition: JSON? = nil, orderBy: [String] = [], limit: Int? = nil, offset: Int = 0,
    stubs: Bool = true
  ) throws(StrataError) -> [Record] {
    try query(model, Self.queryObject(condition, orderBy, limit, offset, stubs))
  }

  /// The records a whole query object selects, as C and the command line
  /// give it: `{"where": ..., "order_by": ..., "limit": n, "offset": n,
  /// "stubs": false}` (errors point into it).
  public func query(_ model: String, _ query: JSON) throws(StrataError) -> [Record] {
    try Self.withQuery(query) { engine.query(model, $0) }.map { Record($0, context: self) }
  }

  /// The number of records `query(_:_:)` gives for a whole query object.
  public func count(_ model: String, query: JSON) throws(StrataError) -> Int {
    try Self.withQuery(query) { engine.queryCount(model, $0) }
  }

  /// The number of records `query(_:where:orderBy:limit:offset:stubs:)` gives.
  public func count(_ model: String, where condition: JSON, stubs: Bool = true) throws(StrataError) -> Int {
    try count(model, query: Self.queryObject(condition, [], nil, 0, stubs))
  }

  /// The query object of the named parts, as C takes it.
  private static func queryObject(
    _ condition: JSON?, _ orderBy: [String], _ limit: Int?, _ offset: Int, _ stubs: Bool
  ) -> JSON {
    var members: [(String, JSON)] = []
    if let condition { members.append(("where", condition)) }
    if !orderBy.isEmpty { members.append(("order_by", .array(orderBy.map { .string($0) }))) }
    if let limit { members.append(("limit", .int(Int64(limit)))) }
    if offset != 0 { members.append(("offset", .int(Int64(offset)))) }
    if !stubs { members.append(("stubs", .bool(false))) }
    return .object(JSONObject(members))
  }

  /// Runs `body` with the query as a jansson value (borrowed for the call).
  private static func withQuery<R>(_ query: JSON, _ body: (JPtr) -> Result<R, StrataError>)
    throws(StrataError)
    -> R
  {
    guard let pointer = query.makeJansson() else {
      throw StrataError(code: .type, message: "the query is not JSON")
    }
    defer { JValue.release(pointer) }
    return try body(pointer).get()
  }

  /// Deletes a record; the relationships that held it (and their inverses) let go of it.
  public func delete(_ record: Record) throws(StrataError) { try engine.delete(record.model.object).get() }

  /// How many records the cache of a context on a file may hold between
  /// calls (docs/graph.md, "The cache"): after a call that leaves more, the
  /// records used least recently are dropped (down to half the limit) and
  /// read again when asked for. 0 drops every record after each call; the
  /// default is 50,000.
  public func setCacheLimit(_ records: Int) throws(StrataError) { try engine.setCacheLimit(records).get() }

  /// Reads up to `bytes` of the context's SQLite file through a memory map
  /// (SQLite's `mmap_size`; 0, the default, reads pages with `pread`). Cold
  /// reads of a large file get faster; the price is in docs/graph.md,
  /// "Reading through a memory map": an I/O error of the disk, or the file
  /// cut short by a program that does not lock it as SQLite does, stops the
  /// process with SIGBUS instead of failing a call. A context in memory or
  /// on PostgreSQL maps nothing. An `argument` error inside a read block.
  public func setMemoryMap(_ bytes: Int) throws(StrataError) { try engine.setMemoryMap(bytes).get() }

  /// How many bytes of the file the context reads through a memory map now
  /// (SQLite caps what `setMemoryMap` asks at the limit it was built with).
  public func memoryMap() throws(StrataError) -> Int { try engine.memoryMap().get() }

  /// The cache's limit and how many records the context holds in memory now.
  public func cacheInfo() throws(StrataError) -> (limit: Int, held: Int) { try engine.cacheInfo().get() }

  /// Opens a read block (docs/graph.md, "Read blocks"): until the matching
  /// `endReading()`, every call of the context reads one snapshot of its
  /// file, and cached records are served without asking the file whether
  /// another connection wrote it. Blocks nest; an import or delete inside
  /// one ends its snapshot and the block's next read takes a new one.
  /// `reading(_:)` pairs the two calls.
  public func beginReading() throws(StrataError) { try engine.beginReading().get() }

  /// Closes the innermost read block; an `argument` error when none is open.
  public func endReading() throws(StrataError) { try engine.endReading().get() }

  /// Runs `body` in a read block (`beginReading`), ended however `body` returns.
  public func reading<R>(_ body: () throws -> R) throws -> R {
    try beginReading()
    defer { try? endReading() }
    return try body()
  }

  /// Checks the graph's invariants (docs/graph.md, "Checking a graph"):
  /// every record maps under its schema, every link and inverse holds both
  /// ways, and a file holds exactly what memory does. Throws the broken
  /// ones as `io` errors; a sound graph returns.
  public func check() throws(StrataError) { try engine.check().get() }
}

/// What `Context.import` did.
public struct ImportResult: Sendable {
  /// The top-level records, in input order (a record given twice is listed twice).
  public let records: [Record]
  /// Records made, by model name (stubs made for bare keys included).
  public let created: [String: Int]
  /// Records that existed and whose values the import changed (given in
  /// the input, or changed through an inverse), by model name.
  public let updated: [String: Int]
  /// Records that existed, that the input gave as objects, and that the
  /// import left as they were, by model name (an app redraws only `updated`).
  public let unchanged: [String: Int]
  /// Records deleted (orphans), by model name.
  public let deleted: [String: Int]
  /// Records given no key (made fresh): where, which model, and why; and,
  /// on PostgreSQL, a transaction the server gave up and that ran again.
  public let warnings: [ErrorDetail]
  /// The response's metadata (the model's `meta`, or the call's `meta`),
  /// as `Schema.mapResponse` gives it: nil when none is declared or the
  /// response leaves it out.
  public let metadata: Model?
}

/// The orphan rule of an import: the records of `model` whose properties
/// equal `scope` (relationships compared by key) and that the response did
/// not contain are deleted, unless `keep` returns true for one.
public struct OrphanDeletion: Sendable {
  /// The model whose records the rule deletes.
  public var model: String
  /// Property -> canonical value: only records with these values are in scope.
  public var scope: [String: JSON]
  /// Called for each record about to go: true keeps it.
  public var keep: (@Sendable (Record) -> Bool)?
  /// True for MMRecord's rule (`"scope": "top"` in C and Python): only the
  /// response's top-level records count as contained. False (the default):
  /// records nested anywhere in the response count too.
  public var onlyTopLevel: Bool

  /// A rule from its parts.
  public init(
    model: String, where scope: [String: JSON] = [:], onlyTopLevel: Bool = false,
    keep: (@Sendable (Record) -> Bool)? = nil
  ) {
    self.model = model
    self.scope = scope
    self.onlyTopLevel = onlyTopLevel
    self.keep = keep
  }
}
