/// The keyed container of the bridge: a model's canonical dictionary (keys
/// are property names, checked against the model), a `{T}` dictionary, or an
/// object inside a `json` value.
struct CanonicalKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: CanonicalDecoder
  let object: JSONObject
  /// The model whose canonical dictionary this is (its subtype when the
  /// dictionary names one), or nil for other objects.
  let model: ModelType?

  var codingPath: [any CodingKey] { decoder.codingPath }

  /// The keys present (a subtype's dictionary includes `"$type"`).
  var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

  /// Refuses a key that is no property of the model nor of the subtypes the
  /// value could have been (a typo in the struct would otherwise read as
  /// absent forever).
  private func check(_ key: Key) throws {
    let name = key.stringValue
    guard let model, model.propertyIndex[name] == nil, name != "$type" else { return }
    if case .model(let declared) = decoder.shape {
      let schema = decoder.schema
      if declared.propertyIndex[name] != nil { return }
      for other in schema.models where other.propertyIndex[name] != nil {
        if schema.isSubtype(other.index, of: declared.index) { return }
      }
    }
    throw UnknownPropertyError(codingPath: codingPath + [key], model: model.name, key: name)
  }

  private func member(_ key: Key) throws -> CanonicalDecoder {
    try check(key)
    guard let value = object[key.stringValue] else {
      let absent = model == nil ? "no key '\(key.stringValue)'" : "property '\(key.stringValue)' is absent"
      throw DecodingError.keyNotFound(
        key, DecodingError.Context(codingPath: codingPath, debugDescription: absent))
    }
    return decoder.child(value, key: key)
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    try member(key).decodeNil()
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(key).bool() }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(key).string() }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(key).real(type) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try member(key).real(type) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(key).integer(type) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try member(key).integer(type) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try member(key).integer(type) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try member(key).integer(type) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try member(key).integer(type) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try member(key).integer(type) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try member(key).integer(type) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try member(key).integer(type) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try member(key).integer(type) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try member(key).integer(type) }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try member(key).decodeValue(type) }

  /// Absent and null both give nil; a key that is no property of the model is an error.
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard let member = try present(key) else { return nil }
    return try member.decodeValue(type)
  }

  /// The decoder of a member that holds a value; nil when absent or null.
  private func present(_ key: Key) throws -> CanonicalDecoder? {
    try check(key)
    guard let value = object[key.stringValue] else { return nil }
    if case .null = value { return nil }
    return decoder.child(value, key: key)
  }

  // The standard library gives each scalar its own `decodeIfPresent` (whose
  // default would skip the property check): each goes through `present`.
  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key)?.bool() }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key)?.string() }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try present(key)?.real(type)
  }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try present(key)?.real(type) }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key)?.integer(type) }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try present(key)?.integer(type) }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
    try present(key)?.integer(type)
  }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
    try present(key)?.integer(type)
  }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
    try present(key)?.integer(type)
  }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try present(key)?.integer(type) }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
    try present(key)?.integer(type)
  }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
    try present(key)?.integer(type)
  }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
    try present(key)?.integer(type)
  }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
    try present(key)?.integer(type)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try member(key).container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try member(key).unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder {
    let key = BridgeKey(stringValue: "super")
    return decoder.child(object["super"] ?? .null, key: key)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    try check(key)
    return decoder.child(object[key.stringValue] ?? .null, key: key)
  }
}

/// The unkeyed container of the bridge: an array.
struct CanonicalUnkeyedDecoding: UnkeyedDecodingContainer {
  let decoder: CanonicalDecoder
  let elements: [JSON]
  private(set) var currentIndex = 0

  init(decoder: CanonicalDecoder, elements: [JSON]) {
    self.decoder = decoder
    self.elements = elements
  }

  var codingPath: [any CodingKey] { decoder.codingPath }
  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  /// The decoder of the next element; moves past it.
  private mutating func next(_ type: Any.Type) throws -> CanonicalDecoder {
    guard currentIndex < elements.count else {
      throw DecodingError.valueNotFound(
        type,
        DecodingError.Context(
          codingPath: codingPath + [BridgeKey(intValue: currentIndex)],
          debugDescription: "the array has only \(elements.count) elements"))
    }
    let element = decoder.child(elements[currentIndex], key: BridgeKey(intValue: currentIndex))
    currentIndex += 1
    return element
  }

  mutating func decodeNil() throws -> Bool {
    guard currentIndex < elements.count, case .null = elements[currentIndex] else { return false }
    currentIndex += 1
    return true
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).bool() }
  mutating func decode(_ type: String.Type) throws -> String { try next(type).string() }
  mutating func decode(_ type: Double.Type) throws -> Double { try next(type).real(type) }
  mutating func decode(_ type: Float.Type) throws -> Float { try next(type).real(type) }
  mutating func decode(_ type: Int.Type) throws -> Int { try next(type).integer(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).integer(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).integer(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).integer(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).integer(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).integer(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).integer(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).integer(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).integer(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).integer(type) }
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decodeValue(type) }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try next([String: Any].self).container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try next([Any].self).unkeyedContainer()
  }

  mutating func superDecoder() throws -> any Decoder { try next(Any.self) }
}
