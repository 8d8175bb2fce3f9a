import Strata
import Testing

/// A value read and written only through the Codable containers (never the
/// bridge's `CanonicalValueConvertible` hook), to drive the bridge's decoder
/// and encoder over every model the conformance cases map.
private indirect enum Tree: Codable, Equatable {
  case null, bool(Bool), int(Int64), double(Double), string(String), array([Tree]), object([String: Tree])

  private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  init(from decoder: any Decoder) throws {
    if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
      var members: [String: Tree] = [:]
      for key in keyed.allKeys { members[key.stringValue] = try keyed.decode(Tree.self, forKey: key) }
      self = .object(members)
    } else if var unkeyed = try? decoder.unkeyedContainer() {
      var elements: [Tree] = []
      while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(Tree.self)) }
      self = .array(elements)
    } else {
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
  }

  func encode(to encoder: any Encoder) throws {
    switch self {
    case .object(let members):
      var keyed = encoder.container(keyedBy: AnyKey.self)
      for (key, value) in members { try keyed.encode(value, forKey: AnyKey(stringValue: key)) }
    case .array(let elements):
      var unkeyed = encoder.unkeyedContainer()
      for element in elements { try unkeyed.encode(element) }
    case .null:
      var single = encoder.singleValueContainer()
      try single.encodeNil()
    case .bool(let flag):
      var single = encoder.singleValueContainer()
      try single.encode(flag)
    case .int(let number):
      var single = encoder.singleValueContainer()
      try single.encode(number)
    case .double(let number):
      var single = encoder.singleValueContainer()
      try single.encode(number)
    case .string(let text):
      var single = encoder.singleValueContainer()
      try single.encode(text)
    }
  }

  /// The tree of a JSON value, integral reals as integers (Codable cannot
  /// tell `3.0` from `3`).
  init(_ json: JSON) {
    switch json {
    case .null: self = .null
    case .bool(let flag): self = .bool(flag)
    case .int(let number): self = .int(number)
    case .double(let number):
      if let exact = Int64(exactly: number) { self = .int(exact) } else { self = .double(number) }
    case .string(let text): self = .string(text)
    case .array(let elements): self = .array(elements.map(Tree.init))
    case .object(let object): self = .object(Dictionary(object.map { ($0.key, Tree($0.value)) }) { $1 })
    }
  }
}

/// The schema and model of a case that maps one model without errors; nil
/// for the other cases.
private func mappedModel(_ testCase: ConformanceCase) -> (Schema, Model)? {
  let body = testCase.body
  guard body["schemaErrors"] == nil, body["errors"] == nil, body["many"] != .bool(true),
    case .string(let name)? = body["model"], let input = body["input"],
    let schema = try? Schema(testCase.schema), let model = try? schema.map(name, from: input)
  else { return nil }
  return (schema, model)
}

/// Swift only (Codable has no C or Python face): every model a conformance
/// case maps is decoded through the bridge's containers into a tree equal to
/// its canonical dictionary, and that tree, encoded, reads back as a model
/// with the same canonical dictionary.
@Test("conformance through Codable", arguments: ConformanceCase.all())
func codableConformance(_ testCase: ConformanceCase) throws {
  guard let (schema, model) = mappedModel(testCase) else { return }
  let tree = try model.decode(Tree.self)
  #expect(tree == Tree(model.dictionary), "decode")
  let back = try schema.model(model.name, from: tree)
  #expect(Tree(back.dictionary) == Tree(model.dictionary), "model(from:)")
}

/// The pass above is not vacuous: most cases map a model it checks.
@Test func codableConformanceChecksManyCases() {
  let checked = ConformanceCase.all().filter { mappedModel($0) != nil }
  #expect(checked.count >= 100, "only \(checked.count) conformance cases map a model")
}
