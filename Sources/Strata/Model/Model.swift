import CJansson

/// One model instance: the values of a schema model's properties, each
/// absent, null, or a value. A value type: copies are independent.
public struct Model: Sendable, Hashable, CustomStringConvertible {
  /// The storage, shared between copies until one of them changes.
  package private(set) var object: ModelObject

  /// Wraps storage.
  package init(_ object: ModelObject) {
    self.object = object
  }

  /// The model's name in its schema.
  public var name: String { object.type.name }

  /// The schema the model belongs to.
  public var schema: Schema { object.schema }

  /// The names of the model's properties, in schema order.
  public var propertyNames: [String] { object.type.properties.map(\.name) }

  /// True when `property` holds a value or null; false when absent or not a property.
  public func has(_ property: String) -> Bool {
    guard let index = object.type.propertyIndex[property], index < object.slots.count else { return false }
    return object.slots[index].isPresent
  }

  /// The canonical value of `property`: nil when absent (or not a property), `.null` for null.
  public subscript(property: String) -> JSON? {
    guard let pointer = object.canonicalValue(property) else { return nil }
    defer { JValue.release(pointer) }
    return JSON(borrowing: pointer)
  }

  /// Merges `other` into this model by each property's `merge` policy
  /// (replace, keep, merge, append, union, max, min, or a registered merger).
  /// `other` must be of this model or one related by `extends`. All or
  /// nothing: on error this model is unchanged.
  public mutating func merge(_ other: Model) throws(StrataError) {
    makeUnique()
    try object.merge(other.object).get()
  }

  /// Updates this model from API JSON: the keys present are mapped, validated
  /// and merged by policy; keys not present are untouched; null clears. All or
  /// nothing: on error this model is unchanged and every error is thrown.
  public mutating func update(from json: JSON) throws(StrataError) {
    guard let pointer = json.makeJansson() else {
      throw StrataError(code: .type, message: "the input holds a value JSON cannot represent")
    }
    defer { JValue.release(pointer) }
    makeUnique()
    try object.update(pointer).get()
  }

  /// Gives this value its own storage before a change (copy on write).
  private mutating func makeUnique() {
    if !isKnownUniquelyReferenced(&object) { object = object.copy() }
  }

  /// The instant a `date` property holds: nil when absent or null, or when
  /// `property` is not a date property of the model.
  public func timestamp(_ property: String) -> Timestamp? {
    guard case .success(let value?) = object.dateValue(property) else { return nil }
    return Timestamp(seconds: value.seconds, nanoseconds: value.nanoseconds)
  }

  /// The canonical dictionary: property name -> canonical value, absent left out.
  public var dictionary: JSON {
    guard let pointer = Serializer.dictionary(object) else { return .object(JSONObject()) }
    defer { JValue.release(pointer) }
    return JSON(borrowing: pointer)
  }

  /// The model serialized back to JSON (JSON keys, key paths, enum values and
  /// transformers reversed). Throws the `format` errors of reverse transformers
  /// that could not write a value.
  public var json: JSON {
    get throws(StrataError) {
      let pointer = try Serializer.serialize(object).get()
      defer { JValue.release(pointer) }
      return JSON(borrowing: pointer)
    }
  }

  /// Equal when of the same model with equal values (absent differs from null).
  public static func == (lhs: Model, rhs: Model) -> Bool { Equality.equal(lhs.object, rhs.object) }

  /// Hashes the values, consistent with `==`.
  public func hash(into hasher: inout Hasher) { hasher.combine(Equality.hash(object)) }

  /// `Name{"property":value,...}` from the canonical dictionary.
  public var description: String { "\(name)\(dictionary)" }
}

extension ModelObject {
  /// The canonical value of a property (a new reference), nil when absent or unknown.
  package func canonicalValue(_ property: String) -> JPtr? {
    guard let index = type.propertyIndex[property], index < slots.count else { return nil }
    return Serializer.canonical(slots[index])
  }
}

extension ModelObject {
  /// The model's name.
  package var name: String { type.name }

  /// " (did you mean 'X'?)" naming the property nearest to `property`, or "".
  package func propertyHint(_ property: String) -> String {
    Suggestion.hint(for: property, among: type.properties.map(\.name))
  }

  /// 1 when `property` holds a value or null, 0 when absent, nil when no such property.
  package func state(_ property: String) -> Int? {
    guard let index = type.propertyIndex[property], index < slots.count else { return nil }
    return slots[index].isPresent ? 1 : 0
  }

  /// The canonical dictionary (a new reference); with `archive`, kept unknown
  /// keys ride along as `"$unknown"`.
  package func dictionary(archive: Bool = false) -> JPtr? { Serializer.dictionary(self, archive: archive) }

  /// The serialized JSON (a new reference), or the errors of reverse transformers.
  package func serialized() -> Result<JPtr, StrataError> { Serializer.serialize(self) }

  /// Equality over canonical values.
  package func isEqual(to other: ModelObject) -> Bool { Equality.equal(self, other) }

  /// A stable 64-bit hash consistent with `isEqual`.
  package var hash64: UInt64 { Equality.hash(self) }
}

extension Schema {
  /// The C name of the model at `index`, borrowed from the schema, or nil.
  package func modelCName(_ index: Int) -> UnsafeMutablePointer<CChar>? {
    index >= 0 && index < models.count ? models[index].cName : nil
  }
}

/// An instant: seconds since 1970-01-01T00:00:00Z and nanoseconds within the second.
public struct Timestamp: Sendable, Hashable, Comparable {
  /// Seconds since 1970-01-01T00:00:00Z (negative before).
  public let seconds: Int64
  /// Nanoseconds, 0 to 999 999 999.
  public let nanoseconds: Int32

  /// An instant from its parts.
  public init(seconds: Int64, nanoseconds: Int32 = 0) {
    self.seconds = seconds
    self.nanoseconds = nanoseconds
  }

  /// Earlier instants first.
  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
  }
}

extension ModelObject {
  /// The instant of a date property: nil when absent or null; an `argument`
  /// error when there is no such property or it is not a date property.
  package func dateValue(_ property: String) -> Result<(seconds: Int64, nanoseconds: Int32)?, StrataError> {
    guard let index = type.propertyIndex[property], index < slots.count else {
      return .failure(
        StrataError(
          code: .argument,
          message:
            "model '\(type.name)' has no property '\(property)'"
            + Suggestion.hint(for: property, among: type.properties.map(\.name))))
    }
    guard case .date = type.properties[index].type.unwrapped else {
      return .failure(
        StrataError(code: .argument, message: "property '\(property)' of '\(type.name)' is not a date"))
    }
    guard let date = slots[index].withStringBytes({ ISO8601DateParser.parse($0) }) else {
      return .success(nil)
    }
    return .success(date.map { ($0.seconds, $0.nanoseconds) })
  }
}
