import Strata
import Testing

/// Calls every spelling the Swift API had before its names became one family
/// (Schema+Deprecated.swift). They are called through a protocol requirement
/// that a deprecated method implements, so the test builds without warnings.
private protocol OldSpellings {
  func run() throws
}

private struct Exercise: OldSpellings {
  @available(*, deprecated)
  func run() throws {
    let schema = try Schema(text: #"{"strata": 1, "models": {"N": {"properties": {"v": {"type": "int"}}}}}"#)
    let expected = try schema.map("N", from: ["v": 1])
    #expect(try schema.map("N", ["v": 1]) == expected)
    #expect(try schema.map("N", text: #"{"v": 1}"#) == expected)
    #expect(try schema.mapMany("N", [["v": 1]]) == [expected])
    #expect(try schema.mapMany("N", text: #"[{"v": 1}]"#) == [expected])
    #expect(try schema.mapResponse("N", ["v": 1]).records == [expected])
    #expect(try schema.mapResponse("N", text: #"{"v": 1}"#).records == [expected])
    let lines = try schema.mapLines("N", text: "{\"v\": 1}\n")
    #expect(lines.compactMap { try? $0.get() } == [expected])
    #expect(try schema.unarchive(expected.archive()) == expected)
    #expect(try schema.unarchive(text: expected.archive().description) == expected)
    var updated = expected
    try updated.update(["v": 2])
    #expect(updated["v"] == 2)
  }
}

@Test func theOldSpellingsStillForward() throws {
  try (Exercise() as any OldSpellings).run()
}
