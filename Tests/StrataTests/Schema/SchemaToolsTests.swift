import Strata
import Testing

private let messages: JSON = [
  "strata": 1,
  "models": [
    "Message": [
      "subtypes": ["key": "type", "map": ["text": "TextMessage", "picture": "PictureMessage"]],
      "properties": ["id": ["type": "int", "required": true]],
    ],
    "TextMessage": ["extends": "Message", "properties": ["body": ["type": "string"]]],
    "PictureMessage": [
      "extends": "Message", "unknownKeys": "reject",
      "properties": ["url": ["type": "url", "json": "image.url"]],
    ],
    "Page<T>": ["properties": ["items": ["type": "[T]"], "next": ["type": "string?"]]],
    "Feed": [
      "properties": [
        "page": ["type": "Page<Message>"],
        "score": ["type": "double", "validate": ["min": 0, "max": 1]],
        "state": ["type": "string", "enum": ["o": "open", "c": "closed"]],
        "at": ["type": "date", "format": "unix"],
      ]
    ],
  ],
]

@Test func jsonSchemaOfSubtypesKeyPathsAndGenerics() throws {
  let schema = try Schema(messages)
  let document = try schema.jsonSchema(for: "Feed")
  #expect(document["$schema"] == "https://json-schema.org/draft/2020-12/schema")
  #expect(document["$ref"] == "#/$defs/Feed")
  let defs = try #require(document["$defs"])
  let feed = try #require(defs["Feed"]?["properties"])
  #expect(feed["page"] == ["$ref": "#/$defs/Page%3CMessage%3E"])
  #expect(feed["score"] == ["type": "number", "minimum": 0, "maximum": 1])
  #expect(feed["state"] == ["enum": ["o", "c"]])
  #expect(feed["at"]?["type"] == "number")
  #expect(
    defs["Page<Message>"]?["properties"]?["items"] == ["type": "array", "items": ["$ref": "#/$defs/Message"]])
  let branches = try #require(defs["Message"]?["oneOf"])
  #expect(branches[0]?["properties"] == ["type": ["const": "picture"]])
  #expect(branches[0]?["$ref"] == "#/$defs/PictureMessage")
  let picture = try #require(defs["PictureMessage"])
  #expect(picture["additionalProperties"] == false)
  #expect(picture["required"] == ["id"])
  #expect(
    picture["properties"]?["image"]
      == ["type": "object", "properties": ["url": ["type": "string", "format": "uri"]]])
}

@Test func canonicalJSONSchema() throws {
  let schema = try Schema(messages)
  let document = try schema.jsonSchema(for: "Feed", canonical: true)
  let defs = try #require(document["$defs"])
  #expect(defs["Feed"]?["properties"]?["state"] == ["enum": ["open", "closed"]])
  #expect(defs["Feed"]?["properties"]?["at"] == ["type": "string", "format": "date-time"])
  #expect(defs["TextMessage"]?["properties"]?["$type"] == ["const": "TextMessage"])
  #expect(defs["PictureMessage"]?["properties"]?["url"] == ["type": "string", "format": "uri"])
  #expect(defs["Message"]?["anyOf"]?[1] == ["$ref": "#/$defs/TextMessage"])
}

@Test func jsonSchemaOfAnUnknownModelThrows() throws {
  let schema = try Schema(messages)
  #expect(throws: StrataError.self) { try schema.jsonSchema(for: "Nope") }
  #expect(throws: StrataError.self) { try schema.jsonSchema(for: "Page") }
}

@Test func diagrams() throws {
  let schema = try Schema(messages)
  let mermaid = schema.diagram(.mermaid)
  #expect(mermaid.hasPrefix("classDiagram\n"))
  #expect(mermaid.contains("  Message <|-- TextMessage\n"))
  #expect(mermaid.contains("  Message <|.. PictureMessage : type = picture\n"))
  #expect(mermaid.contains("  class Page~T~\n"))
  #expect(mermaid.contains("  Page_Message ..> Page : T = Message\n"))
  #expect(mermaid.contains("  Feed --> \"1\" Page_Message : page\n"))
  #expect(mermaid.contains("  Page_Message --> \"*\" Message : items\n"))
  let dot = schema.diagram(.dot)
  #expect(dot.hasPrefix("digraph Schema {\n"))
  #expect(dot.contains("\"TextMessage\" -> \"Message\" [arrowhead=empty];"))
}

@Test func relationshipsAndTheirInversesAreOneTwoWayEdge() throws {
  let schema = try Schema(parsing: blogSchemaText)
  let mermaid = schema.diagram(.mermaid)
  #expect(mermaid.contains("  User \"0..1\" <--> \"*\" Post : posts / author\n"))
  #expect(!mermaid.contains("Post --> \"0..1\" User"))
  #expect(mermaid.contains("  Post --> \"*\" Tag : tags\n"))
  let dot = schema.diagram(.dot)
  #expect(
    dot.contains(
      "\"User\" -> \"Post\" [dir=both, arrowhead=vee, arrowtail=vee, label=\"posts / author\", headlabel=\"*\", taillabel=\"0..1\"];"
    ))
}

@Test func longKeyPathsAreCutNotRecursedWithoutBound() throws {
  let path = Array(repeating: "a", count: 20_000).joined(separator: ".")
  let schema = try Schema([
    "strata": 1, "models": ["M": ["properties": ["x": ["type": "string", "json": .string(path)]]]],
  ])
  var node = try #require(try schema.jsonSchema(for: "M")["$defs"]?["M"])
  var depth = 0
  while let next = node["properties"]?["a"] {
    node = next
    depth += 1
  }
  #expect(depth == 64)
  #expect(node["$comment"] != nil)
}
