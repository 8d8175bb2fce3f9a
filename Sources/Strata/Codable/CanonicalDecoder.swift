/// The `Decoder` of the Codable bridge: reads a `Decodable` value from a
/// canonical value (a model's canonical dictionary and what it holds), with
/// the schema's shape alongside so that a model's keys can be checked
/// against its properties.
struct CanonicalDecoder: Decoder {
  /// The value being decoded.
  let value: JSON
  /// What the schema says about it.
  let shape: SchemaShape
  let schema: Schema
  let codingPath: [any CodingKey]
  /// The lowest stack address decoding may reach on this thread (see `StackGuard`).
  let stackLimit: UInt
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// The decoder of a root value.
  init(root value: JSON, shape: SchemaShape, schema: Schema) {
    self.init(value: value, shape: shape, schema: schema, codingPath: [], stackLimit: StackGuard.limit())
  }

  init(value: JSON, shape: SchemaShape, schema: Schema, codingPath: [any CodingKey], stackLimit: UInt) {
    self.value = value
    self.shape = shape
    self.schema = schema
    self.codingPath = codingPath
    self.stackLimit = stackLimit
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let object) = value else {
      throw DecodingError.typeMismatch(
        [String: Any].self,
        DecodingError.Context(
          codingPath: codingPath, debugDescription: "expected an object, found \(value.typeName)")
      )
    }
    let model = shape.model(of: value, in: schema)
    return KeyedDecodingContainer(
      CanonicalKeyedDecoding<Key>(decoder: self, object: object, model: model))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let elements) = value else {
      throw DecodingError.typeMismatch(
        [Any].self,
        DecodingError.Context(
          codingPath: codingPath, debugDescription: "expected an array, found \(value.typeName)")
      )
    }
    return CanonicalUnkeyedDecoding(decoder: self, elements: elements)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

  /// The decoder of a member or element.
  func child(_ value: JSON, key: any CodingKey) -> CanonicalDecoder {
    CanonicalDecoder(
      value: value, shape: shape.child(key.stringValue, of: self.value, in: schema), schema: schema,
      codingPath: codingPath + [key], stackLimit: stackLimit)
  }

  /// Decodes a value of any type: through ``CanonicalValueConvertible`` when
  /// the type adopts it, else through its `Decodable` conformance.
  func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
    if codingPath.count > maxDepth || !StackGuard.hasRoom(stackLimit) {
      throw CodingDepthError(codingPath: codingPath)
    }
    if let convertible = type as? any CanonicalValueConvertible.Type {
      if case .null = value, !(type is any ExpressibleByNilLiteral.Type) {
        throw DecodingError.valueNotFound(
          type,
          DecodingError.Context(codingPath: codingPath, debugDescription: "expected \(type), found null"))
      }
      let decoded: any CanonicalValueConvertible
      do {
        decoded = try convertible.init(canonicalValue: value)
      } catch {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(codingPath: codingPath, debugDescription: "\(error)", underlyingError: error))
      }
      if let typed = decoded as? T { return typed }
    }
    return try T(from: self)
  }

  // MARK: scalars

  func mismatch(_ type: Any.Type, _ expected: String) -> DecodingError {
    if case .null = value {
      return DecodingError.valueNotFound(
        type,
        DecodingError.Context(codingPath: codingPath, debugDescription: "expected \(expected), found null"))
    }
    return DecodingError.typeMismatch(
      type,
      DecodingError.Context(
        codingPath: codingPath, debugDescription: "expected \(expected), found \(value.typeName) \(value)"))
  }

  func bool() throws -> Bool {
    guard case .bool(let flag) = value else { throw mismatch(Bool.self, "a boolean") }
    return flag
  }

  func string() throws -> String {
    guard case .string(let text) = value else { throw mismatch(String.self, "a string") }
    return text
  }

  func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
    switch value {
    case .int(let number):
      if let exact = T(exactly: number) { return exact }
    case .double(let number):
      if let exact = T(exactly: number) { return exact }
    default:
      throw mismatch(type, "an integer")
    }
    throw DecodingError.typeMismatch(
      type,
      DecodingError.Context(codingPath: codingPath, debugDescription: "\(value) does not fit in \(type)"))
  }

  func real<T: BinaryFloatingPoint>(_ type: T.Type) throws -> T {
    switch value {
    case .double(let number): return T(number)
    case .int(let number): return T(number)
    default: throw mismatch(type, "a number")
    }
  }
}

extension CanonicalDecoder: SingleValueDecodingContainer {
  func decodeNil() -> Bool {
    if case .null = value { return true }
    return false
  }
  func decode(_ type: Bool.Type) throws -> Bool { try bool() }
  func decode(_ type: String.Type) throws -> String { try string() }
  func decode(_ type: Double.Type) throws -> Double { try real(type) }
  func decode(_ type: Float.Type) throws -> Float { try real(type) }
  func decode(_ type: Int.Type) throws -> Int { try integer(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
  func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

/// A key of the bridge's own: array indices and `super`.
struct BridgeKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(stringValue: String) {
    self.stringValue = stringValue
    self.intValue = nil
  }
  init(intValue: Int) {
    self.stringValue = String(intValue)
    self.intValue = intValue
  }
}

/// A value nested deeper than `maxDepth`, or than the thread's stack allows:
/// reported as a `depth` error.
struct CodingDepthError: Error {
  let codingPath: [any CodingKey]
}

/// A key that names no property of the model being decoded: an API misuse,
/// reported as an `argument` error.
struct UnknownPropertyError: Error {
  let codingPath: [any CodingKey]
  let model: String
  let key: String
}
