/// How a pattern writes a UTC offset. Input is lenient: every style reads
/// `Z`, `z`, `±hh`, `±hhmm` and `±hh:mm`.
struct DateOffsetStyle: Sendable, Hashable {
  /// `+hh:mm` rather than `+hhmm`.
  var separator: Bool
  /// Only `+hh` when the minutes are zero (`X`, `x`).
  var optionalMinutes: Bool
  /// `Z` for a zero offset.
  var zForZero: Bool
}
