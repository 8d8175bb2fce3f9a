/// What a property does to each scalar of its value on the way in (transform
/// chain, then enum mapping, then type check, then validation) and on the way
/// out (enum reversed, then the chain reversed).
package final class ValueRules: @unchecked Sendable {
  /// The `transform` chain, in order.
  var transforms: [Transformer] = []
  /// The `enum` mapping, or nil.
  var enumMap: EnumMap? = nil
  /// The `validate` rules, or nil.
  var validation: Validation? = nil
  /// For dates: the `format` of the JSON side.
  var dateFormat: DateFormat = .iso8601
  /// For dates: the `timezone` offset in seconds, for input without one and for pattern output.
  var timezone: Int = 0

  /// True when dates are written in another form than the canonical one.
  var rewritesDates: Bool { dateFormat != .iso8601 }

  /// True when output needs no reverse mapping.
  var passesThroughOnOutput: Bool { transforms.isEmpty && enumMap == nil && !rewritesDates }
}
