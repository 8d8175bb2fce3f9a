import CJansson

/// The storage of one model instance: the slot of each property, in the
/// model type's property order, plus the input keys kept under
/// `unknownKeys: keep`. Reference type: nested models and C handles point to it.
///
/// One heap block holds the object's fields (`ModelHeader`) and its slots,
/// which follow them in the same allocation: a model costs one
/// allocation, not an object and an array (Benchmarks/README.md, "One
/// block per model"). The class declares no stored property: it is the
/// buffer class of a `ManagedBufferPointer`, which lays out the header and
/// the slots after the object's own header. (A `ManagedBuffer` subclass
/// would do the same, but could not be `Sendable`.) The slot count is
/// fixed when the object is made; `slots` reads and writes them in place.
package final class ModelObject: @unchecked Sendable {
  /// The object's header and slots.
  @usableFromInline typealias Storage = ManagedBufferPointer<ModelHeader, Slot>

  /// This object's storage.
  @inlinable var storage: Storage { Storage(unsafeBufferObject: self) }

  /// The object's fields.
  @inlinable var header: ModelHeader {
    _read { yield storage.header }
    _modify {
      var storage = storage
      yield &storage.header
    }
  }

  /// An object of `count` slots with `header`, its slots not yet initialized.
  private static func allocate(_ header: ModelHeader, count: Int) -> ModelObject {
    let storage = Storage(bufferClass: ModelObject.self, minimumCapacity: count) { _, _ in header }
    return unsafeDowncast(storage.buffer, to: ModelObject.self)
  }

  /// A model of `type` whose `count` slots are all absent, to be filled in
  /// place (`slots`). A template (`template`, a default value the schema
  /// itself holds) does not keep its schema alive.
  package static func make(
    schema: Schema, type: ModelType, count: Int, unknown: JPtr? = nil, template: Bool = false
  ) -> ModelObject {
    let object = allocate(
      ModelHeader(schema: schema, owner: template ? nil : schema, type: type, count: count, unknown: unknown),
      count: count)
    object.storage.withUnsafeMutablePointerToElements { $0.initialize(repeating: .absent, count: count) }
    return object
  }

  /// A model of `type` holding `slots` (their references move into it) and
  /// the unknown keys `unknown` (owned reference, or nil).
  package static func make(
    schema: Schema, type: ModelType, slots: ContiguousArray<Slot>, unknown: JPtr?, template: Bool = false
  ) -> ModelObject {
    let count = slots.count
    let object = allocate(
      ModelHeader(schema: schema, owner: template ? nil : schema, type: type, count: count, unknown: unknown),
      count: count)
    object.storage.withUnsafeMutablePointerToElements { elements in
      slots.withUnsafeBufferPointer { given in
        guard let base = given.baseAddress else { return }
        elements.initialize(from: base, count: count)
      }
    }
    return object
  }

  /// The schema the model belongs to.
  @inlinable package var schema: Schema { header.schema }
  /// The model's type.
  @inlinable package var type: ModelType { header.type }
  /// One slot per property, read and written in place.
  @inlinable package var slots: ModelSlots { ModelSlots(object: self) }
  /// Unmapped input keys kept under `unknownKeys: keep` (owned reference), or nil.
  @inlinable package var unknown: JPtr? {
    get { header.unknown }
    set { header.unknown = newValue }
  }
  /// For the committed state of a graph record: the tie to the record (the
  /// object is then read only; a copy is an ordinary model). Its record is
  /// nil once freed, and read only by the context that made it
  /// (`RecordTie`). The record is seen through the `RecordIdentity`
  /// protocol, so that models know nothing of the graph's types
  /// (`Graph/GraphRecord` conforms).
  package var recordTie: RecordTie? { header.recordTie }
  /// The key of the graph record this object shows, kept when the record
  /// is deleted or its context closed (the handle stays a read-only record).
  package var recordKey: RecordKey? { header.recordKey }
  /// True when this is the committed state of a stub record (known by its
  /// key only, not yet filled by an object).
  package var recordIsStub: Bool { header.recordIsStub }

  /// Makes this object the committed state of the record of `tie`, a stub
  /// when `isStub`; the object keeps the record's key. The tie's `owner`
  /// is the cache a handle finds the record in again by this key once the
  /// record left it.
  package func tie(to tie: RecordTie, key: RecordKey, isStub: Bool) {
    header.recordTie = tie
    header.recordKey = key
    header.recordIsStub = isStub
  }

  deinit {
    storage.withUnsafeMutablePointers { header, elements in
      let count = header.pointee.count
      // each slot moved out and dropped (a copy to release would retain
      // and release what it holds once more)
      for index in 0..<count { (elements + index).move().release() }
      if let unknown = header.pointee.unknown { JValue.release(unknown) }
      // a buffer class's deinit destroys its header too
      header.deinitialize(count: 1)
    }
  }

  /// A deep copy sharing no mutable state.
  package func copy() -> ModelObject {
    var unknownCopy: JPtr? = nil
    if let unknown { unknownCopy = json_copy(unknown) }
    let object = ModelObject.make(schema: schema, type: type, count: header.count, unknown: unknownCopy)
    let from = slots
    let to = object.slots
    for index in from.indices { to[index] = from[index].copy() }
    return object
  }
}

