import Strata

/// The schema the Codable tests read: renames, a key path, an enum, a date,
/// a transformer, validation, nested models in arrays and dictionaries, a
/// `json: false` property, a plucked array and a class cluster.
let codableSchemaDocument: JSON = [
  "strata": 1,
  "models": [
    "Ticket": [
      "keys": "snake_case",
      "properties": [
        "number": ["type": "int", "required": true],
        "title": ["type": "string", "required": true],
        "state": ["type": "string", "enum": ["open": "OPEN", "closed": "CLOSED"]],
        "reporterLogin": ["type": "string?", "json": "user.login"],
        "labels": ["type": "[Label]", "default": []],
        "assignee": ["type": "User?"],
        "byName": ["type": "{Label}", "json": "labels_by_name"],
        "createdAt": ["type": "date"],
        "body": ["type": "string?"],
        "priority": ["type": "int?", "transform": "string-number", "validate": ["min": 1, "max": 5]],
        "tags": ["type": "[string]", "default": []],
        "extra": ["type": "json"],
        "starred": ["type": "bool", "json": false, "default": false],
        "commenters": ["type": "[string]", "json": "comments[].author"],
      ],
    ],
    "Label": ["properties": ["name": ["type": "string", "required": true], "color": ["type": "string"]]],
    "User": ["properties": ["login": ["type": "string", "required": true], "homepage": ["type": "url?"]]],
    "Message": [
      "subtypes": ["key": "kind", "map": ["text": "TextMessage", "picture": "PictureMessage"]],
      "properties": ["id": ["type": "int", "required": true]],
    ],
    "TextMessage": ["extends": "Message", "properties": ["body": ["type": "string"]]],
    "PictureMessage": [
      "extends": "Message", "properties": ["imageURL": ["type": "url", "json": "image_url"]],
    ],
    "Thread": ["properties": ["messages": ["type": "[Message]"]]],
  ],
]

let ticketJSON: JSON = [
  "number": 7,
  "title": "Crash on launch",
  "state": "open",
  "user": ["login": "mona"],
  "labels": [["name": "bug", "color": "f00"], ["name": "ui"]],
  "assignee": ["login": "hubot", "homepage": "https://hubot.example"],
  "labels_by_name": ["bug": ["name": "bug"]],
  "created_at": "2024-06-19T16:02:11+02:00",
  "body": nil,
  "priority": "2",
  "tags": ["a", "b"],
  "extra": ["any": [1, true]],
  "comments": [["author": "a"], ["author": "b"]],
]

enum State: String, Codable, Equatable {
  case open = "OPEN"
  case closed = "CLOSED"
}

struct Label: Codable, Equatable {
  var name: String
  var color: String?
}

struct User: Codable, Equatable {
  var login: String
  var homepage: String?
}

struct Ticket: Codable, Equatable {
  var number: Int
  var title: String
  var state: State?
  var reporterLogin: String?
  var labels: [Label]
  var assignee: User?
  var byName: [String: Label]?
  var createdAt: String?
  var body: String?
  var priority: Int8?
  var tags: [String]
  var extra: JSON?
  var starred: Bool
  var commenters: [String]?
}

func codableSchema() throws -> Schema { try Schema(codableSchemaDocument) }

/// The errors of a throwing call (none when it succeeds).
/// A call that throws something other than a `StrataError` gives one `io`
/// detail naming it, so that a test expecting a code fails.
func errors(_ body: () throws -> Void) -> [ErrorDetail] {
  do {
    try body()
    return []
  } catch let error as StrataError {
    return error.errors
  } catch {
    return [ErrorDetail(path: "", code: .io, message: "not a StrataError: \(error)")]
  }
}
