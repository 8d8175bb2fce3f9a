import CJansson
import Strata
import Testing

// A model is one heap block: its fields and its slots in one allocation,
// the slots read and written in place through `slots`. These tests hold
// the block to what the array it replaced gave: every slot starts absent,
// a write through any copy of the view is the object's, the object owns
// what its slots hold (and releases it once), and a copy shares nothing.

private let objectSchema: JSON = [
  "strata": 1,
  "models": [
    "Box": [
      "properties": [
        "label": ["type": "string"],
        "inner": ["type": "Box?"],
        "count": ["type": "int"],
      ]
    ],
    "Empty": ["properties": [:]],
  ],
]

/// The reference count of `value` (jansson's own field).
private func references(_ value: JPtr) -> Int { Int(value.pointee.refcount) }

@Test func aModelsSlotsStartAbsentAndAreWrittenInPlace() throws {
  let schema = try Schema(objectSchema)
  let type = try schema.modelType("Box").get()
  let object = ModelObject.make(schema: schema, type: type, count: type.properties.count)
  #expect(object.slots.count == 3)
  #expect(object.slots.allSatisfy { if case .absent = $0 { true } else { false } })
  let view = object.slots
  view[2] = .integer(7)
  guard case .integer(7) = object.slots[2] else {
    Issue.record("a write through a copy of the view is not the object's: \(object.slots[2])")
    return
  }
  #expect(Model(object)["count"] == 7)
  #expect(Model(object).has("count") && !Model(object).has("label"))
}

@Test func aModelReleasesWhatItsSlotsHoldOnce() throws {
  let schema = try Schema(objectSchema)
  let type = try schema.modelType("Box").get()
  let label = try #require(json_string("a label"))
  let unknown = try #require(json_object())
  do {
    let inner = ModelObject.make(schema: schema, type: type, count: type.properties.count)
    inner.slots[0] = .leaf(JValue.retain(label))
    let outer = ModelObject.make(
      schema: schema, type: type, count: type.properties.count, unknown: JValue.retain(unknown))
    outer.slots[0] = .leaf(JValue.retain(label))
    outer.slots[1] = .model(inner)
    #expect(references(label) == 3)
    let copy = outer.copy()
    #expect(references(label) == 5)
    #expect(references(unknown) == 2, "a copy has its own unknown keys")
    guard case .model(let copiedInner) = copy.slots[1] else {
      Issue.record("the copy lost its nested model")
      return
    }
    #expect(copiedInner !== inner, "a copy copies its nested models")
    copy.slots[2] = .integer(1)
    guard case .absent = outer.slots[2] else {
      Issue.record("a write to the copy changed the original")
      return
    }
    #expect(Model(copy) != Model(outer))
  }
  #expect(references(label) == 1, "every slot's reference was released, once")
  #expect(references(unknown) == 1)
  JValue.release(label)
  JValue.release(unknown)
}

@Test func aModelOfNoPropertiesIsOneEmptyBlock() throws {
  let schema = try Schema(objectSchema)
  let type = try schema.modelType("Empty").get()
  let object = ModelObject.make(schema: schema, type: type, count: 0)
  #expect(object.slots.isEmpty)
  #expect(Model(object.copy()) == Model(object))
  let mapped = try schema.map("Empty", from: JSON.object([:]))
  #expect(mapped.object.slots.isEmpty)
}

@Test func slotsMovedFromAnArrayAreTheModels() throws {
  let schema = try Schema(objectSchema)
  let type = try schema.modelType("Box").get()
  let label = try #require(json_string("moved"))
  do {
    let object = ModelObject.make(
      schema: schema, type: type, slots: [.leaf(JValue.retain(label)), .null, .integer(3)], unknown: nil)
    #expect(references(label) == 2, "the reference moved into the object, not copied")
    #expect(Model(object)["label"] == "moved")
    #expect(Model(object)["inner"] == .null)
  }
  #expect(references(label) == 1)
  JValue.release(label)
}
