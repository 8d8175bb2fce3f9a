import CJansson

/// What the Mapper sets aside, inside a graph import, where a record's
/// relationship holds a value: the input (an object or a bare key), where it
/// is, and the model it refers to. The slot gets a placeholder (the index
/// of the entry, as a JSON integer) that the import replaces by the record.
final class RelationCollector {
  /// One set-aside value.
  struct Pending {
    /// The input value (borrowed from the input, alive for the import).
    let value: JPtr
    /// Where it is in the input.
    let steps: [PathStep]
    /// The model it refers to (as declared).
    let model: Int
  }

  /// Everything set aside so far.
  var pending: [Pending] = []

  /// Sets `value` aside: the placeholder slot.
  func hold(_ value: JPtr, steps: [PathStep], model: Int) -> Slot {
    pending.append(Pending(value: value, steps: steps, model: model))
    return .leaf(json_integer(json_int_t(pending.count - 1)))
  }

  /// The entry a placeholder slot stands for.
  func entry(_ slot: Slot) -> Pending? {
    guard case .leaf(let marker) = slot, JValue.isInteger(marker) else { return nil }
    let index = Int(json_integer_value(marker))
    return index >= 0 && index < pending.count ? pending[index] : nil
  }
}
