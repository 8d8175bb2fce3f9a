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

/// Calls a host function that returns NULL to refuse, with a message
/// written into a 256-byte buffer: the value, or the message (`otherwise`
/// when the function wrote none).
private func callRefusable<Value>(
  otherwise: String, _ call: (UnsafeMutablePointer<CChar>, Int) -> Value?
) -> Result<Value, MergeRefusal> {
  let capacity = 256
  return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
    guard let base = buffer.baseAddress else { return .failure(MergeRefusal("out of memory")) }
    base.initialize(repeating: 0, count: capacity)
    if let value = call(base, capacity) { return .success(value) }
    base[capacity - 1] = 0
    let message = String(cString: base)
    return .failure(MergeRefusal(message.isEmpty ? otherwise : message))
  }
}

/// What one kind of host function is called in the messages of its
/// registration.
private struct CallbackKind {
  /// "the transformer name", "the model name", ...
  let nameWhat: String
  /// What the function is, for the name: "the forward function of 'x'".
  let functionWhat: (String) -> String
  /// The refusal of a built-in name, or nil when the name is free.
  let builtIn: (String) -> String?
  /// The refusal of a name registered already.
  let taken: (String) -> String
}

/// One registration on a builder, the checks of every
/// `strata_schema_builder_add_*` first: the builder, the name and the
/// function given; the name neither built in nor taken (`isTaken`). Then
/// `register` stores the function, reaching the payload through `payload()`.
/// Returns 0, or -1 with the error set.
private func registerCallback(
  _ handle: OpaquePointer?, _ name: UnsafePointer<CChar>?, functionGiven: Bool, _ kind: CallbackKind,
  payload: UnsafeMutableRawPointer?, error: UnsafeMutableRawPointer?,
  isTaken: (SchemaBuilder, String) -> Bool,
  register: (SchemaBuilder, String, @escaping @Sendable () -> UnsafeMutableRawPointer?) -> Void
) -> Int32 {
  guard let handle else {
    ErrorReporting.fail(.argument, "the builder is NULL", error)
    return -1
  }
  guard let name = Handles.string(name), !name.isEmpty else {
    ErrorReporting.fail(.argument, "\(kind.nameWhat) is NULL or empty", error)
    return -1
  }
  guard functionGiven else {
    ErrorReporting.fail(.argument, "\(kind.functionWhat(name)) is NULL", error)
    return -1
  }
  let builder = Unmanaged<SchemaBuilder>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
  if let refusal = kind.builtIn(name) {
    ErrorReporting.fail(.argument, refusal, error)
    return -1
  }
  if isTaken(builder, name) {
    ErrorReporting.fail(.argument, kind.taken(name), error)
    return -1
  }
  let bits = payload.map { UInt(bitPattern: $0) }
  register(builder, name) { bits.flatMap { UnsafeMutableRawPointer(bitPattern: $0) } }
  ErrorReporting.succeed(error)
  return 0
}

/// Registers a named merger.
@_cdecl("strata_schema_builder_add_merger")
public func strata_schema_builder_add_merger(
  _ builder: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ merge: MergeCallback?,
  _ payload: UnsafeMutableRawPointer?, _ release: ReleaseCallback?, _ error: UnsafeMutableRawPointer?
) -> Int32 {
  let kind = CallbackKind(
    nameWhat: "the merger name", functionWhat: { "the merge function of '\($0)'" },
    builtIn: {
      Schema.isBuiltinMergePolicy($0) ? "'\($0)' is a built-in merge policy: choose another name" : nil
    },
    taken: { "a merger named '\($0)' is already registered" })
  return registerCallback(
    builder, name, functionGiven: merge != nil, kind, payload: payload, error: error,
    isTaken: { $0.mergers[$1] != nil }
  ) { target, name, pointer in
    guard let merge else { return }
    target.mergers[name] = Merger(
      name: name,
      function: { current, incoming in
        callRefusable(otherwise: "the merger refused the values") {
          merge(current, incoming, pointer(), $0, $1)
        }
      },
      release: release.map { callback in { callback(pointer()) } })
  }
}

/// Calls a C transformer step: NULL is a failure with its message.
private func invoke(
  _ callback: TransformCallback, _ value: UnsafeMutablePointer<json_t>, _ payload: UnsafeMutableRawPointer?
) -> TransformOutcome {
  switch callRefusable(otherwise: "the transformer refused the value", { callback(value, payload, $0, $1) }) {
  case .success(let result): return .value(result)
  case .failure(let refusal): return .failure(refusal.message)
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
  let kind = CallbackKind(
    nameWhat: "the transformer name", functionWhat: { "the forward function of '\($0)'" },
    builtIn: {
      Schema.isBuiltinTransformer($0) ? "'\($0)' is a built-in transformer: choose another name" : nil
    },
    taken: { "a transformer named '\($0)' is already registered" })
  return registerCallback(
    builder, name, functionGiven: forward != nil, kind, payload: payload, error: error,
    isTaken: { $0.transformers[$1] != nil }
  ) { target, name, pointer in
    guard let forward else { return }
    target.transformers[name] = Transformer(
      name: name,
      forward: { invoke(forward, $0, pointer()) },
      reverse: reverse.map { step in { invoke(step, $0, pointer()) } },
      release: release.map { callback in { callback(pointer()) } })
  }
}

/// Registers a key injector for the records of `model`.
@_cdecl("strata_schema_builder_add_key_injector")
public func strata_schema_builder_add_key_injector(
  _ builder: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ inject: KeyCallback?,
  _ payload: UnsafeMutableRawPointer?, _ release: ReleaseCallback?, _ error: UnsafeMutableRawPointer?
) -> Int32 {
  let kind = CallbackKind(
    nameWhat: "the model name", functionWhat: { "the key injector of '\($0)'" }, builtIn: { _ in nil },
    taken: { "a key injector for '\($0)' is already registered" })
  return registerCallback(
    builder, model, functionGiven: inject != nil, kind, payload: payload, error: error,
    isTaken: { $0.keyInjectors[$1] != nil }
  ) { target, name, pointer in
    guard let inject else { return }
    target.keyInjectors[name] = KeyInjector(
      model: name,
      function: { value, parent in
        callRefusable(otherwise: "it returned no key") { inject(value, parent, pointer(), $0, $1) }
      },
      release: release.map { callback in { callback(pointer()) } })
  }
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
    return Schema.load(
      doc, transformers: source.transformers, mergers: source.mergers, keyInjectors: source.keyInjectors
    ).toC(error)
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
    return parseBuffer(buffer, length).flatMap { doc in
      defer { json_decref(doc) }
      let source = Unmanaged<SchemaBuilder>.fromOpaque(UnsafeRawPointer(builder)).takeUnretainedValue()
      return Schema.load(
        doc, transformers: source.transformers, mergers: source.mergers, keyInjectors: source.keyInjectors)
    }.toC(error)
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
    return Schema.readFile(path).flatMap { doc in
      defer { json_decref(doc) }
      let source = Unmanaged<SchemaBuilder>.fromOpaque(UnsafeRawPointer(builder)).takeUnretainedValue()
      return Schema.load(
        doc, transformers: source.transformers, mergers: source.mergers, keyInjectors: source.keyInjectors)
    }.toC(error)
  }
}
