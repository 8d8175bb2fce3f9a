import Strata
import Testing

private func schema(version: Int64 = 1, migrations: JSON = [], _ properties: JSON) throws -> Schema {
  try Schema([
    "strata": 1, "version": .int(version), "migrations": migrations,
    "models": ["Issue": ["properties": properties]],
  ])
}

@Test func compareReportsBreakingAndSafeChanges() throws {
  let old = try schema(["number": ["type": "int"], "title": ["type": "string"], "gone": ["type": "int"]])
  let new = try schema(
    version: 2,
    ["number": ["type": "double"], "title": ["type": "string", "required": true], "added": ["type": "int"]])
  let changes = Schema.compare(old: old, new: new)
  #expect(
    changes.map { "\($0.change.rawValue) \($0.property) \($0.breaking)" } == [
      "type-widened number false", "required-added title true", "property-removed gone true",
      "property-added added false",
    ])
  #expect(changes.first?.path == "/models/Issue/properties/number")
  #expect(changes.first?.description.hasPrefix("ok /models/Issue/properties/number [Issue.number]") == true)
  #expect(changes.contains { $0.breaking && $0.description.hasPrefix("BREAKING") })
  #expect(Schema.compare(old: old, new: old).isEmpty)
}

@Test func migrationsMakeRemovalsSafe() throws {
  let old = try schema(["a": ["type": "int"], "b": ["type": "int"]])
  let new = try schema(
    version: 2, migrations: [["from": 1, "rename": ["b": "c"]]], ["a": ["type": "int"], "c": ["type": "int"]])
  let changes = Schema.compare(old: old, new: new)
  #expect(changes.map(\.change) == [.propertyRemoved, .propertyAdded])
  #expect(changes.allSatisfy { !$0.breaking })
}

@Test func everyKindHasAStableName() {
  #expect(
    SchemaChange.Kind.allCases.map(\.rawValue) == [
      "model-removed", "model-added", "property-removed", "property-added", "type-narrowed", "type-widened",
      "required-added", "json-key-changed", "enum-value-removed",
    ])
}
