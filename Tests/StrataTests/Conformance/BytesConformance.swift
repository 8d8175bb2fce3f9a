import CJansson
import Testing

@testable import Strata

// Every mapping case through both byte paths: the schema-directed parser
// (Sources/Strata/Parse, what strata_mapb and map(_:parsing:) use) and the
// DOM path (jansson parses everything). The answers must be equal: the same
// canonical dictionaries and serialized JSON, or the same errors (paths,
// codes, owners and messages, in order), except for text jansson refuses for
// a number outside its range, which the parser reads (numbers.json).

/// Checks that the pruned and DOM byte paths agree on `text`.
func checkBytePaths(_ schema: Schema, _ model: String, many: Bool, text: String) {
  var copy = text
  copy.withUTF8 { bytes in
    if many {
      let dom = schema.mapManyBytes(model, bytes, pruned: false)
      compare(schema.mapManyBytes(model, bytes, pruned: true), dom)
      // read in up to three pieces on threads of their own (docs/parsing.md)
      compare(schema.mapManyBytes(model, bytes, splitting: .init(pieceBytes: 16, threads: 3)), dom)
    } else {
      compare(
        schema.mapBytes(model, bytes, pruned: true).map { [$0] },
        schema.mapBytes(model, bytes, pruned: false).map { [$0] })
    }
  }
}

private func compare(_ pruned: Result<[ModelObject], StrataError>, _ dom: Result<[ModelObject], StrataError>)
{
  // jansson refuses numbers outside its range; the parser reads them
  // (Tests/conformance/numbers.json checks what it gives)
  if case .failure(let error) = dom, error.code == .syntax,
    let message = error.errors.first?.message,
    message.contains("too big integer") || message.contains("real number overflow")
  {
    return
  }
  switch (pruned, dom) {
  case (.success(let a), .success(let b)):
    #expect(a.count == b.count, "byte paths: model counts differ")
    for (left, right) in zip(a, b) {
      #expect(Model(left).dictionary == Model(right).dictionary, "byte paths: dictionaries differ")
      #expect((try? Model(left).json) == (try? Model(right).json), "byte paths: serialized JSON differs")
    }
  case (.failure(let a), .failure(let b)):
    let left = a.errors.map { "\($0.path)|\($0.code.rawValue)|\($0.model)|\($0.property)|\($0.message)" }
    let right = b.errors.map { "\($0.path)|\($0.code.rawValue)|\($0.model)|\($0.property)|\($0.message)" }
    #expect(left == right, "byte paths: errors differ")
  case (.success, .failure(let error)):
    Issue.record("byte paths: the parser mapped what the DOM path refused: \(error)")
  case (.failure(let error), .success):
    Issue.record("byte paths: the parser refused what the DOM path mapped: \(error)")
  }
}
