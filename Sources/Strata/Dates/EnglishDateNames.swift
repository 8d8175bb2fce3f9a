/// The English names date patterns read and write (`MMM`, `MMMM`, `EEE`,
/// `EEEE`, `a`), as UTF-8 bytes. Input matches them without regard to case.
enum EnglishDateNames {
  /// `Jan` ... `Dec`, January first.
  static let shortMonths = bytes([
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ])
  /// `January` ... `December`.
  static let months = bytes([
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
  ])
  /// `Mon` ... `Sun`, Monday first (the order of `CivilCalendar.weekday`).
  static let shortWeekdays = bytes(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
  /// `Monday` ... `Sunday`.
  static let weekdays = bytes(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"])
  /// `AM`, `PM`.
  static let dayPeriods = bytes(["AM", "PM"])

  /// The UTF-8 bytes of each name.
  private static func bytes(_ names: [String]) -> [[UInt8]] {
    names.map { Array($0.utf8) }
  }

  /// The name at `index` of `names`, or no bytes when out of range.
  static func name(_ names: [[UInt8]], at index: Int64) -> [UInt8] {
    guard index >= 0, index < Int64(names.count) else { return [] }
    return names[Int(index)]
  }
}
