/// RFC 6901 JSON Pointer helpers.
package enum JSONPointer {
  /// Escapes one reference token: `~` as `~0`, `/` as `~1`.
  package static func escape(_ token: String) -> String {
    guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
      return token
    }
    var out = ""
    for character in token {
      switch character {
      case "~": out += "~0"
      case "/": out += "~1"
      default: out.append(character)
      }
    }
    return out
  }

  /// A pointer from its unescaped tokens.
  static func make(_ tokens: [String]) -> String {
    var out = ""
    for token in tokens {
      out += "/"
      out += escape(token)
    }
    return out
  }

  /// The unescaped tokens of a pointer, or nil if it is malformed
  /// (not starting with `/`, or a `~` not followed by `0` or `1`).
  static func parse(_ pointer: String) -> [String]? {
    guard pointer.hasPrefix("/") else { return nil }
    var tokens: [String] = []
    for raw in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
      var token = ""
      var tilde = false
      for character in raw {
        if tilde {
          switch character {
          case "0": token.append("~")
          case "1": token.append("/")
          default: return nil
          }
          tilde = false
        } else if character == "~" {
          tilde = true
        } else {
          token.append(character)
        }
      }
      if tilde { return nil }
      tokens.append(token)
    }
    return tokens
  }
}
