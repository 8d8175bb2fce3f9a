import CJansson

/// Completing a model mapped partially (from an update, or a graph
/// import's input) where it stands alone: nothing is there to merge it into.
extension ModelObject {
  /// This model with the defaults a whole mapping gives where it lacks a
  /// value, looking into the nested models that were mapped partially with
  /// it (those whose property merges models: `"merge": "merge"`, and the
  /// elements of such a property's arrays). `self` when it lacks none;
  /// never changes `self` or a nested model (either may be shared).
  package func withDefaults() -> ModelObject {
    var slots: ContiguousArray<Slot>? = nil
    let properties = type.properties
    for index in properties.indices where index < self.slots.count {
      let spec = properties[index]
      var replacement: Slot? = nil
      if case .absent = self.slots[index] {
        replacement = spec.defaultSlot?.copy()
      } else if spec.merge.mergesModels {
        replacement = self.slots[index].modelsWithDefaults()
      }
      guard let replacement else { continue }
      if slots == nil { slots = ContiguousArray(self.slots.map { $0.shared() }) }
      slots?[index].release()
      slots?[index] = replacement
    }
    guard let slots else { return self }
    return ModelObject.make(
      schema: schema, type: type, slots: slots, unknown: unknown.flatMap { json_copy($0) })
  }
}

extension Slot {
  /// The slot with its models (a model, or an array's) given their
  /// defaults (`ModelObject.withDefaults`): a new slot (owned), or nil when
  /// none lacks one.
  package func modelsWithDefaults() -> Slot? {
    switch self {
    case .model(let nested):
      let whole = nested.withDefaults()
      return whole === nested ? nil : .model(whole)
    case .array(let elements):
      var changed = false
      let whole = ContiguousArray(
        elements.map { element -> Slot in
          guard let filled = element.modelsWithDefaults() else { return element.shared() }
          changed = true
          return filled
        })
      guard changed else {
        Slot.array(whole).release()
        return nil
      }
      return .array(whole)
    default: return nil
    }
  }
}
