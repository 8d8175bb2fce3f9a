import Foundation
import Strata
import StrataGraph
import Testing

/// The blog schema the graph tests share: users, posts (author with inverse), tags.
let blogSchemaText = #"""
  {"strata": 1, "version": 1, "models": {
    "User": {"primaryKey": "id", "properties": {
      "id": {"type": "int"}, "name": {"type": "string"},
      "posts": {"type": "[Post]", "inverse": "author", "json": false}}},
    "Post": {"primaryKey": "id", "properties": {
      "id": {"type": "int"}, "title": {"type": "string"},
      "author": {"type": "User?", "inverse": "posts"},
      "tags": {"type": "[Tag]", "merge": "union"}}},
    "Tag": {"primaryKey": "name", "properties": {"name": {"type": "string"}}}}}
  """#

@Test func postsWithRepeatedAuthorsAreUniqued() throws {
  let schema = try Schema(parsing: blogSchemaText)
  let context = try Context(schema: schema)
  let posts = #"""
    [{"id": 1, "title": "a", "author": {"id": 7, "name": "Ann"}, "tags": ["sun", "sea"]},
     {"id": 2, "title": "b", "author": {"id": 7, "name": "Ann"}, "tags": ["sea"]},
     {"id": 3, "title": "c", "author": {"id": 8, "name": "Bob"}}]
    """#
  let result = try context.import("Post", parsing: posts)
  #expect(result.records.count == 3)
  #expect(result.created == ["Post": 3, "User": 2, "Tag": 2])
  #expect(try context.count("User") == 2)
  let ann = try #require(try context.get("User", key: 7))
  #expect(try ann.related("posts").map(\.key) == [1, 2])
  #expect(try result.records[0].one("author")?.key == 7)
  #expect(result.records[0]["tags"] == ["sun", "sea"])
  let again = try context.import("Post", parsing: posts)
  #expect(again.created.isEmpty)
  #expect(again.updated.isEmpty)
  #expect(again.unchanged == ["Post": 3, "User": 2])
  #expect(try context.count("Post") == 3)
  // Moving post 2 to Bob takes it out of Ann's posts.
  _ = try context.import("Post", parsing: #"{"id": 2, "author": 8}"#)
  #expect(try context.get("User", key: 7)?.related("posts").map(\.key) == [1])
  #expect(try context.get("User", key: 8)?.related("posts").map(\.key) == [3, 2])
  #expect(try context.get("Post", key: 2)?["title"] == "b")
  // Nested output terminates on the cycle.
  let nested = try #require(try context.get("User", key: 8)).dictionary
  #expect(nested["posts"]?[0]?["author"] == 8)
  // An import with an error changes nothing.
  #expect(throws: StrataError.self) {
    try context.import("Post", parsing: #"[{"id": 9, "author": {"id": 9}}, {"id": "x"}]"#)
  }
  #expect(try context.count("Post") == 3)
  #expect(try context.count("User") == 2)
  // Delete keeps inverses true.
  try context.delete(try #require(try context.get("Post", key: 3)))
  #expect(try context.get("User", key: 8)?.related("posts").map(\.key) == [2])
}

@Test func fileContextReopensToTheSameGraph() throws {
  let directory = try TemporaryDirectory()
  let path = directory.path("blog.db")
  let schema = try Schema(parsing: blogSchemaText)
  do {
    let context = try Context(schema: schema, path: path)
    _ = try context.import(
      "Post",
      parsing:
        #"[{"id": 1, "title": "a", "author": {"id": 7, "name": "Ann"}, "tags": ["sun"]}, {"id": 2, "author": 7}]"#
    )
    context.close()
  }
  let reopened = try Context(schema: schema, path: path)
  #expect(try reopened.count("Post") == 2)
  #expect(try reopened.get("User", key: 7)?.related("posts").map(\.key) == [1, 2])
  #expect(try reopened.get("Tag", key: "sun") != nil)
  #expect(try reopened.get("Post", key: 1)?.one("author")?["name"] == "Ann")
}

@Test func aDeletedOrClosedRecordKeepsItsKeyAndSaysWhy() throws {
  let schema = try Schema(parsing: blogSchemaText)
  let context = try Context(schema: schema)
  let posts = try context.import(
    "Post", parsing: #"[{"id": 505, "title": "a", "author": 7}, {"id": 6, "title": "b"}]"#)
  let deleted = posts.records[0]
  try context.delete(deleted)
  #expect(deleted.key == 505)
  #expect(deleted["title"] == "a")
  do {
    _ = try deleted.one("author")
    Issue.record("following a deleted record's relationship succeeded")
  } catch {
    #expect(error.errors.first?.message.contains("'Post' record 505 was deleted") == true, "\(error)")
  }
  #expect(throws: StrataError.self) { try deleted.dictionary }
  #expect(throws: StrataError.self) { try context.delete(deleted) }
  let kept = posts.records[1]
  context.close()
  #expect(kept.key == 6)
  #expect(kept["title"] == "b")
  #expect(throws: StrataError.self) { try kept.related("tags") }
}

@Test func anImportHandsOverTheResponsesMetadata() throws {
  let schema = try Schema(
    parsing: #"""
      {"strata": 1, "models": {
        "Post": {"primaryKey": "id", "root": "data", "meta": {"path": "paging", "model": "Paging"},
          "properties": {"id": {"type": "int"}}},
        "Paging": {"properties": {"next": {"type": "string?"}}}}}
      """#)
  let context = try Context(schema: schema)
  let text = #"{"data": [{"id": 1}], "paging": {"next": "p2"}, "other": {"next": "p9"}}"#
  // the same metadata from the text (one parse) and from a value
  let parsed = try context.import("Post", parsing: text)
  #expect(parsed.metadata?["next"] == "p2")
  let value = try context.import("Post", try JSON(parsing: text))
  #expect(value.metadata == parsed.metadata)
  // the call's meta overrides the model's
  let other = try context.import("Post", parsing: text, meta: ResponseMeta(path: "other", model: "Paging"))
  #expect(other.metadata?["next"] == "p9")
  #expect(try context.import("Post", parsing: #"{"data": []}"#).metadata == nil)
  // an error in the metadata fails the import and changes nothing
  #expect(throws: StrataError.self) {
    try context.import("Post", parsing: #"{"data": [{"id": 2}], "paging": {"next": 5}}"#)
  }
  #expect(try context.count("Post") == 1)
}
