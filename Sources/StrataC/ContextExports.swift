import CJansson
import Glibc
import Strata
import StrataGraph

/// The C type of an orphan keep callback (`strata_keep_fn`).
public typealias KeepCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32

/// The C type of a key injector (`strata_key_fn`).
public typealias KeyCallback =
  @convention(c) (
    UnsafeMutablePointer<json_t>?, UnsafeMutablePointer<json_t>?, UnsafeMutableRawPointer?,
    UnsafeMutablePointer<CChar>?, Int
  ) -> UnsafeMutablePointer<json_t>?

extension Handles {
  /// The context behind a `strata_context_t *`.
  static func context(_ handle: OpaquePointer?) -> GraphContext? {
    guard let handle else { return nil }
    return Unmanaged<GraphContext>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
  }
}

/// Opens a graph context on a schema: in memory (`path` NULL) or on an SQLite file.
@_cdecl("strata_context_open")
public func strata_context_open(
  _ schema: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ out: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let schema = Handles.schema(schema) else {
      ErrorReporting.fail(.argument, "the schema is NULL", out)
      return nil
    }
    do throws(StrataError) {
      let context = try GraphContext(schema: schema, path: Handles.string(path))
      ErrorReporting.succeed(out)
      return OpaquePointer(Unmanaged.passRetained(context).toOpaque())
    } catch {
      ErrorReporting.fail(error, out)
      return nil
    }
  }
}

/// Adds a reference to a context.
@_cdecl("strata_context_incref")
public func strata_context_incref(_ context: OpaquePointer?) -> OpaquePointer? {
  guard let context else { return nil }
  _ = Unmanaged<GraphContext>.fromOpaque(UnsafeRawPointer(context)).retain()
  return context
}

/// Releases a reference to a context (the last one closes it).
@_cdecl("strata_context_decref")
public func strata_context_decref(_ context: OpaquePointer?) {
  deepCall { () -> Void in
    guard let context else { return }
    Unmanaged<GraphContext>.fromOpaque(UnsafeRawPointer(context)).release()
  }
}

/// Closes a context now: later calls on it are "argument" errors.
@_cdecl("strata_context_close")
public func strata_context_close(_ context: OpaquePointer?) {
  deepCall { () -> Void in Handles.context(context)?.close() }
}

/// The record of `model` under `key` (borrowed), a new reference; NULL when
/// there is none (error code STRATA_OK) or on error.
@_cdecl("strata_context_get")
public func strata_context_get(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ key: UnsafeMutablePointer<json_t>?,
  _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let engine = Handles.context(context), let model, let key else {
      ErrorReporting.fail(.argument, "the context, the model name or the key is NULL", error)
      return nil
    }
    // no record is a success: NULL with STRATA_OK
    return engine.record(named: model, key: key).toC(error, failed: nil) { object in
      .some(object.map { Handles.retained($0) })
    }
  }
}

/// Every record of `model` in key order: an array of new references.
@_cdecl("strata_context_all")
public func strata_context_all(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ count: UnsafeMutablePointer<Int>?,
  _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  strata_context_all_flags(context, model, 0, count, error)
}

/// `STRATA_SKIP_STUBS` of strata.h: leave out records known by their key only.
private let skipStubs: UInt32 = 1

/// Every record of `model` in key order, without stubs under `STRATA_SKIP_STUBS`.
@_cdecl("strata_context_all_flags")
public func strata_context_all_flags(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ flags: UInt32,
  _ count: UnsafeMutablePointer<Int>?,
  _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  deepCall { () -> UnsafeMutablePointer<OpaquePointer?>? in
    count?.pointee = 0
    guard let engine = Handles.context(context), let name = Handles.string(model), let count else {
      ErrorReporting.fail(.argument, "the context, the model name or the count pointer is NULL", error)
      return nil
    }
    return engine.records(name, stubs: flags & skipStubs == 0).toC(error, count: count)
  }
}

/// The number of records of `model`, or -1 on error.
@_cdecl("strata_context_count")
public func strata_context_count(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ error: UnsafeMutableRawPointer?
) -> Int64 {
  strata_context_count_flags(context, model, 0, error)
}

