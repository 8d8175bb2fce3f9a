import Strata
import Testing

private let version3: JSON = [
  "strata": 1,
  "version": 3,
  "migrations": [
    ["from": 1, "model": "Note", "rename": ["body": "text"]],
    ["from": 2, "model": "Note", "remove": ["stars"], "set": ["priority": "normal"]],
  ],
  "models": [
    "Note": [
      "unknownKeys": "keep",
      "properties": [
        "title": ["type": "string", "required": true],
        "text": ["type": "string"],
        "priority": ["type": "string", "required": true],
        "cachedAt": ["type": "date", "json": false],
      ],
    ]
  ],
]

@Test func archiveIsSelfDescribingAndRoundTrips() throws {
  let schema = try Schema(version3)
  let note = try schema.map("Note", from: ["title": "a", "priority": "high", "extra": [1, 2]])
  let archive = note.archive()
  #expect(
    archive == [
      "strata-archive": 1, "version": 3, "model": "Note",
      "values": ["title": "a", "priority": "high", "$unknown": ["extra": [1, 2]]],
    ])
  #expect(try schema.unarchive(from: archive) == note)
  #expect(try schema.unarchive(parsing: archive.serialized(indent: 2)) == note)
}

@Test func archivesKeepPropertiesJSONNeverSees() throws {
  let schema = try Schema(version3)
  let note = try schema.map("Note", from: ["title": "a", "priority": "high"])
  let cached = try note.patched([["op": "add", "path": "/cachedAt", "value": "2024-05-01T10:00:00+02:00"]])
  #expect(cached["cachedAt"] == "2024-05-01T08:00:00Z")
  #expect(try cached.json == ["title": "a", "priority": "high"])
  let restored = try schema.unarchive(from: cached.archive())
  #expect(restored == cached)
  #expect(restored.timestamp("cachedAt") == Timestamp(seconds: 1_714_550_400))
}

@Test func olderArchivesAreMigratedStepByStep() throws {
  let schema = try Schema(version3)
  let restored = try schema.unarchive(from: [
    "strata-archive": 1, "version": 1, "model": "Note", "values": ["title": "old", "body": "b", "stars": 3],
  ])
  #expect(restored.dictionary == ["title": "old", "text": "b", "priority": "normal"])
  let fromTwo = try schema.unarchive(from: [
    "strata-archive": 1, "version": 2, "model": "Note",
    "values": ["title": "t", "priority": "low", "stars": 1],
  ])
  // `set` overrides: a step sets canonical values whatever the archive held.
  #expect(fromTwo["priority"] == "normal")
}

@Test func newerArchivesAndGapsAreRefused() throws {
  let schema = try Schema(version3)
  do {
    _ = try schema.unarchive(from: ["strata-archive": 1, "version": 4, "model": "Note", "values": [:]])
    Issue.record("expected an error")
  } catch {
    #expect(error.code == .argument)
    #expect(error.errors.first?.path == "/version")
    #expect(error.errors.first?.message.contains("newer") == true)
  }
  do {
    _ = try schema.unarchive(from: [
      "strata-archive": 1, "version": 0, "model": "Note", "values": ["title": "x"],
    ])
    Issue.record("expected an error")
  } catch {
    #expect(error.errors.map(\.message).first?.contains("no migration from version 0 to 1") == true)
  }
  do {
    _ = try schema.unarchive(parsing: "{\"strata-archive\": 1,")
    Issue.record("expected an error")
  } catch {
    #expect(error.code == .syntax)
  }
}

@Test func migrationsCanUseHostTransformers() throws {
  let document: JSON = [
    "strata": 1,
    "version": 1,
    "migrations": [["from": 0, "transform": "split-name"]],
    "models": ["Person": ["properties": ["first": ["type": "string"], "last": ["type": "string"]]]],
  ]
  let split = ValueTransformer(forward: { values in
    guard case .object(var object) = values, case .string(let name)? = object["name"] else { return values }
    let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
    object["name"] = nil
    object["first"] = .string(parts.first ?? "")
    object["last"] = .string(parts.count > 1 ? parts[1] : "")
    return .object(object)
  })
  #expect(throws: StrataError.self) { try Schema(document) }
  let schema = try Schema(document, transformers: ["split-name": split])
  let person = try schema.unarchive(from: [
    "strata-archive": 1, "version": 0, "model": "Person", "values": ["name": "Ada Lovelace"],
  ])
  #expect(person.dictionary == ["first": "Ada", "last": "Lovelace"])
}

@Test func migrationsAreCheckedAtLoad() throws {
  do {
    _ = try Schema([
      "strata": 1, "version": 1, "migrations": [["from": 1, "remove": "x"]],
      "models": ["A": ["properties": ["x": ["type": "int"]]]],
    ])
    Issue.record("expected schema errors")
  } catch {
    #expect(Set(error.errors.map(\.path)) == ["/migrations/0/from", "/migrations/0/remove"])
    #expect(error.errors.allSatisfy { $0.code == .schema })
  }
}
