/// How `merge` and `update` combine a property's current and incoming values.
package enum MergePolicy: @unchecked Sendable {
  /// The incoming value wins where present; absent never wipes; null does.
  case replace
  /// A present, non-null current value stays.
  case keep
  /// Nested models merge recursively.
  case merge
  /// Arrays: current elements, then incoming ones.
  case append
  /// Arrays of models: deduplicated by the element model's primary key, later wins, order kept.
  case union
  /// The larger number or later date.
  case max
  /// The smaller number or earlier date.
  case min
  /// A host-registered merger.
  case custom(Merger)

  /// True for `.merge`.
  package var mergesModels: Bool {
    if case .merge = self { return true }
    return false
  }
}

/// A named custom merge function registered by the host (C callback, Python
/// callable, Swift closure). Immutable; may be called from several threads.
package final class Merger: @unchecked Sendable {
  /// The name schemas use in `merge`.
  package let name: String
  /// (current canonical value or nil when absent, incoming canonical value) ->
  /// the merged canonical value (a new reference), or a failure message.
  let function: (JPtr?, JPtr) -> Result<JPtr, MergeRefusal>
  private let release: (() -> Void)?

  /// A merger from its function.
  package init(
    name: String, function: @escaping (JPtr?, JPtr) -> Result<JPtr, MergeRefusal>,
    release: (() -> Void)? = nil
  ) {
    self.name = name
    self.function = function
    self.release = release
  }

  deinit { release?() }
}

/// Why a custom merger refused two values.
package struct MergeRefusal: Error, Sendable {
  /// One line for a person.
  package let message: String

  /// A refusal with its message.
  package init(_ message: String) { self.message = message }
}

/// A custom merger for the Swift API: a closure over canonical `JSON` values
/// (current is nil when the property is absent). A thrown error refuses the merge.
public struct ValueMerger: Sendable {
  /// (current, incoming) -> merged.
  public let function: @Sendable (JSON?, JSON) throws -> JSON

  /// A merger from its function.
  public init(_ function: @escaping @Sendable (JSON?, JSON) throws -> JSON) {
    self.function = function
  }

  func engineMerger(named name: String) -> Merger {
    let function = self.function
    return Merger(name: name) { current, incoming in
      do {
        let merged = try function(current.map { JSON(borrowing: $0) }, JSON(borrowing: incoming))
        guard let pointer = merged.makeJansson() else {
          return .failure(MergeRefusal("the merger returned a value JSON cannot hold"))
        }
        return .success(pointer)
      } catch {
        return .failure(MergeRefusal("\(error)"))
      }
    }
  }
}
