/// One value being written by the bridge's `Encoder`: containers fill it in
/// place (a reference, since nested containers outlive the calls that made
/// them), and `json` reads the finished tree.
final class EncodingNode {
  enum Content {
    case unset
    case leaf(JSON)
    case object(keys: [String], members: [String: EncodingNode])
    case array([EncodingNode])
  }

  var content: Content = .unset

  /// The value written; a node nothing was written into is an empty object
  /// (as a type that encodes no keys).
  var json: JSON {
    switch content {
    case .unset: return .object(JSONObject())
    case .leaf(let value): return value
    case .object(let keys, let members):
      var object = JSONObject()
      for key in keys { object[key] = members[key]?.json ?? .null }
      return .object(object)
    case .array(let elements): return .array(elements.map(\.json))
    }
  }

  /// The node of member `key`, made (or replaced by a fresh one) now.
  func member(_ key: String) -> EncodingNode {
    var keys: [String] = []
    var members: [String: EncodingNode] = [:]
    if case .object(let oldKeys, let oldMembers) = content {
      keys = oldKeys
      members = oldMembers
    }
    let node = EncodingNode()
    if members[key] == nil { keys.append(key) }
    members[key] = node
    content = .object(keys: keys, members: members)
    return node
  }

  /// Makes this node an object, keeping members written by an earlier container.
  func becomeObject() {
    if case .object = content { return }
    content = .object(keys: [], members: [:])
  }

  /// Makes this node an array, keeping elements written by an earlier container.
  func becomeArray() {
    if case .array = content { return }
    content = .array([])
  }

  /// A new node appended to this array.
  func append() -> EncodingNode {
    var elements: [EncodingNode] = []
    if case .array(let old) = content { elements = old }
    let node = EncodingNode()
    elements.append(node)
    content = .array(elements)
    return node
  }

  var count: Int {
    switch content {
    case .array(let elements): return elements.count
    case .object(let keys, _): return keys.count
    default: return 0
    }
  }
}

/// The `Encoder` of the Codable bridge: writes an `Encodable` value as a
/// canonical value (keys as the value's coding keys, which name properties).
struct CanonicalEncoder: Encoder {
  let node: EncodingNode
  let codingPath: [any CodingKey]
  /// The lowest stack address encoding may reach on this thread (see `StackGuard`).
  let stackLimit: UInt
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// The encoder of a root value, written into `node`.
  init(root node: EncodingNode) {
    self.init(node: node, codingPath: [], stackLimit: StackGuard.limit())
  }

  init(node: EncodingNode, codingPath: [any CodingKey], stackLimit: UInt) {
    self.node = node
    self.codingPath = codingPath
    self.stackLimit = stackLimit
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    node.becomeObject()
    return KeyedEncodingContainer(CanonicalKeyedEncoding<Key>(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    node.becomeArray()
    return CanonicalUnkeyedEncoding(encoder: self)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { CanonicalSingleEncoding(encoder: self) }

  /// Writes `value` into this encoder's node: through
  /// ``CanonicalValueConvertible`` when its type adopts it, else through its
  /// `Encodable` conformance.
  func encodeValue<T: Encodable>(_ value: T) throws {
    if codingPath.count > maxDepth || !StackGuard.hasRoom(stackLimit) {
      throw CodingDepthError(codingPath: codingPath)
    }
    if let convertible = value as? any CanonicalValueConvertible {
      do {
        node.content = .leaf(try convertible.canonicalValue())
      } catch {
        throw EncodingError.invalidValue(
          value,
          EncodingError.Context(codingPath: codingPath, debugDescription: "\(error)", underlyingError: error))
      }
      return
    }
    try value.encode(to: self)
  }

  /// The encoder of a child node at `key`.
  func child(_ node: EncodingNode, key: any CodingKey) -> CanonicalEncoder {
    CanonicalEncoder(node: node, codingPath: codingPath + [key], stackLimit: stackLimit)
  }

  func set(_ value: JSON) { node.content = .leaf(value) }

  func integer<T: BinaryInteger>(_ value: T) throws -> JSON {
    guard let exact = Int64(exactly: value) else {
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(
          codingPath: codingPath, debugDescription: "\(value) does not fit in 64-bit JSON integers"))
    }
    return .int(exact)
  }

  func real<T: BinaryFloatingPoint>(_ value: T) throws -> JSON {
    guard value.isFinite else {
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) is not a JSON number"))
    }
    return .double(Double(value))
  }
}

/// The single-value container of the bridge's encoder.
struct CanonicalSingleEncoding: SingleValueEncodingContainer {
  let encoder: CanonicalEncoder
  var codingPath: [any CodingKey] { encoder.codingPath }

