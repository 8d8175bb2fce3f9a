import Testing

@testable import Strata

/// An array read in pieces on several threads (`ArraySplit`) gives exactly
/// what it gives read whole, whatever its bytes: guesses inside strings
/// and inside nested arrays of look-alike objects, pretty-printed text,
/// errors anywhere.
struct ArraySplitTests {
  let schema: Schema

  init() throws {
    schema = try Schema(
      parsing: """
        {"strata": 1, "models": {
          "Item": {"properties": {
            "id": {"type": "int", "required": true},
            "name": {"type": "string"},
            "tags": {"type": "[Tag]"},
            "score": {"type": "double?"}
          }},
          "Tag": {"properties": {"id": {"type": "int", "required": true}, "note": {"type": "string"}}}
        }}
        """)
  }

  private static let whole = DirectReader.Splitting(pieceBytes: Int.max, threads: 1)

  /// A string whose text looks like the start of an element.
  private static func trap(_ random: inout SeededRandom) -> String {
    let traps = ["},{\\\"id\\\": 1", "}, {", "},{", "} ,\\n{", "]}, {\\\"id\\\":", "é},{ü", "{"]
    return "\"" + (0..<random.below(3) + 1).map { _ in traps[random.below(traps.count)] }.joined() + "\""
  }

  private func text(_ random: inout SeededRandom) -> [UInt8] {
    let pretty = random.below(4) == 0
    let longFirst = random.below(4) == 0  // a first key too long to be a guess's head
    var elements: [String] = []
    for index in 0..<random.below(40) + 1 {
      var members: [String] = []
      if longFirst { members.append("\"\(String(repeating: "k", count: 60))\": \(index)") }
      members.append("\"id\": \(index)")
      if random.below(2) == 0 { members.append("\"name\": \(Self.trap(&random))") }
      if random.below(2) == 0 {
        let tags = (0..<random.below(4)).map { tag in
          "{\"id\": \(tag)" + (random.below(2) == 0 ? ", \"note\": \(Self.trap(&random))" : "") + "}"
        }
        members.append("\"tags\": [" + tags.joined(separator: random.below(2) == 0 ? "," : ", ") + "]")
      }
      if random.below(3) == 0 { members.append("\"score\": \(random.below(2) == 0 ? "null" : "2.5")") }
      if random.below(3) == 0 {
        members.append("\"other\": [{\"id\": 3}, {\"id\": [\(Self.trap(&random))]}]")
      }
      elements.append(
        pretty
          ? "{\n    " + members.joined(separator: ",\n    ") + "\n  }"
          : "{" + members.joined(separator: random.below(2) == 0 ? "," : ", ") + "}")
    }
    let separator = pretty ? ",\n  " : (random.below(3) == 0 ? ", " : ",")
    var bytes = Array(
      ((pretty ? "[\n  " : "[") + elements.joined(separator: separator) + (pretty ? "\n]\n" : "]")).utf8)
    if random.below(4) == 0 { bytes = SkipKernelTests.mutated(bytes, &random) }
    return bytes
  }

  @Test func piecesGiveWhatTheWholeGives() throws {
    var random = SeededRandom(seed: 0x5B11_7A22)
    let type = try schema.modelType("Item").get()
    var split = 0
    var linked = 0
    var failed = 0
    for round in 0..<2_000 {
      let bytes = text(&random)
      // most rounds on one thread in a shuffled order of reads (every way a
      // read meets a piece, repeatably); every fourth on real threads
      let splitting = DirectReader.Splitting(
        pieceBytes: 16 + random.below(64), threads: 2 + round % 3, perThread: 1 + random.below(4),
        schedule: round % 4 == 0 ? nil : random.next())
      let report = DirectReader.PieceReport()
      let (whole, pieces) = bytes.withUnsafeBufferPointer { buffer in
        (
          DirectReader.many(buffer, type, in: schema, splitting: Self.whole),
          DirectReader.many(buffer, type, in: schema, splitting: splitting, report: report)
        )
      }
      let shown = String(decoding: bytes, as: UTF8.self)
      #expect(whole.map { $0.map { Model($0) } } == pieces.map { $0.map { Model($0) } }, "\(shown)")
      if whole == nil { failed += 1 }
      if report.pieces > 1 { split += 1 }
      if report.linked > 1 { linked += 1 }
    }
    // most texts were split, many answers came from several reads, and errors were met
    #expect(
      split > 1_000 && linked > 500 && failed > 200, "split \(split), linked \(linked), failed \(failed)")
  }

  @Test func aLongArrayIsReadOnThreads() throws {
    let type = try schema.modelType("Item").get()
    let elements = (0..<2_000).map {
      "{\"id\": \($0), \"name\": \"n\($0)\", \"tags\": [{\"id\": 1}, {\"id\": 2}]}"
    }
    let bytes = Array(("[" + elements.joined(separator: ",") + "]").utf8)
    for _ in 0..<20 {
      let report = DirectReader.PieceReport()
      let models = bytes.withUnsafeBufferPointer { buffer in
        DirectReader.many(
          buffer, type, in: schema, splitting: .init(pieceBytes: 1_000, threads: 4), report: report)
      }
      #expect(report.pieces == 32 && report.threads == 4)
      #expect(models?.count == 2_000)
      #expect(
        models?.enumerated().allSatisfy { index, model in Model(model)["id"] == .int(Int64(index)) } == true)
    }
  }

  @Test func callsMadeAtOnceShareTheThreads() throws {
    let budget = Parallel.ThreadBudget(limit: 4)
    #expect(budget.reserve(3) == 3)
    #expect(budget.reserve(3) == 1)  // what is left
    #expect(budget.reserve(2) == 1)  // nothing is left: the calling thread alone
    budget.give(1)
    budget.give(1)
    budget.give(3)
    #expect(budget.inUse == 0)
    // a call that finds the threads held reads its array whole, on its own thread
    let type = try schema.modelType("Item").get()
    let bytes = Array(("[" + (0..<500).map { "{\"id\": \($0)}" }.joined(separator: ",") + "]").utf8)
    let held = budget.reserve(4)
    for (expected, pieces) in [(1, 1), (4, 32)] {
      let report = DirectReader.PieceReport()
      let models = bytes.withUnsafeBufferPointer { buffer in
        DirectReader.many(
          buffer, type, in: schema, splitting: .init(pieceBytes: 100, threads: 4, budget: budget),
          report: report)
      }
      #expect(report.threads == expected && report.pieces == pieces)
      #expect(models?.count == 500)
      #expect(budget.inUse == (expected == 1 ? 4 : 0))  // given back once read
      if expected == 1 { budget.give(held) }
    }
  }
}
