/// The numeric fields of a date pattern besides the year and fraction.
enum DatePatternField: Sendable, Hashable {
  /// `M`, `MM`: month 1-12.
  case month
  /// `d`, `dd`: day of the month.
  case day
  /// `H`, `HH`: hour 0-23.
  case hour24
  /// `h`, `hh`: hour 1-12, with `a`.
  case hour12
  /// `m`, `mm`: minute.
  case minute
  /// `s`, `ss`: second.
  case second
}
