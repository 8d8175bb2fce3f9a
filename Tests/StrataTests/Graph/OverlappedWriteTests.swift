import Strata
import StrataGraph
import Testing

/// Everything in a store as text, model by model, in key order (tuples are
/// not Equatable).
func storeText(_ store: GraphStore) throws -> [String: [String]] {
  try contents(store).mapValues { records in records.map { "\($0.key) \($0.body)" } }
}

/// Random changes over the store tests' models: upserts and deletes, keys
/// repeated within one write, to-many and to-one links, on several tables.
func randomStoreChanges(_ random: inout SeededRandom, count: Int) -> [GraphStore.JSONChange] {
  (0..<count).map { _ in
    let key = Int64.random(in: 0..<400, using: &random)
    switch Int.random(in: 0..<10, using: &random) {
    case 0: return remove("Old", .int(key))
    case 1: return remove("Tag", .string("t\(key % 60)"))
    case 2, 3:
      let tags = (0..<Int.random(in: 0...4, using: &random)).map { _ in
        JSON.string("t\(Int.random(in: 0..<60, using: &random))")
      }
      return put(
        "Tag", .string("t\(key % 60)"),
        ["name": .string("t\(key % 60)"), "score": .double(Double(key) / 4), "tags": .array(tags)])
    case 4:
      return put(
        "Member", [.string("o\(key % 7)"), .string("m\(key)")],
        [
          "org": .string("o\(key % 7)"), "login": .string("m\(key)"), "role": "r",
          "best": .string("t\(key % 60)"),
        ])
    default:
      return put(
        "Old", .int(key), ["id": .int(key), "text": .string("v\(Int.random(in: 0..<3, using: &random))")])
    }
  }
}

/// A write of many changes makes its rows on a helper thread while the
/// rows made before are written (`GraphStore.writeOverlapFrom`). The
/// invariant: every write leaves the file as the same write made in place,
/// and a change that cannot be made into a row fails the whole write with
/// the same error, the file as it was.
@Test(arguments: 0..<3)
func writesOverlappedWithMakingTheirRowsEndAsWrittenInPlace(seed: UInt64) throws {
  let directory = try TemporaryDirectory()
  let inPlace = try openStore(directory.path("in-place.db"))
  inPlace.writeOverlapFrom = Int.max
  let overlapped = try openStore(directory.path("overlapped.db"))
  overlapped.writeOverlapFrom = 0
  defer {
    inPlace.close()
    overlapped.close()
  }
  var random = SeededRandom(seed: seed)
  for round in 0..<6 {
    var changes = randomStoreChanges(
      &random, count: [1, 127, 128, 129, 700, 1500].randomElement(using: &random) ?? 1)
    if round % 3 == 2 {
      // a body without values: its row cannot be made
      let at = Int.random(in: 0..<changes.count, using: &random)
      changes[at] = GraphStore.JSONChange(model: "Old", key: .int(5), body: ["model": "Old"])
    }
    let want = failure { try inPlace.write(changes) }
    let got = failure { try overlapped.write(changes) }
    #expect(got == want, "seed \(seed) round \(round)")
    #expect(round % 3 != 2 || !want.isEmpty, "seed \(seed) round \(round): the bad change was written")
    #expect(try storeText(overlapped) == storeText(inPlace), "seed \(seed) round \(round)")
  }
  #expect(try store(overlapped, holdsMoreThan: 100))
}

/// The first error `body` throws, its code, path and message; "" when it throws none.
private func failure(_ body: () throws -> Void) -> String {
  do {
    try body()
    return ""
  } catch let error as StrataError {
    return error.errors.map { "\($0.code) \($0.path) \($0.message)" }.joined(separator: "\n")
  } catch {
    return "\(error)"
  }
}

/// True when the store holds more than `count` records of `Old`.
private func store(_ store: GraphStore, holdsMoreThan count: Int) throws -> Bool {
  try store.count(model: "Old") > count
}
