import Strata
import Testing

// The conformance keys of response envelopes (Tests/conformance/README.md,
// "Responses"), for ConformanceTests.swift.

/// Runs a `response` case: `input` (or `inputText`) is mapped with
/// `mapResponse` onto `model` with the options of `response` (`root`,
/// `meta`), and the records and metadata compared with `records` and
/// `metadata` (canonical dictionaries), or the errors with `errors`. A case
/// with `input` is mapped from the JSON value and from its text, which must
/// agree. True when the case was one.
func runResponseCase(_ testCase: ConformanceCase, _ schema: Schema) -> Bool {
  let body = testCase.body
  guard let options = body["response"] else { return false }
  guard case .string(let model)? = body["model"] else {
    Issue.record("a response case needs a model")
    return true
  }
  var root: String? = nil
  if case .string(let text)? = options["root"] { root = text }
  var meta: ResponseMeta? = nil
  if case .string(let path)? = options["meta"]?["path"], case .string(let name)? = options["meta"]?["model"] {
    meta = ResponseMeta(path: path, model: name)
  }
  var inputs: [(json: JSON?, text: String?)] = []
  if case .string(let text)? = body["inputText"] {
    inputs.append((nil, text))
  } else {
    let input = body["input"] ?? .null
    inputs.append((input, nil))
    inputs.append((nil, input.serialized()))
  }
  for input in inputs {
    let response: Response
    do {
      if let json = input.json {
        response = try schema.mapResponse(model, from: json, root: root, meta: meta)
      } else {
        response = try schema.mapResponse(model, parsing: input.text ?? "", root: root, meta: meta)
      }
    } catch {
      if let expected = body["errors"] {
        if let problem = compareErrors(expected, error.errors) { Issue.record("\(problem)") }
      } else {
        Issue.record("mapResponse failed: \(error)")
      }
      continue
    }
    if body["errors"] != nil {
      Issue.record("mapResponse succeeded, expected errors \(body["errors"] ?? .null)")
      continue
    }
    if let expected = body["records"] {
      #expect(JSON.array(response.records.map(\.dictionary)) == expected, "records")
      #expect(response.count == response.records.count)
    }
    if let expected = body["metadata"] {
      #expect((response.metadata?.dictionary ?? .null) == expected, "metadata")
    }
  }
  return true
}