  mutating func encodeNil() throws { encoder.set(.null) }
  mutating func encode(_ value: Bool) throws { encoder.set(.bool(value)) }
  mutating func encode(_ value: String) throws { encoder.set(.string(value)) }
  mutating func encode(_ value: Double) throws { encoder.set(try encoder.real(value)) }
  mutating func encode(_ value: Float) throws { encoder.set(try encoder.real(value)) }
  mutating func encode(_ value: Int) throws { encoder.set(try encoder.integer(value)) }
  mutating func encode(_ value: Int8) throws { encoder.set(try encoder.integer(value)) }
  mutating func encode(_ value: Int16) throws { encoder.set(try encoder.integer(value)) }
  mutating func encode(_ value: Int32) throws { encoder.set(try encoder.integer(value)) }
  mutating func encode(_ value: Int64) throws { encoder.set(try encoder.integer(value)) }
  mutating func encode(_ value: UInt) throws { encoder.set(try encoder.integer(value)) }
  mutating func encode(_ value: UInt8) throws { encoder.set(try encoder.integer(value)) }
  mutating func encode(_ value: UInt16) throws { encoder.set(try encoder.integer(value)) }
  mutating func encode(_ value: UInt32) throws { encoder.set(try encoder.integer(value)) }
  mutating func encode(_ value: UInt64) throws { encoder.set(try encoder.integer(value)) }
  mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}

/// The keyed container of the bridge's encoder: an object.
struct CanonicalKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: CanonicalEncoder
  var codingPath: [any CodingKey] { encoder.codingPath }

  private func member(_ key: Key) -> CanonicalEncoder {
    encoder.child(encoder.node.member(key.stringValue), key: key)
  }

  mutating func encodeNil(forKey key: Key) throws { member(key).set(.null) }
  mutating func encode(_ value: Bool, forKey key: Key) throws { member(key).set(.bool(value)) }
  mutating func encode(_ value: String, forKey key: Key) throws { member(key).set(.string(value)) }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    try set(member(key)) { try $0.real(value) }
  }
  mutating func encode(_ value: Float, forKey key: Key) throws { try set(member(key)) { try $0.real(value) } }
  mutating func encode(_ value: Int, forKey key: Key) throws {
    try set(member(key)) { try $0.integer(value) }
  }
  mutating func encode(_ value: Int8, forKey key: Key) throws {
    try set(member(key)) { try $0.integer(value) }
  }
  mutating func encode(_ value: Int16, forKey key: Key) throws {
    try set(member(key)) { try $0.integer(value) }
  }
  mutating func encode(_ value: Int32, forKey key: Key) throws {
    try set(member(key)) { try $0.integer(value) }
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws {
    try set(member(key)) { try $0.integer(value) }
  }
  mutating func encode(_ value: UInt, forKey key: Key) throws {
    try set(member(key)) { try $0.integer(value) }
  }
  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    try set(member(key)) { try $0.integer(value) }
  }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    try set(member(key)) { try $0.integer(value) }
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    try set(member(key)) { try $0.integer(value) }
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws {
    try set(member(key)) { try $0.integer(value) }
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try member(key).encodeValue(value)
  }

  private func set(_ child: CanonicalEncoder, _ make: (CanonicalEncoder) throws -> JSON) throws {
    child.set(try make(child))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    member(key).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    member(key).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    encoder.child(encoder.node.member("super"), key: BridgeKey(stringValue: "super"))
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder { member(key) }
}

/// The unkeyed container of the bridge's encoder: an array.
struct CanonicalUnkeyedEncoding: UnkeyedEncodingContainer {
  let encoder: CanonicalEncoder
  var codingPath: [any CodingKey] { encoder.codingPath }
  var count: Int { encoder.node.count }

  private func next() -> CanonicalEncoder {
    let index = encoder.node.count
    return encoder.child(encoder.node.append(), key: BridgeKey(intValue: index))
  }

  private func add(_ make: (CanonicalEncoder) throws -> JSON) throws {
    let child = next()
    child.set(try make(child))
  }

  mutating func encodeNil() throws { next().set(.null) }
  mutating func encode(_ value: Bool) throws { next().set(.bool(value)) }
  mutating func encode(_ value: String) throws { next().set(.string(value)) }
  mutating func encode(_ value: Double) throws { try add { try $0.real(value) } }
  mutating func encode(_ value: Float) throws { try add { try $0.real(value) } }
  mutating func encode(_ value: Int) throws { try add { try $0.integer(value) } }
  mutating func encode(_ value: Int8) throws { try add { try $0.integer(value) } }
  mutating func encode(_ value: Int16) throws { try add { try $0.integer(value) } }
  mutating func encode(_ value: Int32) throws { try add { try $0.integer(value) } }
  mutating func encode(_ value: Int64) throws { try add { try $0.integer(value) } }
  mutating func encode(_ value: UInt) throws { try add { try $0.integer(value) } }
  mutating func encode(_ value: UInt8) throws { try add { try $0.integer(value) } }
  mutating func encode(_ value: UInt16) throws { try add { try $0.integer(value) } }
  mutating func encode(_ value: UInt32) throws { try add { try $0.integer(value) } }
  mutating func encode(_ value: UInt64) throws { try add { try $0.integer(value) } }
  mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    next().container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }

  mutating func superEncoder() -> any Encoder { next() }
}
