import Strata
import Testing

/// The built-in transformers reach into arrays and objects: every failing
/// element is reported at its own path, in document order, however deep.
private let documentSchema: JSON = [
  "strata": 1,
  "models": ["Doc": ["properties": ["v": ["type": "json", "transform": "string-number"]]]],
]

@Test func transformerFailuresNameEveryElementInOrder() throws {
  let schema = try Schema(documentSchema)
  let text = #"{"v": [["1", ["x", null, {"k": "2", "m/n": ["3", "y"]}]], {"a": {"b": "z"}}, "4"]}"#
  do {
    _ = try schema.map("Doc", parsing: text)
    Issue.record("expected errors")
  } catch {
    #expect(error.errors.map(\.path) == ["/v/0/1/0", "/v/0/1/2/m~1n/1", "/v/1/a/b"])
    #expect(error.errors.allSatisfy { $0.code == .format && $0.property == "v" })
  }
  let fine = try schema.map("Doc", parsing: #"{"v": [["1", [null, {"k": "2"}]], "4"]}"#)
  #expect(fine["v"] == [[1, [nil, ["k": 2]]], 4])
}

/// Many bad leaves deep down: each error's path is the whole way down
/// (the paths were once built by prefixing at every level, which made this
/// input of a few kilobytes take seconds).
@Test func transformerFailuresDeepDown() throws {
  let schema = try Schema(documentSchema)
  let depth = 400
  let width = 300
  let leaves = Array(repeating: "1", count: width - 1) + [#""5""#]
  let text =
    #"{"v": "# + String(repeating: "[", count: depth) + leaves.joined(separator: ",")
    + String(repeating: "]", count: depth) + "}"
  do {
    _ = try schema.map("Doc", parsing: text)
    Issue.record("expected errors")
  } catch {
    let down = "/v" + String(repeating: "/0", count: depth - 1)
    #expect(error.errors.count == width - 1)
    #expect(error.errors.first?.path == down + "/0")
    #expect(error.errors.last?.path == down + "/\(width - 2)")
  }
}
