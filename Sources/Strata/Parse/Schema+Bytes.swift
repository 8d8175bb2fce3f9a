import CJansson

/// Bytes straight to models: read by `DirectReader` into model storage;
/// when that gives up (any error), parsed by `PrunedParser` (only what the
/// model reads is built) and mapped as the DOM path maps, which reports
/// every error.
extension Schema {
  /// Maps UTF-8 JSON text onto a new model named `model`. `pruned: false`
  /// takes the DOM path (jansson parses everything), for tests.
  package func mapBytes(_ model: String, _ bytes: UnsafeBufferPointer<UInt8>, pruned: Bool = true)
    -> Result<ModelObject, StrataError>
  {
    let type: ModelType
    switch modelType(model) {
    case .success(let found): type = found
    case .failure(let error): return .failure(error)
    }
    if pruned, let object = DirectReader.one(bytes, type, in: self) { return .success(object) }
    if pruned,
      let answer = mapPruned(
        bytes, .object(PlanRef(plan: parsePlans.plan(type, in: self))),
        { mapper, value in
          mapper.mapRoot(value, type: type)
        })
    {
      return answer
    }
    switch JSONText.parse(bytes) {
    case .success(let value):
      defer { json_decref(value) }
      return mapValue(model, value)
    case .failure(let error): return .failure(error)
    }
  }

  /// Maps UTF-8 JSON text holding an array onto new models named `model`;
  /// a long array is read in pieces as `splitting` says.
  package func mapManyBytes(
    _ model: String, _ bytes: UnsafeBufferPointer<UInt8>, pruned: Bool = true,
    splitting: DirectReader.Splitting = DirectReader.splitting
  )
    -> Result<[ModelObject], StrataError>
  {
    let type: ModelType
    switch modelType(model) {
    case .success(let found): type = found
    case .failure(let error): return .failure(error)
    }
    if pruned, let objects = DirectReader.many(bytes, type, in: self, splitting: splitting) {
      return .success(objects)
    }
    if pruned,
      let answer = mapPruned(
        bytes, .elements(.object(PlanRef(plan: parsePlans.plan(type, in: self)))),
        { mapper, value in mapper.mapMany(value, type: type) })
    {
      return answer
    }
    switch JSONText.parse(bytes) {
    case .success(let value):
      defer { json_decref(value) }
      return mapValues(model, value)
    case .failure(let error): return .failure(error)
    }
  }

  /// The error-collecting byte path: `PrunedParser` builds what `want` says
  /// and `map` maps it with a mapper that knows the parser's number
  /// stand-ins. nil when the parser gave up, or when a number outside
  /// jansson's range sits anywhere but a scalar property (a `json` value, a
  /// transformer's input): the caller then parses with jansson, whose answer
  /// that is.
  func mapPruned<T>(
    _ bytes: UnsafeBufferPointer<UInt8>, _ want: Want, _ map: (inout Mapper, JPtr) -> T?
  ) -> Result<T, StrataError>? {
    let numbers = NumberMarkers()
    guard let value = PrunedParser.parse(bytes, want, markers: numbers) else { return nil }
    defer { json_decref(value) }
    var mapper = Mapper(schema: self, mode: .json)
    mapper.numbers = numbers
    let mapped = map(&mapper, value)
    guard numbers.allConsumed else { return nil }
    if let mapped, mapper.errors.isEmpty { return .success(mapped) }
    return .failure(StrataError(mapper.errors))
  }
}
