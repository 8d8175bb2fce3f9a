import Foundation
import Strata

/// `Date` through the Codable bridge: a `date` property's canonical value,
/// an RFC 3339 UTC string, rather than `Date`'s own `Codable` form (a number
/// of seconds since 2001).
///
/// ```swift
/// import Strata
/// import StrataFoundation
///
/// struct GHIssue: Decodable { var number: Int; var createdAt: Date }
/// let issue = try schema.decode(GHIssue.self, from: json)
/// ```
extension Date: CanonicalValueConvertible {
  /// Reads an RFC 3339 or ISO 8601 string (see ``Strata/Timestamp/init(parsing:)``);
  /// anything else is a `format` error at the value's path.
  public init(canonicalValue: JSON) throws {
    guard case .string(let text) = canonicalValue else {
      throw CanonicalValueError("expected a date string, found \(canonicalValue)")
    }
    self.init(try Timestamp(parsing: text))
  }

  /// The canonical RFC 3339 UTC string (to the nanosecond `Date` holds).
  public func canonicalValue() throws -> JSON {
    guard let timestamp = Timestamp(self) else {
      throw CanonicalValueError("\(self) lies outside the years 0001-9999 that dates can hold")
    }
    return .string(timestamp.description)
  }

  /// The instant a ``Strata/Timestamp`` holds.
  public init(_ timestamp: Timestamp) {
    self.init(timeIntervalSince1970: Double(timestamp.seconds) + Double(timestamp.nanoseconds) / 1e9)
  }
}

extension Timestamp {
  /// The instant of a `Date`, to the nanosecond; nil for a date that is not
  /// finite or lies outside the years 0001-9999.
  public init?(_ date: Date) {
    let interval = date.timeIntervalSince1970
    guard interval.isFinite, interval >= -62_135_596_800, interval < 253_402_300_800 else { return nil }
    var seconds = interval.rounded(.down)
    var nanoseconds = ((interval - seconds) * 1e9).rounded()
    if nanoseconds >= 1e9 {
      seconds += 1
      nanoseconds = 0
    }
    self.init(seconds: Int64(seconds), nanoseconds: Int32(nanoseconds))
  }
}

extension Model {
  /// The instant a `date` property holds, as a `Date`: nil when absent or
  /// null, or when `property` is not a date property of the model.
  public func date(_ property: String) -> Date? {
    timestamp(property).map(Date.init)
  }
}
