import CJansson

/// The records and the metadata that one response maps to (engine storage).
package struct ResponseObjects {
  /// The records, in the response's order.
  package let records: [ModelObject]
  /// The metadata, or nil (none declared, absent, or null).
  package let metadata: ModelObject?
}

extension Schema {
  /// Maps an API response (borrowed): the records of model `model` at its
  /// root and, when there is one, the metadata. Every error of the records
  /// and of the metadata is collected; paths point into the whole response.
  package func mapResponseValue(
    _ model: String, _ value: JPtr, _ request: ResponseRequest = ResponseRequest()
  ) -> Result<ResponseObjects, StrataError> {
    let type: ModelType
    let shape: ResponseShape
    switch responseTarget(model, request) {
    case .success(let found): (type, shape) = found
    case .failure(let error): return .failure(error)
    }
    var mapper = Mapper(schema: self, mode: .json)
    let objects = mapper.mapResponse(value, type, shape)
    if !mapper.errors.isEmpty { return .failure(StrataError(mapper.errors)) }
    return .success(objects)
  }

  /// Maps an API response in UTF-8 JSON text, as `mapResponseValue` maps it
  /// parsed: read straight into models by `DirectReader`; when that gives up
  /// (any error), the byte parser builds only the keys down to the records
  /// and the metadata and what their models read, and the mapper reports
  /// every error (jansson parses anything unusual). `pruned: false` takes
  /// the DOM path, for tests.
  package func mapResponseBytes(
    _ model: String, _ bytes: UnsafeBufferPointer<UInt8>, _ request: ResponseRequest = ResponseRequest(),
    pruned: Bool = true
  ) -> Result<ResponseObjects, StrataError> {
    let type: ModelType
    let shape: ResponseShape
    switch responseTarget(model, request) {
    case .success(let found): (type, shape) = found
    case .failure(let error): return .failure(error)
    }
    if pruned {
      let meta = shape.metadata(in: self).map { ($0.location.keys, $0.type) }
      let root = shape.root?.keys ?? []
      if let objects = DirectReader.response(bytes, type, root: root, meta: meta, in: self) {
        return .success(objects)
      }
      let plan = ResponsePlan(schema: self, records: type, root: root, meta: meta)
      let answer = withExtendedLifetime(plan) {
        mapPruned(bytes, plan.want) { mapper, value in mapper.mapResponse(value, type, shape) }
      }
      if let answer { return answer }
    }
    switch JSONText.parse(bytes) {
    case .success(let value):
      defer { JValue.release(value) }
      return mapResponseValue(model, value, request)
    case .failure(let error): return .failure(error)
    }
  }

  /// The record model named `model` and its response shape with the call's options.
  private func responseTarget(_ model: String, _ request: ResponseRequest) -> Result<
    (ModelType, ResponseShape), StrataError
  > {
    switch modelType(model) {
    case .success(let type): return responseShape(type, request).map { (type, $0) }
    case .failure(let error): return .failure(error)
    }
  }

  /// The model's declared root and meta, with the call's options over them.
  package func responseShape(_ type: ModelType, _ request: ResponseRequest) -> Result<
    ResponseShape, StrataError
  > {
    var shape = type.response
    var problems: [String] = []
    if let root = request.root {
      switch ResponseLocation.parse(root) {
      case .success(let location): shape.root = location
      case .failure(let problem): problems.append("the root option: \(problem.message)")
      }
    }
    if let meta = request.meta {
      var location: ResponseLocation? = nil
      switch ResponseLocation.parse(meta.path) {
      case .success(let parsed): location = parsed
      case .failure(let problem): problems.append("the meta option's path: \(problem.message)")
      }
      var index: Int? = nil
      switch modelType(meta.model) {
      case .success(let type): index = type.index
      case .failure(let error):
        problems.append("the meta option's model: \(error.errors.first?.message ?? "unknown model")")
      }
      if let location, let index { shape.meta = ResponseMetaSpec(location: location, model: index) }
    }
    if !problems.isEmpty {
      return .failure(StrataError(problems.map { ErrorDetail(path: "", code: .argument, message: $0) }))
    }
    return .success(shape)
  }
}

/// Finding a location in a response.
enum ResponseLookup {
  /// The value there.
  case found(JPtr)
  /// The key after the first `count` keys is absent.
  case missing(count: Int)
  /// A value on the way is null.
  case throughNull
  /// The value after the first `count` keys is not an object.
  case blocked(count: Int, JPtr)

