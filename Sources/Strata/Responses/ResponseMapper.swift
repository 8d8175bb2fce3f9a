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
    switch modelType(model) {
    case .success(let found): type = found
    case .failure(let error): return .failure(error)
    }
    let shape: ResponseShape
    switch responseShape(type, request) {
    case .success(let found): shape = found
    case .failure(let error): return .failure(error)
    }
    var mapper = Mapper(schema: self, mode: .json)
    let records = mapper.mapRecords(value, type: type, root: shape.root)
    var metadata: ModelObject? = nil
    if let meta = shape.meta, meta.model >= 0, meta.model < models.count {
      metadata = mapper.mapMetadata(value, type: models[meta.model], location: meta.location)
    }
    if !mapper.errors.isEmpty { return .failure(StrataError(mapper.errors)) }
    return .success(ResponseObjects(records: records, metadata: metadata))
  }

  /// The model's declared root and meta, with the call's options over them.
  private func responseShape(_ type: ModelType, _ request: ResponseRequest) -> Result<
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

extension Mapper {
  /// Maps the records at `root` (nil: the whole response): an array to one
  /// record per element, an object to one record, null to none.
  mutating func mapRecords(_ response: JPtr, type: ModelType, root: ResponseLocation?) -> [ModelObject] {
    let location = root ?? ResponseLocation(keys: [], text: "")
    let place = location.text.isEmpty ? "the whole response" : "the root '\(location.text)'"
    let value: JPtr
    switch ResponseLookup.find(location, in: response) {
    case .found(let found): value = found
    case .throughNull: return []
    case .missing(let count):
      let key = location.keys.dropFirst(count - 1).first?.name ?? ""
      errors.append(
        ErrorDetail(
          path: location.pointer(count), model: type.name, code: .missing,
          message: "the response has no key '\(key)': \(place) of the '\(type.name)' records is missing"))
      return []
    case .blocked(let count, let through):
      errors.append(
        ErrorDetail(
          path: location.pointer(count), model: type.name, code: .path,
          message:
            "\(place) of the '\(type.name)' records runs through \(JValue.typeName(through)), not an object"))
      return []
    }
    let saved = steps
    defer { steps = saved }
    steps += location.keys.map { PathStep.name($0.name) }
    if JValue.isNull(value) { return [] }
    if JValue.isObject(value) {
      guard let record = mapRoot(value, type: type) else { return [] }
      return [record]
    }
    guard JValue.isArray(value) else {
      errors.append(
        ErrorDetail(
          path: location.pointer(location.keys.count), model: type.name, code: .type,
          message:
            "expected an array or an object of '\(type.name)' records at \(place), found \(JValue.typeName(value))"
        ))
      return []
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
  mutating func mapMetadata(_ response: JPtr, type: ModelType, location: ResponseLocation) -> ModelObject? {
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
