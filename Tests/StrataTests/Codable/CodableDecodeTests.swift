import Strata
import Testing

@Test func decodesFromJSONThroughTheSchema() throws {
  let schema = try codableSchema()
  let issue = try schema.decode(Ticket.self, from: ticketJSON)
  #expect(issue.number == 7)
  #expect(issue.state == .open)  // enum mapped to the model value, then the Swift raw value
  #expect(issue.reporterLogin == "mona")  // key path user.login
  #expect(issue.labels == [Label(name: "bug", color: "f00"), Label(name: "ui", color: nil)])
  #expect(issue.assignee == User(login: "hubot", homepage: "https://hubot.example"))
  #expect(issue.byName == ["bug": Label(name: "bug", color: nil)])
  #expect(issue.createdAt == "2024-06-19T14:02:11Z")  // canonical RFC 3339 UTC
  #expect(issue.priority == 2)  // "2" through string-number
  #expect(issue.tags == ["a", "b"])
  #expect(issue.extra == ["any": [1, true]])
  #expect(issue.starred == false)  // json: false, its default
  #expect(issue.commenters == ["a", "b"])
}

@Test func decodesFromTextAndBytesAndModels() throws {
  let schema = try codableSchema()
  let text = ticketJSON.description
  let fromText = try schema.decode(Ticket.self, parsing: text)
  let fromBytes = try schema.decode(Ticket.self, parsing: Array(text.utf8))
  let fromModel = try schema.map("Ticket", from: ticketJSON).decode(Ticket.self)
  #expect(fromText == fromBytes)
  #expect(fromText == fromModel)
  #expect(fromText.number == 7)
}

@Test func modelNameDefaultsToTheTypeNameOrIsGiven() throws {
  struct Tag: Decodable { var name: String }
  let schema = try codableSchema()
  #expect(try schema.decode(Tag.self, model: "Label", from: ["name": "x"]).name == "x")
  let failure = errors { _ = try schema.decode(Tag.self, from: ["name": "x"]) }
  #expect(failure.first?.code == .argument)
  #expect(failure.first?.message.contains("'Tag'") == true)
}

@Test func optionalsAbsentAndNullBothDecodeToNil() throws {
  /// Tells absent from null with a custom init, as a struct that cares can.
  struct Presence: Decodable {
    var bodyState: String
    var reporterState: String
    enum CodingKeys: String, CodingKey { case body, reporterLogin }
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      func state(_ key: CodingKeys) throws -> String {
        guard container.contains(key) else { return "absent" }
        return try container.decodeNil(forKey: key) ? "null" : "value"
      }
      bodyState = try state(.body)
      reporterState = try state(.reporterLogin)
    }
  }
  let schema = try codableSchema()
  let input: JSON = ["number": 1, "title": "t", "body": nil, "created_at": "2024-01-01"]
  let issue = try schema.decode(Ticket.self, from: input)
  #expect(issue.body == nil)
  #expect(issue.reporterLogin == nil)
  let presence = try schema.decode(Presence.self, model: "Ticket", from: input)
  #expect(presence.bodyState == "null")
  #expect(presence.reporterState == "absent")
}

@Test func subtypesDecodeByTheirDollarType() throws {
  struct Message: Decodable {
    var type: String
    var id: Int
    var body: String?
    var imageURL: String?
    enum CodingKeys: String, CodingKey {
      case type = "$type"
      case id, body, imageURL
    }
  }
  struct Thread: Decodable { var messages: [Message] }
  let schema = try codableSchema()
  let thread = try schema.decode(
    Thread.self,
    from: [
      "messages": [
        ["kind": "text", "id": 1, "body": "hi"], ["kind": "picture", "id": 2, "image_url": "https://x.y/z"],
      ]
    ])
  #expect(thread.messages.map(\.type) == ["TextMessage", "PictureMessage"])
  #expect(thread.messages[1].imageURL == "https://x.y/z")
  // A property of the subtype only, read where the value is of the base model.
  let failure = errors {
    _ = try schema.decode(
      Thread.self, from: ["messages": [["kind": "picture", "id": 2, "image_url": "https://x.y"]]])
  }
  #expect(failure.isEmpty)
}

@Test func decodeManyPrefixesTheElementIndex() throws {
  struct Label: Decodable { var name: String; var color: Int? }
  let schema = try codableSchema()
  let labels = try schema.decodeMany(Label.self, from: [["name": "a"], ["name": "b"]])
  #expect(labels.map(\.name) == ["a", "b"])
  let failure = errors {
    _ = try schema.decodeMany(Label.self, from: [["name": "a"], ["name": "b", "color": "red"]])
  }
  #expect(failure.map(\.path) == ["/1/color"])
  #expect(failure.first?.code == .type)
}

@Test func timestampsAndJSONRoundTripThroughTheBridge() throws {
  struct Stamped: Codable, Equatable {
    var number: Int
    var title: String
    var createdAt: Timestamp
    var extra: JSON
  }
  let schema = try codableSchema()
  let value = try schema.decode(
    Stamped.self, model: "Ticket",
    from: ["number": 1, "title": "t", "created_at": "2024-06-19T16:02:11.5+02:00", "extra": [1, "x"]])
  #expect(value.createdAt == Timestamp(seconds: 1_718_805_731, nanoseconds: 500_000_000))
  #expect(value.createdAt.description == "2024-06-19T14:02:11.5Z")
  let model = try schema.model("Ticket", from: value)
  #expect(model["createdAt"] == "2024-06-19T14:02:11.5Z")
  #expect(try model.decode(Stamped.self) == value)
  #expect(try Timestamp(parsing: "1970-01-01T00:00:01Z") == Timestamp(seconds: 1))
  #expect(errors { _ = try Timestamp(parsing: "yesterday") }.first?.code == .format)
}
