import Strata

/// A PostgreSQL graph's address: a libpq connection URI
/// (`postgresql://user:password@host:port/database?...`) with one member of
/// Strata's own, `schema=NAME`: the PostgreSQL schema (namespace) that holds
/// the graph's tables, created on first use. libpq reads the rest.
package struct PostgresURL: Sendable {
  /// The URL as given.
  package let text: String
  /// The URL libpq is given: `text` without `schema=`.
  package let connectionString: String
  /// The schema named by `schema=`, percent-decoded, or nil (libpq's
  /// `search_path`: usually `public`).
  package let schema: String?
  /// The URL as messages show it: a password replaced by `***`.
  package let shown: String

  /// True when `text` is a PostgreSQL URL (`postgresql://` or `postgres://`),
  /// not an SQLite file name.
  package static func isPostgres(_ text: String) -> Bool {
    text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
  }

  /// Reads `text`; an `argument` error when it is not a PostgreSQL URL or
  /// its `schema=` is empty or holds a NUL.
  package init(_ text: String) throws(StrataError) {
    self.text = text
    self.shown = Self.hidingPassword(text)
    guard Self.isPostgres(text), !text.utf8.contains(0) else {
      throw StrataError(
        code: .argument, message: "'\(shown)' is not a PostgreSQL URL (postgresql://user@host:port/database)")
    }
    guard let question = text.firstIndex(of: "?") else {
      connectionString = text
      schema = nil
      return
    }
    var kept: [Substring] = []
    var named: String? = nil
    for member in text[text.index(after: question)...].split(separator: "&", omittingEmptySubsequences: true)
    {
      if member.hasPrefix("schema=") {
        named = Self.percentDecoded(member.dropFirst("schema=".count))
      } else {
        kept.append(member)
      }
    }
    if let named {
      guard !named.isEmpty, !named.utf8.contains(0) else {
        throw StrataError(
          code: .argument, message: "the schema named in '\(shown)' must be a non-empty name without NUL")
      }
    }
    schema = named
    let base = String(text[..<question])
    connectionString = kept.isEmpty ? base : base + "?" + kept.joined(separator: "&")
  }

  /// The schema as an SQL identifier (double-quoted, quotes doubled).
  package var quotedSchema: String? {
    schema.map { "\"" + $0.replacingAll("\"", with: "\"\"") + "\"" }
  }

  /// `text` with the password of its user part replaced by `***`.
  static func hidingPassword(_ text: String) -> String {
    // after the scheme's "://" (the text starts with one: isPostgres)
    guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return text }
    let rest = text[text.index(colon, offsetBy: 3)...]
    let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
    guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
      let colon = rest[..<at].firstIndex(of: ":")
    else { return text }
    return String(text[..<rest.index(after: colon)]) + "***" + String(text[at...])
  }

  /// `%XX` sequences decoded (bytes that do not make UTF-8 are replaced).
  static func percentDecoded(_ text: Substring) -> String {
    var bytes: [UInt8] = []
    var index = text.utf8.startIndex
    let utf8 = text.utf8
    let hex = hexDigit
    while index != utf8.endIndex {
      let byte = utf8[index]
      let second = utf8.index(after: index)
      if byte == UInt8(ascii: "%"), second != utf8.endIndex, utf8.index(after: second) != utf8.endIndex,
        let high = hex(utf8[second]), let low = hex(utf8[utf8.index(after: second)])
      {
        bytes.append(high << 4 | low)
        index = utf8.index(second, offsetBy: 2)
      } else {
        bytes.append(byte)
        index = second
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension PostgresURL {
  /// The value of a hex digit (either case), or nil.
  static func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}

extension String {
  /// The string with every `target` replaced by `replacement`.
  fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
    var out = ""
    for character in self {
      if character == target { out += replacement } else { out.append(character) }
    }
    return out
  }
}
