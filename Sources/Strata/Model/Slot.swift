import CJansson

/// The stored state of one property value inside a model: absent, null, a
/// JSON leaf, a nested model, or a collection holding models.
///
/// This is the engine's model storage. A `.leaf` owns one reference to its
/// json_t (shared with the input where the value passed through untouched);
/// whoever owns a slot calls `release()` once when dropping it. An integer
/// or a real read from bytes is kept in the slot itself (`.integer`,
/// `.real`), a string in a chunk of text its call's models share
/// (`.text`), and a `[T]` of such leaves element by element (`.list`),
/// with no json_t behind them: a leaf is any of these, and readers take all
/// (`Slot+Leaves.swift`).
package enum Slot {
  /// Never set.
  case absent
  /// Explicitly null.
  case null
  /// A value whose type holds no model, kept as one JSON value (owned reference).
  case leaf(JPtr)
  /// A JSON integer leaf kept in the slot: the same value as `.leaf` of a
  /// jansson integer, without its allocation.
  case integer(Int64)
  /// A JSON real leaf kept in the slot (finite): the same value as `.leaf`
  /// of a jansson real.
  case real(Double)
  /// A JSON string leaf kept in a shared chunk of text (owns a reference
  /// to the chunk): the same value as `.leaf` of a jansson string.
  case text(TextLeaf)
  /// A JSON array leaf kept element by element: the same value as `.leaf`
  /// of a jansson array of them. Its elements are leaves of no array:
  /// `.integer`, `.real`, `.text`, or `.leaf` of jansson's `true`, `false`
  /// or `null` (which are never allocated). Owns its elements.
  case list(ContiguousArray<Slot>)
  /// A nested model.
  case model(ModelObject)
  /// `[T]` where T holds models.
  case array(ContiguousArray<Slot>)
  /// `{T}` where T holds models, keys in input order.
  case dict(ContiguousArray<DictEntry>)

  /// `count` absent slots: a model's storage before it is filled. Built by
  /// appending to reserved capacity, which the compiler specializes for
  /// `Slot`; `init(repeating:count:)` goes through the standard library's
  /// unspecialized allocation and looks up the array storage's generic
  /// metadata on every call (Benchmarks/README.md, "Where the time goes
  /// (direct reading)").
  package static func absentSlots(_ count: Int) -> ContiguousArray<Slot> {
    var slots = ContiguousArray<Slot>()
    slots.reserveCapacity(count)
    for _ in 0..<count { slots.append(.absent) }
    return slots
  }

  /// Drops the references this slot owns.
  package func release() {
    switch self {
    case .absent, .null, .model, .integer, .real: return
    case .leaf(let value): JValue.release(value)
    case .text(let text): text.release()
    case .array(let elements), .list(let elements): for element in elements { element.release() }
    case .dict(let entries): for entry in entries { entry.value.release() }
    }
  }

  /// A deep copy: leaves are shared (they are never changed in place), models copied.
  package func copy() -> Slot {
    switch self {
    case .absent, .null, .integer, .real: return self
    case .leaf(let value): return .leaf(JValue.retain(value))
    case .text(let text):
      text.retain()
      return self
    case .model(let object): return .model(object.copy())
    case .list: return shared()
    case .array(let elements): return .array(ContiguousArray(elements.map { $0.copy() }))
    case .dict(let entries):
      return .dict(ContiguousArray(entries.map { DictEntry(key: $0.key, value: $0.value.copy()) }))
    }
  }

  /// Another reference to the same value: leaves retained, nested models
  /// shared (they are never changed in place), collections rebuilt.
  package func shared() -> Slot {
    switch self {
    case .absent, .null, .model, .integer, .real: return self
    case .leaf(let value): return .leaf(JValue.retain(value))
    case .text(let text):
      text.retain()
      return self
    case .array(let elements): return .array(ContiguousArray(elements.map { $0.shared() }))
    case .list(let elements): return .list(ContiguousArray(elements.map { $0.shared() }))
    case .dict(let entries):
      return .dict(ContiguousArray(entries.map { DictEntry(key: $0.key, value: $0.value.shared()) }))
    }
  }

  /// True unless absent.
  package var isPresent: Bool {
    if case .absent = self { return false }
    return true
  }
}

/// One entry of a `{T}` slot.
package struct DictEntry {
  /// The object key.
  let key: String
  /// The value.
  var value: Slot
}
