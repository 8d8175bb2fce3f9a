/// Where a property's value lives in the input object.
package enum Location: Sendable {
  /// `json: false`: never read nor written.
  case none
  /// A key path (from dots or a JSON Pointer): the keys to follow.
  case path([Key])
  /// A list of key paths: the value is an object keyed by each path as written.
  case multi([MultiPath])
  /// `users[].name`: the array at `array`, and from each of its objects the value at `element`.
  case pluck(array: [Key], element: [Key])
}

/// One key path of a list-of-key-paths location.
package struct MultiPath: Sendable {
  /// The key path as the schema writes it (the key in the built object).
  let written: Key
  /// The keys to follow in the input.
  let keys: [Key]
}