/// The number of records of `model`, without stubs under `STRATA_SKIP_STUBS`; -1 on error.
@_cdecl("strata_context_count_flags")
public func strata_context_count_flags(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ flags: UInt32,
  _ error: UnsafeMutableRawPointer?
) -> Int64 {
  deepCall { () -> Int64 in
    guard let engine = Handles.context(context), let name = Handles.string(model) else {
      ErrorReporting.fail(.argument, "the context or the model name is NULL", error)
      return -1
    }
    return engine.count(name, stubs: flags & skipStubs == 0).toC(error, failed: -1) { Int64($0) }
  }
}

/// The records of `model` a query object (borrowed; NULL: all) selects, in its order.
@_cdecl("strata_context_query")
public func strata_context_query(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ query: UnsafeMutablePointer<json_t>?,
  _ count: UnsafeMutablePointer<Int>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  deepCall { () -> UnsafeMutablePointer<OpaquePointer?>? in
    count?.pointee = 0
    guard let engine = Handles.context(context), let name = Handles.string(model), let count else {
      ErrorReporting.fail(.argument, "the context, the model name or the count pointer is NULL", error)
      return nil
    }
    return engine.query(name, query).toC(error, count: count)
  }
}

/// The number of records a query object (borrowed; NULL: all) selects, or -1 on error.
@_cdecl("strata_context_query_count")
public func strata_context_query_count(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ query: UnsafeMutablePointer<json_t>?,
  _ error: UnsafeMutableRawPointer?
) -> Int64 {
  deepCall { () -> Int64 in
    guard let engine = Handles.context(context), let name = Handles.string(model) else {
      ErrorReporting.fail(.argument, "the context or the model name is NULL", error)
      return -1
    }
    return engine.queryCount(name, query).toC(error, failed: -1) { Int64($0) }
  }
}

/// Deletes a record; 0 on success, -1 on error.
@_cdecl("strata_context_delete")
public func strata_context_delete(
  _ context: OpaquePointer?, _ record: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> Int32 {
  deepCall { () -> Int32 in
    guard let engine = Handles.context(context), let object = Handles.model(record) else {
      ErrorReporting.fail(.argument, "the context or the record is NULL", error)
      return -1
    }
    return engine.delete(object).toC(error)
  }
}

/// Sets how many records a file context's cache may hold between calls.
@_cdecl("strata_context_set_cache_limit")
public func strata_context_set_cache_limit(
  _ context: OpaquePointer?, _ records: Int, _ error: UnsafeMutableRawPointer?
) -> Int32 {
  guard let engine = Handles.context(context) else {
    ErrorReporting.fail(.argument, "the context is NULL", error)
    return -1
  }
  guard records >= 0 else {
    ErrorReporting.fail(.argument, "the cache limit is too large", error)
    return -1
  }
  return engine.setCacheLimit(records).toC(error)
}

/// Reads up to `bytes` of a file context's SQLite file through a memory map.
@_cdecl("strata_context_set_memory_map")
public func strata_context_set_memory_map(
  _ context: OpaquePointer?, _ bytes: Int, _ error: UnsafeMutableRawPointer?
) -> Int32 {
  guard bytes >= 0 else {
    ErrorReporting.fail(.argument, "the memory map's size is too large", error)
    return -1
  }
  return onContext(context, error) { engine in engine.setMemoryMap(bytes) }
}

/// How many bytes of its file a context reads through a memory map now.
@_cdecl("strata_context_memory_map")
public func strata_context_memory_map(
  _ context: OpaquePointer?, _ bytes: UnsafeMutablePointer<Int>?, _ error: UnsafeMutableRawPointer?
) -> Int32 {
  onContext(context, error) { engine in engine.memoryMap().map { bytes?.pointee = $0 } }
}

/// The cache's limit and how many records it holds now.
@_cdecl("strata_context_cache_info")
public func strata_context_cache_info(
  _ context: OpaquePointer?, _ limit: UnsafeMutablePointer<Int>?, _ held: UnsafeMutablePointer<Int>?,
  _ error: UnsafeMutableRawPointer?
) -> Int32 {
  onContext(context, error) { engine in
    engine.cacheInfo().map { info in
      limit?.pointee = info.limit
      held?.pointee = info.held
    }
  }
}

/// Opens a read block on a context: its calls read one snapshot of the file until the matching end.
@_cdecl("strata_context_begin_read")
public func strata_context_begin_read(_ context: OpaquePointer?, _ error: UnsafeMutableRawPointer?) -> Int32 {
  onContext(context, error) { $0.beginReading() }
}

/// Closes the innermost read block of a context.
@_cdecl("strata_context_end_read")
public func strata_context_end_read(_ context: OpaquePointer?, _ error: UnsafeMutableRawPointer?) -> Int32 {
  onContext(context, error) { $0.endReading() }
}

/// 0 when `body` succeeds on the context behind `context`, else -1 with
/// `error` filled (a NULL context is an `argument` error).
private func onContext(
  _ context: OpaquePointer?, _ error: UnsafeMutableRawPointer?,
  _ body: (GraphContext) -> Result<Void, StrataError>
) -> Int32 {
  guard let engine = Handles.context(context) else {
    ErrorReporting.fail(.argument, "the context is NULL", error)
    return -1
  }
  return body(engine).toC(error)
}

/// Checks a context's invariants; 0 when they hold, -1 with the broken ones.
@_cdecl("strata_context_check")
public func strata_context_check(_ context: OpaquePointer?, _ error: UnsafeMutableRawPointer?) -> Int32 {
  deepCall { () -> Int32 in
    guard let engine = Handles.context(context) else {
      ErrorReporting.fail(.argument, "the context is NULL", error)
      return -1
    }
    return engine.check().toC(error)
  }
}

/// The records a relationship of a record holds now: an array of new references.
@_cdecl("strata_context_related")
public func strata_context_related(
  _ context: OpaquePointer?, _ record: OpaquePointer?, _ property: UnsafePointer<CChar>?,
  _ count: UnsafeMutablePointer<Int>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  deepCall { () -> UnsafeMutablePointer<OpaquePointer?>? in
    count?.pointee = 0
    guard let engine = Handles.context(context), let object = Handles.model(record),
      let name = Handles.string(property), let count
    else {
      ErrorReporting.fail(
        .argument, "the context, the record, the property or the count pointer is NULL", error)
      return nil
    }
    return (engine.related(object, name).map { $0 ?? [] }).toC(error, count: count)
  }
}

/// A record's canonical dictionary with relationships nested (a new reference).
@_cdecl("strata_context_dictionary")
public func strata_context_dictionary(
  _ context: OpaquePointer?, _ record: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let engine = Handles.context(context), let object = Handles.model(record) else {
      ErrorReporting.fail(.argument, "the context or the record is NULL", error)
      return nil
    }
    return engine.nestedDictionary(object).toC(error)
  }
}

