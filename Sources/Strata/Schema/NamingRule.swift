/// The rule that turns a property name into its JSON key (`keys` of a model).
enum NamingRule: String, Sendable {
  case none
  case snakeCase = "snake_case"
  case camelCase = "camelCase"
  case kebabCase = "kebab-case"

  /// The JSON key for a property name.
  func key(for name: String) -> String {
    switch self {
    case .none: return name
    case .snakeCase: return Self.separated(name, by: "_")
    case .kebabCase: return Self.separated(name, by: "-")
    case .camelCase: return Self.camel(name)
    }
  }

  /// `createdAt` -> `created_at`, `htmlURL` -> `html_url`, `created_at` kept
  /// (with `-` as separator: `created-at`).
  private static func separated(_ name: String, by separator: Character) -> String {
    let characters = Array(name)
    var out = ""
    for (position, character) in characters.enumerated() {
      if character == "_" || character == "-" {
        out.append(separator)
        continue
      }
      if character.isUppercase {
        if position > 0 {
          let previous = characters[position - 1]
          let nextIsLower = position + 1 < characters.count && characters[position + 1].isLowercase
          if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
            out.append(separator)
          }
        }
        out += character.lowercased()
      } else {
        out.append(character)
      }
    }
    return out
  }

  /// `created_at` -> `createdAt`, `html-url` -> `htmlUrl`; names without separators kept.
  private static func camel(_ name: String) -> String {
    var out = ""
    var upperNext = false
    for character in name {
      if character == "_" || character == "-" {
        upperNext = !out.isEmpty
        continue
      }
      if upperNext {
        out += character.uppercased()
        upperNext = false
      } else {
        out.append(character)
      }
    }
    return out
  }
}