  /// Follows `location` from the top of `response` (borrowed).
  static func find(_ location: ResponseLocation, in response: JPtr) -> ResponseLookup {
    var current = response
    for (position, key) in location.keys.enumerated() {
      guard JValue.isObject(current) else {
        return JValue.isNull(current) ? .throughNull : .blocked(count: position, current)
      }
      guard let next = JValue.member(current, key) else { return .missing(count: position + 1) }
      current = next
    }
    return .found(current)
  }
}

/// What a response holds at the root of its records.
package enum RecordsRoot {
  /// No records: null there, or null on the way.
  case none
  /// One record.
  case object(JPtr)
  /// An array of records.
  case array(JPtr)
  /// Why there are none: a missing root (`missing`), a root through a
  /// non-object (`path`), a root holding neither (`type`).
  case failed(ErrorDetail)

  /// The records of `type` at `location` in `response` (borrowed).
  package static func find(_ location: ResponseLocation, in response: JPtr, type: ModelType) -> RecordsRoot {
    let place = location.text.isEmpty ? "the whole response" : "the root '\(location.text)'"
    switch ResponseLookup.find(location, in: response) {
    case .throughNull: return .none
    case .missing(let count):
      let key = location.keys.dropFirst(count - 1).first?.name ?? ""
      return .failed(
        ErrorDetail(
          path: location.pointer(count), model: type.name, code: .missing,
          message: "the response has no key '\(key)': \(place) of the '\(type.name)' records is missing"))
    case .blocked(let count, let through):
      return .failed(
        ErrorDetail(
          path: location.pointer(count), model: type.name, code: .path,
          message:
            "\(place) of the '\(type.name)' records runs through \(JValue.typeName(through)), not an object"))
    case .found(let value):
      if JValue.isNull(value) { return .none }
      if JValue.isObject(value) { return .object(value) }
      if JValue.isArray(value) { return .array(value) }
      return .failed(
        ErrorDetail(
          path: location.pointer(location.keys.count), model: type.name, code: .type,
          message:
            "expected an array or an object of '\(type.name)' records at \(place), found \(JValue.typeName(value))"
        ))
    }
  }
}

extension Mapper {
  /// Maps the records and the metadata of `response` (borrowed) as `shape`
  /// places them; the errors are the mapper's.
  mutating func mapResponse(_ response: JPtr, _ type: ModelType, _ shape: ResponseShape) -> ResponseObjects {
    let records = mapRecords(response, type: type, root: shape.root)
    var metadata: ModelObject? = nil
    if let meta = shape.metadata(in: schema) {
      metadata = mapMetadata(response, type: meta.type, location: meta.location)
    }
    return ResponseObjects(records: records, metadata: metadata)
  }

  /// Maps the records at `root` (nil: the whole response): an array to one
  /// record per element, an object to one record, null to none.
  mutating func mapRecords(_ response: JPtr, type: ModelType, root: ResponseLocation?) -> [ModelObject] {
    let location = root ?? ResponseLocation(keys: [], text: "")
    let found = RecordsRoot.find(location, in: response, type: type)
    let saved = steps
    defer { steps = saved }
    steps += location.keys.map { PathStep.name($0.name) }
    let value: JPtr
    switch found {
    case .none: return []
    case .failed(let detail):
      errors.append(detail)
      return []
    case .object(let object): return mapRoot(object, type: type).map { [$0] } ?? []
    case .array(let array): value = array
    }
    let count = json_array_size(value)
    var records: [ModelObject] = []
    records.reserveCapacity(count)
    for position in 0..<count {
      guard let element = json_array_get(value, position) else { continue }
      steps.append(.index(position))
      if let record = mapRoot(element, type: type) { records.append(record) }
      steps.removeLast()
    }
    return records
  }

  /// Maps the metadata at `location` onto `type`: nil when it is absent or null.
  package mutating func mapMetadata(_ response: JPtr, type: ModelType, location: ResponseLocation)
    -> ModelObject?
  {
    switch ResponseLookup.find(location, in: response) {
    case .missing, .throughNull: return nil
    // A response that is not an object (a bare array) has no keys, so no metadata.
    case .blocked(count: 0, _): return nil
    case .blocked(let count, let through):
      errors.append(
        ErrorDetail(
          path: location.pointer(count), model: type.name, code: .path,
          message:
            "the metadata path '\(location.text)' of '\(type.name)' runs through \(JValue.typeName(through)), not an object"
        ))
      return nil
    case .found(let value):
      if JValue.isNull(value) { return nil }
      let saved = steps
      defer { steps = saved }
      steps += location.keys.map { PathStep.name($0.name) }
      return mapRoot(value, type: type)
    }
  }
}
