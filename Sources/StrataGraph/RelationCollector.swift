import CJansson
import Strata

/// What the Mapper sets aside, inside a graph import, where a record's
/// relationship holds a value: the input (an object or a bare key), where it
/// is, and the model it refers to. The slot gets a placeholder, the input
/// value itself (retained), which `entry(_:)` finds again.
///
/// Entries are kept in a stack: an object's entries are resolved (and
/// dropped with `drop(to:)`) before the next object of the response is
/// mapped, so the stack stays as short as the nesting of the input.
final class RelationCollector: RelationHolder {
  /// One set-aside value.
  struct Pending {
    /// The input value (borrowed from the input, alive for the import).
    let value: JPtr
    /// The model it refers to (as declared).
    let model: Int
    /// Where it is, after the steps of the object that holds it: at most two
    /// steps (a property, then an array index) in `first` and `second`, or
    /// the whole path in `path` when there are more.
    let first: PathStep?
    let second: PathStep?
    let path: [PathStep]?
  }

  /// Everything set aside and not yet dropped.
  private(set) var pending: [Pending] = []
  /// The number of steps of the object being mapped (its path in the input).
  var base = 0
  /// Where each value of `pending[..<indexed]` is (the newest of repeats),
  /// made once the stack is long (a list of many keys): a search from the
  /// newest would make a list of n keys cost n^2/2 comparisons.
  private var positions: [JPtr: Int] = [:]
  /// How many entries `positions` covers.
  private var indexed = 0
  /// Below this many entries, `entry(_:)` searches; above, it indexes.
  private static let searchLimit = 16

  /// Sets `value` aside: the placeholder slot.
  func hold(_ value: JPtr, steps: [PathStep], model: Int) -> Slot {
    let tail = steps.count - base
    // room for a record's few relationships at once, not grown one by one
    if pending.capacity == 0 { pending.reserveCapacity(8) }
    if tail >= 0 && tail <= 2 {
      pending.append(
        Pending(
          value: value, model: model, first: tail >= 1 ? steps[base] : nil,
          second: tail == 2 ? steps[base + 1] : nil,
          path: nil))
    } else {
      pending.append(Pending(value: value, model: model, first: nil, second: nil, path: steps))
    }
    return .leaf(JValue.retain(value))
  }

  /// The entry a placeholder slot stands for (searched from the newest: an
  /// object's own entries are the last ones when it is resolved).
  func entry(_ slot: Slot) -> Pending? {
    guard case .leaf(let value) = slot else { return nil }
    if pending.count > Self.searchLimit {
      while indexed < pending.count {
        positions[pending[indexed].value] = indexed
        indexed += 1
      }
      if let position = positions[value] { return pending[position] }
      // not indexed: a repeat whose newer copy was dropped, or no entry
    }
    var index = pending.count - 1
    while index >= 0 {
      if pending[index].value == value { return pending[index] }
      index -= 1
    }
    return nil
  }

  /// The number of entries now (a mark for `drop(to:)`).
  var mark: Int { pending.count }

  /// Drops the entries set aside since `mark`.
  func drop(to mark: Int) {
    guard mark >= 0 && mark < pending.count else { return }
    if mark < indexed {
      for position in mark..<indexed where positions[pending[position].value] == position {
        positions[pending[position].value] = nil
      }
      indexed = mark
    }
    pending.removeSubrange(mark...)
  }
}
