import CJansson
import Glibc
import Strata

/// The C type of a transformer callback (`strata_transform_fn`).
public typealias TransformCallback =
  @convention(c) (
    UnsafeMutablePointer<json_t>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, Int
  ) -> UnsafeMutablePointer<json_t>?

/// The C type of a payload release callback (`strata_release_fn`).
public typealias ReleaseCallback = @convention(c) (UnsafeMutableRawPointer?) -> Void

/// `strata_schema_builder_t`: the host transformers registered so far.
final class SchemaBuilder {
  var transformers: [String: Transformer] = [:]
  var mergers: [String: Merger] = [:]
  var keyInjectors: [String: KeyInjector] = [:]
}

/// The C type of a merger callback (`strata_merge_fn`).
public typealias MergeCallback =
  @convention(c) (
    UnsafeMutablePointer<json_t>?, UnsafeMutablePointer<json_t>?, UnsafeMutableRawPointer?,
    UnsafeMutablePointer<CChar>?, Int
  ) -> UnsafeMutablePointer<json_t>?

/// Calls a C merger, turning NULL into a refusal with its message.
private func invokeMerger(
  _ callback: MergeCallback, _ current: UnsafeMutablePointer<json_t>?,
  _ incoming: UnsafeMutablePointer<json_t>,
  _ payload: UnsafeMutableRawPointer?
) -> Result<UnsafeMutablePointer<json_t>, MergeRefusal> {
  let capacity = 256
  return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
    guard let base = buffer.baseAddress else { return .failure(MergeRefusal("out of memory")) }
    base.initialize(repeating: 0, count: capacity)
    if let result = callback(current, incoming, payload, base, capacity) { return .success(result) }
    base[capacity - 1] = 0
    let message = String(cString: base)
    return .failure(MergeRefusal(message.isEmpty ? "the merger refused the values" : message))
  }
}

/// Registers a named merger.
@_cdecl("strata_schema_builder_add_merger")
public func strata_schema_builder_add_merger(
  _ builder: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ merge: MergeCallback?,
  _ payload: UnsafeMutableRawPointer?, _ release: ReleaseCallback?, _ error: UnsafeMutableRawPointer?
) -> Int32 {
  guard let builder else {
    ErrorReporting.fail(.argument, "the builder is NULL", error)
    return -1
  }
  guard let name = Handles.string(name), !name.isEmpty else {
    ErrorReporting.fail(.argument, "the merger name is NULL or empty", error)
    return -1
  }
  guard let merge else {
    ErrorReporting.fail(.argument, "the merge function of '\(name)' is NULL", error)
    return -1
  }
  let target = Unmanaged<SchemaBuilder>.fromOpaque(UnsafeRawPointer(builder)).takeUnretainedValue()
  if Schema.isBuiltinMergePolicy(name) {
    ErrorReporting.fail(.argument, "'\(name)' is a built-in merge policy: choose another name", error)
    return -1
  }
  if target.mergers[name] != nil {
    ErrorReporting.fail(.argument, "a merger named '\(name)' is already registered", error)
    return -1
  }
  let payloadBits = payload.map { UInt(bitPattern: $0) }
  func pointer() -> UnsafeMutableRawPointer? {
    payloadBits.flatMap { UnsafeMutableRawPointer(bitPattern: $0) }
  }
  target.mergers[name] = Merger(
    name: name, function: { invokeMerger(merge, $0, $1, pointer()) },
    release: release.map { callback in { callback(pointer()) } })
  ErrorReporting.succeed(error)
  return 0
}

/// Calls a C transformer step, turning NULL into a failure with its message.
private func invoke(
  _ callback: TransformCallback, _ value: UnsafeMutablePointer<json_t>, _ payload: UnsafeMutableRawPointer?
) -> TransformOutcome {
  let capacity = 256
  return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
    guard let base = buffer.baseAddress else { return .failure("out of memory") }
    base.initialize(repeating: 0, count: capacity)
    if let result = callback(value, payload, base, capacity) { return .value(result) }
    base[capacity - 1] = 0
    let message = String(cString: base)
    return .failure(message.isEmpty ? "the transformer refused the value" : message)
  }
}

/// A new, empty builder.
@_cdecl("strata_schema_builder_new")
public func strata_schema_builder_new() -> OpaquePointer? {
  OpaquePointer(Unmanaged.passRetained(SchemaBuilder()).toOpaque())
}

/// Frees a builder.
@_cdecl("strata_schema_builder_free")
public func strata_schema_builder_free(_ builder: OpaquePointer?) {
  guard let builder else { return }
  Unmanaged<SchemaBuilder>.fromOpaque(UnsafeRawPointer(builder)).release()
}

