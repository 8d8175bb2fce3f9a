import CJansson

/// The storage of one model instance: the slot of each property, in the
/// model type's property order, plus the input keys kept under
/// `unknownKeys: keep`. Reference type: nested models and C handles point to it.
package final class ModelObject: @unchecked Sendable {
  /// The schema the model belongs to.
  unowned(unsafe) package let schema: Schema
  /// Keeps the schema alive; nil only for the default-value templates that
  /// the schema itself holds (which would otherwise form a cycle).
  private let owner: Schema?
  /// The model's type. Unowned: every type belongs to the schema's
  /// `models` (`SchemaLoader` makes them all), and `owner` keeps the
  /// schema alive; a template belongs to the schema too, and its deinit
  /// does not touch its type. One retain and release less per model.
  unowned(unsafe) package let type: ModelType
  /// One slot per property.
  package var slots: ContiguousArray<Slot>
  /// Unmapped input keys kept under `unknownKeys: keep` (owned reference), or nil.
  package var unknown: JPtr?
  /// For the committed state of a graph record: the tie to the record (the
  /// object is then read only; a copy is an ordinary model). Its record is
  /// nil once freed, and read only by the context that made it
  /// (`RecordTie`). The record is seen through the `RecordIdentity`
  /// protocol, so that models know nothing of the graph's types
  /// (`Graph/GraphRecord` conforms).
  package private(set) var recordTie: RecordTie?
  /// The key of the graph record this object shows, kept when the record
  /// is deleted or its context closed (the handle stays a read-only record).
  package private(set) var recordKey: RecordKey?
  /// True when this is the committed state of a stub record (known by its
  /// key only, not yet filled by an object).
  package var recordIsStub = false

  /// Makes this object the committed state of the record of `tie`, a stub
  /// when `isStub`; the object keeps the record's key. The tie's `owner`
  /// is the cache a handle finds the record in again by this key once the
  /// record left it.
  package func tie(to tie: RecordTie, key: RecordKey, isStub: Bool) {
    recordTie = tie
    recordKey = key
    recordIsStub = isStub
  }

  package init(
    schema: Schema, type: ModelType, slots: ContiguousArray<Slot>, unknown: JPtr?, template: Bool = false
  ) {
    self.schema = schema
    self.owner = template ? nil : schema
    self.type = type
    self.slots = slots
    self.unknown = unknown
  }

  deinit {
    for slot in slots { slot.release() }
    if let unknown { JValue.release(unknown) }
  }

  /// A deep copy sharing no mutable state.
  package func copy() -> ModelObject {
    var unknownCopy: JPtr? = nil
    if let unknown { unknownCopy = json_copy(unknown) }
    return ModelObject(
      schema: schema, type: type, slots: ContiguousArray(slots.map { $0.copy() }), unknown: unknownCopy)
  }
}

/// What a model object shown as a graph record knows of that record: its
/// key, as a value and as JSON. The graph's record type conforms; the
/// arrow points from the graph to models, never back.
package protocol RecordIdentity: AnyObject {
  /// The record's key.
  var key: RecordKey { get }
  /// The key as JSON (borrowed: owned by the record).
  var keyJSON: JPtr { get }
}
