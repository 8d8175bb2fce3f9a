/// Why a date format name or pattern could not be compiled; the message
/// names the offending letter or quote.
struct DatePatternError: Error, Sendable, Hashable, CustomStringConvertible {
  /// One line for a person: `unknown letter 'Q' in date pattern 'yyyy-QQ'`.
  var message: String

  /// An error with `message`.
  init(_ message: String) {
    self.message = message
  }

  /// The message.
  var description: String { message }
}
