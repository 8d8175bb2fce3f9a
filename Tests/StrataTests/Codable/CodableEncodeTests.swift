import Strata
import Testing

@Test func encodableValuesBecomeModelsAndRoundTrip() throws {
  let schema = try codableSchema()
  let issue = try schema.decode(Ticket.self, from: ticketJSON)
  let model = try schema.model("Ticket", from: issue)
  // The input's `"body": null` reads as nil, which encodes as absent.
  var withoutBody = ticketJSON
  if case .object(var object) = withoutBody {
    object["body"] = nil
    withoutBody = .object(object)
  }
  #expect(model == (try schema.map("Ticket", from: withoutBody)))
  #expect(try model.decode(Ticket.self) == issue)
  // Serialized back through the schema: JSON keys, key paths and enums reversed.
  let json = try model.json
  #expect(json["user"] == ["login": "mona"])
  #expect(json["state"] == "open")
  #expect(json["priority"] == "2")
}

@Test func nilOptionalsAreAbsentAndExplicitNullsAreNull() throws {
  struct Explicit: Encodable {
    var number = 1
    var title = "t"
    var createdAt = "2024-01-01T00:00:00Z"
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(number, forKey: .number)
      try container.encode(title, forKey: .title)
      try container.encode(createdAt, forKey: .createdAt)
      try container.encodeNil(forKey: .body)
    }
    enum CodingKeys: String, CodingKey { case number, title, createdAt, body }
  }
  let schema = try codableSchema()
  let plain = try schema.model(
    "Ticket",
    from: Ticket(
      number: 1, title: "t", state: nil, reporterLogin: nil, labels: [], assignee: nil, byName: nil,
      createdAt: nil,
      body: nil, priority: nil, tags: [], extra: nil, starred: true, commenters: nil))
  #expect(!plain.has("body"))
  #expect(plain["starred"] == true)
  let explicit = try schema.model("Ticket", from: Explicit())
  #expect(explicit.has("body"))
  #expect(explicit["body"] == .null)
}

@Test func encodableValuesAreValidatedWithCanonicalPaths() throws {
  struct BadIssue: Encodable {
    var number = 1
    var title = "t"
    var state = "open"  // the model value is "OPEN"
    var priority = 9  // validate max 5
    var labels = [["colour": "f00"]]  // no name, unknown key
    var homepage: String? = "https://x.y"
  }
  struct BadUser: Encodable {
    var login = "mona"
    var homepage = "not a url"
  }
  let schema = try codableSchema()
  let failure = errors { _ = try schema.model("Ticket", from: BadIssue()) }
  let byPath = Dictionary(failure.map { ($0.path, $0.code) }, uniquingKeysWith: { first, _ in first })
  #expect(byPath["/state"] == .enumValue)
  #expect(byPath["/priority"] == .validation)
  #expect(byPath["/labels/0/name"] == .missing)
  #expect(byPath["/labels/0/colour"] == .unknownKey)
  #expect(byPath["/homepage"] == .unknownKey)
  let user = errors { _ = try schema.model(from: BadUser()) }  // model name from the type: "BadUser"
  #expect(user.first?.code == .argument)
  let url = errors { _ = try schema.model("User", from: BadUser()) }
  #expect(url.first?.code == .format)
  #expect(url.first?.path == "/homepage")
}

@Test func valuesJSONCannotHoldAreTypeErrors() throws {
  struct Huge: Encodable { var number: UInt64 = .max }
  struct NotANumber: Encodable { var tags: [Double] = [1, .nan] }
  let schema = try codableSchema()
  let huge = errors { _ = try schema.model("Ticket", from: Huge()) }
  #expect(huge.first?.code == .type)
  #expect(huge.first?.path == "/number")
  let nan = errors { _ = try schema.model("Ticket", from: NotANumber()) }
  #expect(nan.first?.path == "/tags/1")
}

@Test func allIntegerAndFloatWidthsRoundTrip() throws {
  struct Numbers: Codable, Equatable {
    var i: Int, i8: Int8, i16: Int16, i32: Int32, i64: Int64
    var u: UInt, u8: UInt8, u16: UInt16, u32: UInt32, u64: UInt64
    var f: Float, d: Double, b: Bool, s: String
    var list: [Int16], map: [String: UInt8], nested: [[Double]]
  }
  let schema = try Schema(
    parsing: """
      {"strata": 1, "models": {"Numbers": {"properties": {
        "i": {"type": "int"}, "i8": {"type": "int"}, "i16": {"type": "int"}, "i32": {"type": "int"},
        "i64": {"type": "int"}, "u": {"type": "int"}, "u8": {"type": "int"}, "u16": {"type": "int"},
        "u32": {"type": "int"}, "u64": {"type": "int"}, "f": {"type": "double"}, "d": {"type": "double"},
        "b": {"type": "bool"}, "s": {"type": "string"}, "list": {"type": "[int]"}, "map": {"type": "{int}"},
        "nested": {"type": "[[double]]"}}}}}
      """)
  let value = Numbers(
    i: -1, i8: -8, i16: -16, i32: -32, i64: .min, u: 1, u8: 255, u16: 16, u32: 32, u64: 64, f: 1.5, d: -2.25,
    b: true, s: "s", list: [1, 2], map: ["a": 1], nested: [[1.5], []])
  let model = try schema.model(from: value)
  #expect(model["i64"] == .int(.min))
  #expect(model["d"] == -2.25)
  #expect(try model.decode(Numbers.self) == value)
}