/// Registers a named transformer.
@_cdecl("strata_schema_builder_add_transformer")
public func strata_schema_builder_add_transformer(
  _ builder: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ forward: TransformCallback?,
  _ reverse: TransformCallback?, _ payload: UnsafeMutableRawPointer?, _ release: ReleaseCallback?,
  _ error: UnsafeMutableRawPointer?
) -> Int32 {
  guard let builder else {
    ErrorReporting.fail(.argument, "the builder is NULL", error)
    return -1
  }
  guard let name = Handles.string(name), !name.isEmpty else {
    ErrorReporting.fail(.argument, "the transformer name is NULL or empty", error)
    return -1
  }
  guard let forward else {
    ErrorReporting.fail(.argument, "the forward function of '\(name)' is NULL", error)
    return -1
  }
  let target = Unmanaged<SchemaBuilder>.fromOpaque(UnsafeRawPointer(builder)).takeUnretainedValue()
  if Schema.isBuiltinTransformer(name) {
    ErrorReporting.fail(.argument, "'\(name)' is a built-in transformer: choose another name", error)
    return -1
  }
  if target.transformers[name] != nil {
    ErrorReporting.fail(.argument, "a transformer named '\(name)' is already registered", error)
    return -1
  }
  let payloadBits = payload.map { UInt(bitPattern: $0) }
  func pointer() -> UnsafeMutableRawPointer? {
    payloadBits.flatMap { UnsafeMutableRawPointer(bitPattern: $0) }
  }
  target.transformers[name] = Transformer(
    name: name,
    forward: { invoke(forward, $0, pointer()) },
    reverse: reverse.map { step in { invoke(step, $0, pointer()) } },
    release: release.map { callback in { callback(pointer()) } })
  ErrorReporting.succeed(error)
  return 0
}

/// Loads a schema with the builder's transformers.
@_cdecl("strata_schema_builder_load")
public func strata_schema_builder_load(
  _ builder: OpaquePointer?, _ doc: UnsafeMutablePointer<json_t>?, _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let builder else {
      ErrorReporting.fail(.argument, "the builder is NULL", error)
      return nil
    }
    guard let doc else {
      ErrorReporting.fail(.argument, "the schema document is NULL", error)
      return nil
    }
    let source = Unmanaged<SchemaBuilder>.fromOpaque(UnsafeRawPointer(builder)).takeUnretainedValue()
    return finishLoad(
      Schema.load(
        doc, transformers: source.transformers, mergers: source.mergers, keyInjectors: source.keyInjectors),
      error)
  }
}

/// Loads a schema from JSON text with the builder's transformers.
@_cdecl("strata_schema_builder_loadb")
public func strata_schema_builder_loadb(
  _ builder: OpaquePointer?, _ buffer: UnsafePointer<CChar>?, _ length: Int, _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let builder else {
      ErrorReporting.fail(.argument, "the builder is NULL", error)
      return nil
    }
    switch parseBuffer(buffer, length) {
    case .success(let doc):
      defer { json_decref(doc) }
      let source = Unmanaged<SchemaBuilder>.fromOpaque(UnsafeRawPointer(builder)).takeUnretainedValue()
      return finishLoad(
        Schema.load(
          doc, transformers: source.transformers, mergers: source.mergers, keyInjectors: source.keyInjectors),
        error)
    case .failure(let failure):
      ErrorReporting.fail(failure, error)
      return nil
    }
  }
}

/// Loads a schema from a file with the builder's transformers.
@_cdecl("strata_schema_builder_load_file")
public func strata_schema_builder_load_file(
  _ builder: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ error: UnsafeMutableRawPointer?
) -> OpaquePointer? {
  deepCall { () -> OpaquePointer? in
    guard let builder else {
      ErrorReporting.fail(.argument, "the builder is NULL", error)
      return nil
    }
    guard let path = Handles.string(path) else {
      ErrorReporting.fail(.argument, "the path is NULL", error)
      return nil
    }
    switch Schema.readFile(path) {
    case .success(let doc):
      defer { json_decref(doc) }
      let source = Unmanaged<SchemaBuilder>.fromOpaque(UnsafeRawPointer(builder)).takeUnretainedValue()
      return finishLoad(
        Schema.load(
          doc, transformers: source.transformers, mergers: source.mergers, keyInjectors: source.keyInjectors),
        error)
    case .failure(let failure):
      ErrorReporting.fail(failure, error)
      return nil
    }
  }
}
