extension JSON: Codable {
  /// Reads any JSON value through any `Decoder` (the bridge hands it the
  /// canonical value as is; other decoders are asked for null, a boolean, an
  /// integer, a real, a string, an array, then an object, in that order).
  public init(from decoder: any Decoder) throws {
    if let keyed = try? decoder.container(keyedBy: BridgeKey.self) {
      var object = JSONObject()
      for key in keyed.allKeys { object[key.stringValue] = try keyed.decode(JSON.self, forKey: key) }
      self = .object(object)
      return
    }
    if var unkeyed = try? decoder.unkeyedContainer() {
      var elements: [JSON] = []
      while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(JSON.self)) }
      self = .array(elements)
      return
    }
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self = .null
    } else if let flag = try? single.decode(Bool.self) {
      self = .bool(flag)
    } else if let number = try? single.decode(Int64.self) {
      self = .int(number)
    } else if let number = try? single.decode(Double.self) {
      self = .double(number)
    } else {
      self = .string(try single.decode(String.self))
    }
  }

  /// Writes the value through any `Encoder`, object keys in order.
  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .object(let object):
      var keyed = encoder.container(keyedBy: BridgeKey.self)
      for (key, value) in object { try keyed.encode(value, forKey: BridgeKey(stringValue: key)) }
    case .array(let elements):
      var unkeyed = encoder.unkeyedContainer()
      for element in elements { try unkeyed.encode(element) }
    default:
      var single = encoder.singleValueContainer()
      switch self {
      case .null: try single.encodeNil()
      case .bool(let flag): try single.encode(flag)
      case .int(let number): try single.encode(number)
      case .double(let number): try single.encode(number)
      case .string(let text): try single.encode(text)
      case .array, .object: break
      }
    }
  }
}
