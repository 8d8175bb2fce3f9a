import Strata
import Testing

@Test func schemaErrorsKeepTheirPathsIntoTheJSON() throws {
  let schema = try codableSchema()
  let failure = errors {
    _ = try schema.decode(
      Ticket.self,
      from: [
        "number": "7", "user": ["login": 5], "labels": [["color": "f00"]], "priority": "9", "created_at": "x",
      ])
  }
  let paths = Set(failure.map(\.path))
  #expect(
    paths.isSuperset(of: ["/number", "/title", "/user/login", "/labels/0/name", "/priority", "/created_at"]))
  #expect(failure.first(where: { $0.path == "/priority" })?.code == .validation)
}

@Test func swiftTypeMismatchesPointIntoTheJSON() throws {
  struct Wrong: Decodable {
    var number: String  // the model holds an int
  }
  struct WrongNested: Decodable {
    struct Label: Decodable { var name: Int }
    var labels: [Label]
  }
  struct WrongKeyPath: Decodable { var reporterLogin: Int }
  struct WrongPluck: Decodable { var commenters: [Int] }
  let schema = try codableSchema()
  let first = errors { _ = try schema.decode(Wrong.self, model: "Ticket", from: ticketJSON) }
  #expect(first.count == 1)
  #expect(first.first?.code == .type)
  #expect(first.first?.path == "/number")
  #expect(first.first?.model == "Ticket")
  #expect(first.first?.property == "number")

  let nested = errors { _ = try schema.decode(WrongNested.self, model: "Ticket", from: ticketJSON) }
  #expect(nested.first?.path == "/labels/0/name")
  #expect(nested.first?.model == "Label")

  let keyPath = errors { _ = try schema.decode(WrongKeyPath.self, model: "Ticket", from: ticketJSON) }
  #expect(keyPath.first?.path == "/user/login")
  #expect(keyPath.first?.message.contains("canonical path /reporterLogin") == true)

  struct WrongDictionary: Decodable {
    struct Label: Decodable { var name: Bool }
    var byName: [String: Label]
  }
  let dictionary = errors { _ = try schema.decode(WrongDictionary.self, model: "Ticket", from: ticketJSON) }
  #expect(dictionary.first?.path == "/labels_by_name/bug/name")
  #expect(dictionary.first?.message.contains("canonical path /byName/bug/name") == true)

  struct WrongHidden: Decodable { var starred: String }  // json: false: no place in the JSON
  let hidden = errors { _ = try schema.decode(WrongHidden.self, model: "Ticket", from: ticketJSON) }
  #expect(hidden.first?.path == "/starred")
  #expect(hidden.first?.code == .type)

  let plucked = errors { _ = try schema.decode(WrongPluck.self, model: "Ticket", from: ticketJSON) }
  #expect(plucked.first?.path == "/comments/0/author")
  #expect(plucked.first?.message.contains("canonical path /commenters/0") == true)
}

@Test func missingNullAndUnknownPropertiesAreNamed() throws {
  struct NeedsBody: Decodable {
    var number: Int
    var body: String  // optional in the schema
  }
  struct NeedsReporter: Decodable { var reporterLogin: String }
  struct Typo: Decodable { var titel: String? }
  let schema = try codableSchema()
  let input: JSON = ["number": 1, "title": "t", "body": nil, "created_at": "2024-01-01"]
  let null = errors { _ = try schema.decode(NeedsBody.self, model: "Ticket", from: input) }
  #expect(null.first?.code == .null)
  #expect(null.first?.path == "/body")
  let missing = errors { _ = try schema.decode(NeedsReporter.self, model: "Ticket", from: input) }
  #expect(missing.first?.code == .missing)
  #expect(missing.first?.path == "/user/login")
  let typo = errors { _ = try schema.decode(Typo.self, model: "Ticket", from: input) }
  #expect(typo.first?.code == .argument)
  #expect(typo.first?.message.contains("'titel'") == true)
}

@Test func integersThatDoNotFitAndBadEnumRawValuesAreErrors() throws {
  enum Strict: String, Decodable { case open = "OPEN" }
  struct Small: Decodable { var number: Int8 }
  struct Closed: Decodable { var state: Strict }
  let schema = try codableSchema()
  let big = errors {
    _ = try schema.decode(Small.self, model: "Ticket", from: ["number": 300, "title": "t"])
  }
  #expect(big.first?.code == .type)
  #expect(big.first?.path == "/number")
  let closed = errors {
    _ = try schema.decode(Closed.self, model: "Ticket", from: ["number": 1, "title": "t", "state": "closed"])
  }
  #expect(closed.first?.code == .format)
  #expect(closed.first?.path == "/state")
}

/// A list node: recursive through an optional box.
private final class Chain: Codable {
  var next: Chain?
  init(next: Chain?) { self.next = next }
}

@Test func deepValuesAreDepthErrorsNotCrashes() throws {
  let schema = try Schema(
    parsing: #"{"strata": 1, "models": {"Chain": {"properties": {"next": {"type": "Chain?"}}}}}"#)
  var chain = Chain(next: nil)
  for _ in 0..<2_000 { chain = Chain(next: chain) }
  let failure = errors { _ = try schema.model(from: chain) }
  #expect(failure.first?.code == .depth)
  // A model as deep as mapping allows decodes.
  var json: JSON = [:]
  for _ in 0..<400 { json = ["next": json] }
  let decoded = try schema.decode(Chain.self, from: json)
  var depth = 0
  var current: Chain? = decoded
  while let node = current {
    depth += 1
    current = node.next
  }
  #expect(depth == 401)
}

@Test func listsOfKeyPathsPointToEachPath() throws {
  // The schema of Tests/conformance/multi-keypaths.json.
  let schema = try Schema(
    parsing: """
      {"strata": 1, "models": {
        "Place": {"properties": {"name": {"type": "string"}, "coord": {"type": "Coord", "json": ["lat", "lng"]}}},
        "Coord": {"properties": {"lat": {"type": "double"}, "lng": {"type": "double"}}},
        "Spot": {"properties": {"loc": {"type": "json", "json": ["lat", "geo.lng"]}}},
        "Pin": {"properties": {"loc": {"type": "Loc", "json": ["lat", "geo.lng"]}}},
        "Loc": {"properties": {"lat": {"type": "double"}, "lng": {"type": "double", "json": "/geo.lng"}}}}}
      """)
  struct Place: Decodable {
    struct Coord: Decodable { var lng: String }
    var coord: Coord
  }
  struct Spot: Decodable { var loc: [String: String] }
  struct Pin: Decodable {
    struct Loc: Decodable { var lng: String }
    var loc: Loc
  }
  let place = errors { _ = try schema.decode(Place.self, from: ["lat": 1, "lng": 2]) }
  #expect(place.first?.path == "/lng")
  let spot = errors { _ = try schema.decode(Spot.self, from: ["lat": 1, "geo": ["lng": 2]]) }
  #expect(spot.first?.path == "/lat" || spot.first?.path == "/geo/lng")
  let pin = errors { _ = try schema.decode(Pin.self, from: ["lat": 1, "geo": ["lng": 2]]) }
  #expect(pin.first?.path == "/geo/lng")
  #expect(pin.first?.model == "Loc")
  #expect(pin.first?.property == "lng")
}
