/// A Unix time as JSON writes it: an integer when exact, else a real.
enum UnixNumber: Sendable, Equatable {
  /// A whole number of seconds or milliseconds.
  case integer(Int64)
  /// A number with a fraction.
  case real(Double)
}
