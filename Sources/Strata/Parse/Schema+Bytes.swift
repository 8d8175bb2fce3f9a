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
    if pruned {
      let numbers = NumberMarkers()
      if let value = PrunedParser.parse(
        bytes, .object(PlanRef(plan: parsePlans.plan(type, in: self))), markers: numbers)
      {
        defer { json_decref(value) }
        var mapper = Mapper(schema: self, mode: .json)
        mapper.numbers = numbers
        let object = mapper.mapRoot(value, type: type)
        // a number outside jansson's range anywhere but a scalar: jansson's answer
        if numbers.allConsumed {
          if let object, mapper.errors.isEmpty { return .success(object) }
          return .failure(StrataError(mapper.errors))
        }
      }
    }
    switch JSONText.parse(bytes) {
    case .success(let value):
      defer { json_decref(value) }
      return mapValue(model, value)
    case .failure(let error): return .failure(error)
    }
  }

  /// Maps UTF-8 JSON text holding an array onto new models named `model`.
  package func mapManyBytes(_ model: String, _ bytes: UnsafeBufferPointer<UInt8>, pruned: Bool = true)
    -> Result<[ModelObject], StrataError>
  {
    let type: ModelType
    switch modelType(model) {
    case .success(let found): type = found
    case .failure(let error): return .failure(error)
    }
    if pruned, let objects = DirectReader.many(bytes, type, in: self) { return .success(objects) }
    if pruned {
      let numbers = NumberMarkers()
      if let value = PrunedParser.parse(
        bytes, .elements(.object(PlanRef(plan: parsePlans.plan(type, in: self)))), markers: numbers)
      {
        defer { json_decref(value) }
        var mapper = Mapper(schema: self, mode: .json)
        mapper.numbers = numbers
        let objects = mapper.mapMany(value, type: type)
        // a number outside jansson's range anywhere but a scalar: jansson's answer
        if numbers.allConsumed {
          if let objects, mapper.errors.isEmpty { return .success(objects) }
          return .failure(StrataError(mapper.errors))
        }
      }
    }
    switch JSONText.parse(bytes) {
    case .success(let value):
      defer { json_decref(value) }
      return mapValues(model, value)
    case .failure(let error): return .failure(error)
    }
  }
}
