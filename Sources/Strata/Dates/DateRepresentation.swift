/// A date as JSON carries it in some format: text, or a Unix number.
enum DateRepresentation: Sendable, Equatable {
  /// A string (`iso8601`, patterns).
  case text(String)
  /// A JSON integer (`unix`, `unix-ms` when exact).
  case integer(Int64)
  /// A JSON real (`unix`, `unix-ms` with a fraction).
  case real(Double)
}