/// The fields of a `ModelObject`, kept ahead of its slots in its one block.
package struct ModelHeader {
  /// The schema the model belongs to.
  @usableFromInline unowned(unsafe) let schema: Schema
  /// Keeps the schema alive; nil only for the default-value templates that
  /// the schema itself holds (which would otherwise form a cycle).
  let owner: Schema?
  /// The model's type. Unowned: every type belongs to the schema's
  /// `models` (`SchemaLoader` makes them all), and `owner` keeps the
  /// schema alive; a template belongs to the schema too, and its deinit
  /// does not touch its type. One retain and release less per model.
  @usableFromInline unowned(unsafe) let type: ModelType
  /// The number of slots that follow the header.
  @usableFromInline let count: Int
  /// Unmapped input keys kept under `unknownKeys: keep` (owned reference), or nil.
  @usableFromInline var unknown: JPtr?
  /// The tie to the graph record this object is the committed state of.
  var recordTie: RecordTie?
  /// The key of that record, kept once the record is gone.
  var recordKey: RecordKey?
  /// True for the committed state of a stub record.
  var recordIsStub = false

  init(schema: Schema, owner: Schema?, type: ModelType, count: Int, unknown: JPtr?) {
    self.schema = schema
    self.owner = owner
    self.type = type
    self.count = count
    self.unknown = unknown
  }
}

/// The slots of one `ModelObject`, in place: a collection of its property
/// values that reads and writes the object's own storage. Being a view,
/// it has no value semantics: a write through any copy of it changes the
/// object (`nonmutating set`), and a slot read from it after a write is
/// the new one.
package struct ModelSlots: RandomAccessCollection, MutableCollection {
  /// The object whose slots these are.
  @usableFromInline let object: ModelObject

  /// The view of `object`'s slots.
  @inlinable init(object: ModelObject) { self.object = object }

  /// Zero.
  @inlinable package var startIndex: Int { 0 }
  /// The slot count.
  @inlinable package var endIndex: Int { object.header.count }

  /// The slot at `index` (borrowed: the object owns it); setting it
  /// replaces the slot without releasing the one it held.
  @inlinable package subscript(index: Int) -> Slot {
    // read in place, not copied out: a copy retained and released what the
    // slot holds, for each `slots[index].isPresent` of the readers
    _read {
      precondition(index >= 0 && index < object.header.count, "slot index out of range")
      yield object.storage.withUnsafeMutablePointerToElements { $0 }[index]
    }
    nonmutating _modify {
      precondition(index >= 0 && index < object.header.count, "slot index out of range")
      let elements = object.storage.withUnsafeMutablePointerToElements { $0 }
      yield &elements[index]
    }
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
