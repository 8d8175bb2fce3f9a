import CJansson

/// A host function that gives a key to records of a model whose input has
/// none (MMRecord's primary key injection): called with the record's input
/// object and the canonical dictionary of the record that holds it (nil at
/// the top of a response), it returns the key (a new reference: the
/// property's canonical value, or a list for a composite key) or a refusal.
/// Registered with the schema, like transformers; may be called from
/// several threads.
package final class KeyInjector: @unchecked Sendable {
  /// The model the injector gives keys to.
  package let model: String
  /// The function.
  package let function: (JPtr, JPtr?) -> Result<JPtr, MergeRefusal>
  /// Called once when the injector goes away (a C payload's release).
  private let release: (() -> Void)?

  /// An injector from its parts.
  package init(
    model: String, function: @escaping (JPtr, JPtr?) -> Result<JPtr, MergeRefusal>,
    release: (() -> Void)? = nil
  ) {
    self.model = model
    self.function = function
    self.release = release
  }

  deinit { release?() }
}

/// A key injector written in Swift: the record's input object and the
/// canonical dictionary of the record holding it (nil at the top) -> the key.
public typealias KeyInjectorFunction = @Sendable (_ value: JSON, _ parent: JSON?) throws -> JSON
