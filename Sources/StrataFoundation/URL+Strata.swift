import Foundation
import Strata

/// `URL` through the Codable bridge: a `url` property's canonical value, the
/// URL's string, rather than `URL`'s own `Codable` form (an object with a
/// `relative` key).
///
/// ```swift
/// import Strata
/// import StrataFoundation
///
/// struct GHUser: Decodable { var login: String; var htmlURL: URL? }
/// ```
extension URL: CanonicalValueConvertible {
  /// Reads the string of a URL; a string `URL(string:)` refuses, or another
  /// value, is a `format` error at the value's path.
  public init(canonicalValue: JSON) throws {
    guard case .string(let text) = canonicalValue else {
      throw CanonicalValueError("expected a URL string, found \(canonicalValue)")
    }
    guard let url = URL(string: text) else { throw CanonicalValueError("'\(text)' is not a URL") }
    self = url
  }

  /// The URL's absolute string.
  public func canonicalValue() throws -> JSON { .string(absoluteString) }
}