/// A record's canonical dictionary nested `levels` levels down (negative: all the way).
@_cdecl("strata_context_dictionary_depth")
public func strata_context_dictionary_depth(
  _ context: OpaquePointer?, _ record: OpaquePointer?, _ levels: Int32, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let engine = Handles.context(context), let object = Handles.model(record) else {
      ErrorReporting.fail(.argument, "the context or the record is NULL", error)
      return nil
    }
    return engine.nestedDictionary(object, levels: levels < 0 ? nil : Int(levels)).toC(error)
  }
}

/// 1 when a record handle shows a stub (a record known by its key only), else 0.
@_cdecl("strata_record_is_stub")
public func strata_record_is_stub(_ record: OpaquePointer?) -> Int32 {
  guard let object = Handles.model(record) else { return 0 }
  return object.recordIsStub ? 1 : 0
}

/// A record serialized to JSON with relationships nested (a new reference).
@_cdecl("strata_context_to_json")
public func strata_context_to_json(
  _ context: OpaquePointer?, _ record: OpaquePointer?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let engine = Handles.context(context), let object = Handles.model(record) else {
      ErrorReporting.fail(.argument, "the context or the record is NULL", error)
      return nil
    }
    return engine.nestedJSON(object).toC(error)
  }
}

/// The key of a record handle (a new reference), NULL for an ordinary model.
@_cdecl("strata_record_key")
public func strata_record_key(_ record: OpaquePointer?) -> UnsafeMutablePointer<json_t>? {
  guard let object = Handles.model(record) else { return nil }
  return object.recordKeyJSON
}

/// 1 when `property` of `model` is a to-one relationship, 2 to-many, 0 not one, -1 on error.
@_cdecl("strata_schema_relationship")
public func strata_schema_relationship(
  _ schema: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ property: UnsafePointer<CChar>?,
  _ error: UnsafeMutableRawPointer?
) -> Int32 {
  guard let (schema, name) = Handles.schemaAndModel(schema, model, error) else { return -1 }
  guard let property = Handles.string(property) else {
    ErrorReporting.fail(.argument, "the property name is NULL", error)
    return -1
  }
  return schema.relationshipKind(name, property).toC(error, failed: -1) { Int32($0) }
}
