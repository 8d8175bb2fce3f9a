import CJansson
import Strata

/// A record of a graph context: the model it is (a read-only snapshot taken
/// when it was fetched; relationships hold keys) and the context, through
/// which its relationships lead to the related records as they are now.
public struct Record: Sendable, Hashable, CustomStringConvertible {
  /// The record's values as a model (relationships as keys). Changing a
  /// copy of it never changes the record: imports do.
  public let model: Model
  /// The context the record belongs to.
  public let context: Context

  init(_ object: ModelObject, context: Context) {
    self.model = Model(object)
    self.context = context
  }

  /// The record's model name.
  public var name: String { model.name }

  /// The record's key: the canonical value of its key property, a list for
  /// a composite key.
  public var key: JSON {
    guard let made = model.object.recordKeyJSON else { return .null }
    defer { JValue.release(made) }
    return JSON(borrowing: made)
  }

  /// The canonical value of a property (a relationship gives the key, or
  /// the list of keys); nil when absent.
  public subscript(property: String) -> JSON? { model[property] }

  /// The records a relationship holds now, in order (empty when absent or null).
  public func related(_ property: String) throws(StrataError) -> [Record] {
    (try context.engine.related(model.object, property).get() ?? []).map { Record($0, context: context) }
  }

  /// The record a to-one relationship holds now, or nil.
  public func one(_ property: String) throws(StrataError) -> Record? { try related(property).first }

  /// The canonical dictionary with relationships nested; a record met again
  /// on a cycle is written as its key.
  public var dictionary: JSON {
    get throws(StrataError) {
      let pointer = try context.engine.nestedDictionary(model.object).get()
      defer { JValue.release(pointer) }
      return JSON(borrowing: pointer)
    }
  }

  /// The canonical dictionary with relationships nested `levels` levels
  /// down and written as keys below (0: the record's own dictionary, with
  /// keys); a record met again on a cycle is written as its key.
  public func dictionary(levels: Int) throws(StrataError) -> JSON {
    let pointer = try context.engine.nestedDictionary(model.object, levels: levels).get()
    defer { JValue.release(pointer) }
    return JSON(borrowing: pointer)
  }

  /// True when the record is a stub: known by its key only (a bare key in
  /// some input made it), not yet filled by an object. As the handle saw it.
  public var isStub: Bool { model.object.recordIsStub }

  /// The record serialized to JSON, relationships nested as `dictionary` nests them.
  public var json: JSON {
    get throws(StrataError) {
      let pointer = try context.engine.nestedJSON(model.object).get()
      defer { JValue.release(pointer) }
      return JSON(borrowing: pointer)
    }
  }

  /// Equal when of the same model with equal values (relationships by key).
  public static func == (lhs: Record, rhs: Record) -> Bool { lhs.model == rhs.model }

  /// Hashes the values, consistent with `==`.
  public func hash(into hasher: inout Hasher) { hasher.combine(model) }

  /// `Name{...}` with relationships as keys (never loops on cycles).
  public var description: String { model.description }
}

extension ModelObject {
  /// The key of the graph record this object shows (a new reference), or nil for an ordinary model.
  package var recordKeyJSON: JPtr? {
    // from the key the object keeps, not through its record: any thread may ask (`RecordTie`)
    recordKey?.makeJSON()
  }
}
