import CJansson
import Strata
import StrataGraph
import Testing

/// A cold `get` reads its row's cells where SQLite holds them (text made
/// into jansson strings from SQLite's bytes, JSON parsed from them); a
/// whole-table read (`all()`) goes through an array of cells. The
/// invariant: whatever the file's rows hold, as Strata wrote them or as
/// another program changed them (text not ASCII, bytes that are not UTF-8,
/// long text, JSON that is not), both reads give the same records, or the
/// same error.
@Test(arguments: 0..<3)
func aColdGetReadsWhatAWholeTableReadReads(seed: UInt64) throws {
  let schemaText = #"""
    {"strata": 1, "version": 1, "models": {
      "Note": {"primaryKey": "id", "properties": {
        "id": {"type": "int"}, "title": {"type": "string?"}, "meta": {"type": "json?"},
        "score": {"type": "double?"}, "done": {"type": "bool?"}, "tags": {"type": "[Tag]"}}},
      "Tag": {"primaryKey": "name", "properties": {"name": {"type": "string"}}}}}
    """#
  let schema = try Schema(parsing: schemaText)
  let directory = try TemporaryDirectory()
  let path = directory.path("cold.db")
  var random = SeededRandom(seed: seed)
  do {
    let context = try Context(schema: schema, path: path)
    var notes: [String] = []
    for id in 1...40 {
      let tags = (0..<Int.random(in: 0...3, using: &random)).map { _ in
        #""t\#(Int.random(in: 0...5, using: &random))""#
      }
      notes.append(
        #"{"id": \#(id), "title": "n\#(id)", "meta": {"a": [\#(id), "x"]}, "score": \#(id).5, "done": true, "tags": [\#(tags.joined(separator: ", "))]}"#
      )
    }
    _ = try context.import("Note", parsing: "[" + notes.joined(separator: ", ") + "]")
    context.close()
  }
  // another program changes some rows
  let texts = [
    "'caf\u{e9} \u{65e5}\u{672c} \u{1f600}'",  // not ASCII
    "CAST(X'66C328' AS TEXT)",  // not UTF-8: a lead byte cut short
    "CAST(X'80' AS TEXT)",  // a stray continuation byte
    "'" + String(repeating: "abcdefgh", count: 9) + "\u{e9}'",  // long, its last character not ASCII
    "'" + String(repeating: "q", count: 70) + "'",  // long ASCII
    "''", "NULL", "CAST(X'410042' AS TEXT)",  // empty, NULL, a NUL inside
  ]
  let jsons = ["'{\"b\": \"\u{e9}\"}'", "'[1, 2.5, null]'", "NULL", "'\"s\"'"]
  let sqlite = try SQLiteConnection(path: path)
  for id in 1...40 where Int.random(in: 0..<3, using: &random) != 0 {
    let text = texts.randomElement(using: &random) ?? "NULL"
    let json = jsons.randomElement(using: &random) ?? "NULL"
    try sqlite.execute(#"UPDATE "Note" SET "title" = \#(text), "meta" = \#(json) WHERE "id" = \#(id)"#)
  }
  sqlite.close()
  // each record as jansson writes it with every character escaped, so its
  // strings' bytes must be well-formed UTF-8 (or the text is nil)
  // each record as jansson writes it with every character escaped: its
  // strings' bytes must be well-formed UTF-8 (else there is no text)
  func dump(_ record: Record) -> String {
    guard let value = record.model.object.dictionary() else { return "no dictionary" }
    defer { json_decref(value) }
    guard let text = json_dumps(value, Int(JSON_ENSURE_ASCII | JSON_SORT_KEYS)) else { return "not UTF-8" }
    defer { free(text) }
    return "\(record.isStub) " + String(cString: text)
  }
  let whole = try Context(schema: schema, path: path)
  let cold = try Context(schema: schema, path: path)
  let all = try whole.all("Note")
  #expect(all.count == 40)
  let reader = try SQLiteConnection(path: path)
  defer { reader.close() }
  for record in all {
    let id = record.key
    let got = try #require(try cold.get("Note", key: id))
    #expect(dump(got) == dump(record), "seed \(seed), note \(id)")
    #expect(!dump(got).hasPrefix("not"), "seed \(seed), note \(id)")
    // the title is the column's text as SQLite gives it, bytes that are not
    // UTF-8 replaced (U+FFFD)
    let title = try sqlText(reader, #"SELECT "title" FROM "Note" WHERE "id" = \#(id)"#)
    let field: JSON? = if case .object(let values) = try got.dictionary { values["title"] } else { nil }
    #expect(field == (title.map(JSON.string) ?? .null), "seed \(seed), note \(id)")
  }

  // JSON that is not: the same error both ways
  let broken = try SQLiteConnection(path: path)
  try broken.execute(#"UPDATE "Note" SET "meta" = '{"a": ' WHERE "id" = 7"#)
  broken.close()
  var wholeError: StrataError? = nil
  do { _ = try Context(schema: schema, path: path).all("Note") } catch { wholeError = error }
  var coldError: StrataError? = nil
  do { _ = try Context(schema: schema, path: path).get("Note", key: 7) } catch { coldError = error }
  #expect(wholeError != nil)
  #expect(coldError?.errors.map(\.code) == wholeError?.errors.map(\.code))
  #expect(coldError?.errors.first?.message.contains("is not JSON") == true)
}
