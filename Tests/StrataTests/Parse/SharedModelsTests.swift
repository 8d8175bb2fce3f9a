import Testing

@testable import Strata

/// The outcome of mapping `text` as an array of `model`: read from its
/// bytes (where `SharedModels` shares repeated nested objects), and mapped
/// from the parsed value (where nothing is shared).
private func bothWays(_ schema: Schema, _ model: String, _ text: String) -> (
  direct: Result<[Model], StrataError>, parsed: Result<[Model], StrataError>
) {
  let direct = Result { () throws(StrataError) in try schema.mapMany(model, parsing: text) }
  let parsed = Result { () throws(StrataError) in try schema.mapMany(model, from: try JSON(parsing: text)) }
  return (direct, parsed)
}

/// The nested model in property `index` of `model`, if it holds one.
private func nested(_ model: Model, _ index: Int) -> ModelObject? {
  guard index < model.object.slots.count, case .model(let object) = model.object.slots[index] else {
    return nil
  }
  return object
}

/// Records whose users and labels come from small pools, byte for byte,
/// so that they repeat: with unknown keys kept, escapes, a class cluster,
/// nulls, wrong types and numbers outside jansson's range among them. Read
/// from the bytes as one array, where repeated objects are shared, the
/// records map as each record read alone does (the same models, or the
/// same errors at the same places), and a user met again is the same
/// model object.
@Test func repeatedNestedObjectsMapAsEachRecordAloneAndAreShared() throws {
  let schema = try Schema(
    parsing: #"""
      {"strata": 1, "models": {
        "R": {"properties": {
          "id": {"type": "int", "required": true},
          "owner": {"type": "U?"},
          "labels": {"type": "[L]", "default": []},
          "shape": {"type": "Shape?"}
        }},
        "U": {"unknownKeys": "keep", "properties": {
          "id": {"type": "int", "required": true},
          "name": {"type": "string"},
          "score": {"type": "double?"},
          "count": {"type": "string?"}
        }},
        "L": {"properties": {"name": {"type": "string", "required": true}, "color": {"type": "string?"}}},
        "Shape": {"subtypes": {"key": "kind", "map": {"circle": "Circle", "square": "Square"}},
          "properties": {"kind": {"type": "string"}}},
        "Circle": {"extends": "Shape", "properties": {"radius": {"type": "double"}}},
        "Square": {"extends": "Shape", "properties": {"side": {"type": "double"}}}
      }}
      """#)
  // the last of each pool is refused; the others map
  let users = [
    #"{"id": 1, "name": "ann"}"#, #"{"id": 2, "name": "b\u00f6b", "score": 2.5}"#,
    #"{"id": 3, "name": "cy", "extra": [1, {"x": null}]}"#, #"{"id": 4}"#, "null",
    #"{"id": 5, "score": 123456789012345678901234567890}"#, #"{"id": 7, "name": "d", "name": "e"}"#,
    #"{"id": 8, "count": 123456789012345678901234567890}"#,
    // two texts whose first 64 bytes are the same (the key of `SharedModels`)
    #"{"id": 9, "name": "a name long enough to run past the first sixty-four bytes", "score": 1.5}"#,
    #"{"id": 9, "name": "a name long enough to run past the first sixty-four bytes", "score": 2.5}"#,
    #"{"name": "no id"}"#,
  ]
  let labels = [
    #"{"name": "bug", "color": "f00"}"#, #"{"name": "ok"}"#, #"{"name": "\ud83d\ude00"}"#,
    #"{"color": "0f0"}"#,
  ]
  let shapes = [
    #"{"kind": "circle", "radius": 1}"#, #"{"kind": "square", "side": 2}"#, "null", #"{"kind": "oval"}"#,
  ]
  let ownerIndex = try #require(schema.modelType("R").get().properties.firstIndex { $0.name == "owner" })
  var random = SeededRandom(seed: 0x5_4A7E)
  // mostly from the mapping part of a pool, now and then its refused last one
  func pick(_ pool: [String]) -> String {
    random.below(150) == 0 ? pool[pool.count - 1] : pool[random.below(pool.count - 1)]
  }
  var mapped = 0
  var failed = 0
  var sharedPairs = 0
  var repeats = 0
  for _ in 0..<400 {
    var records: [String] = []
    var owners: [String?] = []
    for id in 0..<(1 + random.below(60)) {
      var members = [#""id": \#(id)"#]
      var owner: String? = nil
      if random.below(6) != 0 {
        owner = pick(users)
        members.append(#""owner": "# + (owner ?? ""))
      }
      if random.below(3) != 0 {
        let count = random.below(4)
        members.append(
          #""labels": ["#
            + (0..<count).map { _ in pick(labels) }.joined(separator: ", ") + "]")
      }
      if random.below(4) == 0 { members.append(#""shape": "# + pick(shapes)) }
      members.shuffle(using: &random)
      records.append("{" + members.joined(separator: ", ") + "}")
      owners.append(owner)
    }
    let text = "[" + records.joined(separator: ", ") + "]"
    let whole = Result { () throws(StrataError) in try schema.mapMany("R", parsing: text) }
    let alone = records.map { record in
      Result { () throws(StrataError) in try schema.map("R", parsing: record) }
    }
    var errors: [(String, String)] = []
    var models: [Model] = []
    for (index, answer) in alone.enumerated() {
      switch answer {
      case .success(let model): models.append(model)
      case .failure(let error): errors += error.errors.map { ("/\(index)" + $0.path, $0.message) }
      }
    }
    switch whole {
    case .success(let array):
      #expect(errors.isEmpty, "\(text)")
      #expect(try array.map { try $0.json } == models.map { try $0.json }, "\(text)")
      mapped += 1
      // records holding the same user text hold the same object
      var seen: [String: ModelObject] = [:]
      for (owner, model) in zip(owners, array) {
        guard let owner, let user = nested(model, ownerIndex) else { continue }
        if let earlier = seen[owner] {
          // (a user holding a number outside jansson's range is read each time)
          // (the two whose keys are the same take turns in the table's one entry for it)
          if !owner.contains("1234567890") && !owner.contains("sixty-four") { repeats += 1 }
          if earlier === user { sharedPairs += 1 }
        } else {
          seen[owner] = user
        }
      }
    case .failure(let error):
      #expect(error.errors.map(\.path) == errors.map(\.0), "\(text)")
      #expect(error.errors.map(\.message) == errors.map(\.1), "\(text)")
      failed += 1
    }
  }
  #expect(mapped > 20 && failed > 20)
  // every user met again is the model read the first time (and the two
  // sharing a key are told apart by their whole text: see the comparison above)
  #expect(repeats > 50)
  #expect(sharedPairs >= repeats)
}

/// The same nested text at two depths is not one model: a `json` value
/// that nests within the limit at the first place exceeds it at the
/// second, deeper place, and the array is refused there, as the parsed
/// array is.
@Test func aSharedModelIsNotReusedDeeperThanItWasRead() throws {
  let schema = try Schema(
    parsing: #"""
      {"strata": 1, "models": {
        "N": {"properties": {"child": {"type": "N?"}, "leaf": {"type": "P?"}}},
        "P": {"properties": {"payload": {"type": "json?"}}}
      }}
      """#)
  // a json payload of 400 levels
  let deep = 400
  let payload = String(repeating: "[", count: deep) + String(repeating: "]", count: deep)
  let leaf = #"{"payload": "# + payload + "}"
  func chain(_ levels: Int) -> String {
    var text = #"{"leaf": "# + leaf + "}"
    for _ in 0..<levels { text = #"{"child": "# + text + "}" }
    return text
  }
  // within the limit at 100 levels (read and kept), past it at 120
  let text = "[" + chain(100) + ", " + chain(120) + "]"
  let (direct, parsed) = bothWays(schema, "N", text)
  guard case .failure(let b) = parsed else {
    Issue.record("the parsed array was expected to fail: \(parsed)")
    return
  }
  guard case .failure(let a) = direct else {
    Issue.record("read from its bytes, the array mapped: \(direct)")
    return
  }
  #expect(a.errors.map(\.path) == b.errors.map(\.path))
  #expect(a.errors.map(\.code) == b.errors.map(\.code))
  // the shallow record twice maps
  #expect(throws: Never.self) { try schema.mapMany("N", parsing: "[" + chain(100) + ", " + chain(100) + "]") }
}
