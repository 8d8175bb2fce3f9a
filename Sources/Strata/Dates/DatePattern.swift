/// A Unicode date pattern (`yyyy-MM-dd'T'HH:mm:ssZZZZZ`, the letters
/// NSDateFormatter users know), compiled once into tokens, then used to read
/// and write dates. English names only.
///
/// Letters: `y` `yyy` `yyyy` (year), `yy` (two-digit year, 00-49 -> 2000-2049,
/// 50-99 -> 1950-1999), `M` `MM` `MMM` `MMMM`, `d` `dd`, `H` `HH`, `h` `hh`
/// (1-12, needs `a`), `m` `mm`, `s` `ss`, `S`... (1-9 fraction digits), `a`,
/// `E` `EE` `EEE` `EEEE`, `Z` `ZZ` `ZZZ` (`+hhmm`), `ZZZZZ` (`+hh:mm`, `Z` for
/// zero), `X` `XX` `XXX` (ISO, `Z` for zero), `x` `xx` `xxx` (ISO, no `Z`).
/// Text in single quotes is literal, `''` is a quote, and every character
/// that is not an ASCII letter is literal. Any other letter, or a letter
/// repeated more than it allows, is a compile error. A pattern must have a
/// year, a month and a day.
struct DatePattern: Sendable, Hashable {
  /// The pattern as written.
  let source: String
  /// The compiled pattern, in order.
  let tokens: [DatePatternToken]
  /// An upper bound on the bytes `format` writes.
  let maximumFormattedLength: Int

  /// Compiles `pattern`; the error names the offending letter.
  static func compile(_ pattern: String) -> Result<DatePattern, DatePatternError> {
    let bytes = Array(pattern.utf8)
    var tokens: [DatePatternToken] = []
    var literal: [UInt8] = []
    var index = 0
    /// Ends the current literal run, as a token when it is not empty.
    func flushLiteral() {
      for start in stride(from: 0, to: literal.count, by: DateLiteral.capacity) {
        let end = min(start + DateLiteral.capacity, literal.count)
        tokens.append(.literal(DateLiteral(literal[start..<end])))
      }
      literal = []
    }
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "'") {
        if index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "'") {
          literal.append(byte)
          index += 2
          continue
        }
        index += 1
        var closed = false
        while index < bytes.count {
          if bytes[index] == UInt8(ascii: "'") {
            if index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "'") {
              literal.append(UInt8(ascii: "'"))
              index += 2
              continue
            }
            closed = true
            index += 1
            break
          }
          literal.append(bytes[index])
          index += 1
        }
        guard closed else {
          return .failure(DatePatternError("unterminated quote in date pattern '\(pattern)'"))
        }
      } else if isLetter(byte) {
        var count = 1
        while index + count < bytes.count && bytes[index + count] == byte { count += 1 }
        switch token(letter: byte, count: count) {
        case .success(let token):
          flushLiteral()
          tokens.append(token)
        case .failure(let error):
          return .failure(DatePatternError("\(error.message) in date pattern '\(pattern)'"))
        }
        index += count
      } else {
        literal.append(byte)
        index += 1
      }
    }
    flushLiteral()
    if let missing = missingField(tokens) {
      return .failure(DatePatternError("date pattern '\(pattern)' has no \(missing)"))
    }
    return .success(DatePattern(source: pattern, tokens: tokens))
  }

  /// A pattern of `tokens`, written as `source`.
  private init(source: String, tokens: [DatePatternToken]) {
    self.source = source
    self.tokens = tokens
    var length = 0
    for token in tokens {
      if case .literal(let bytes) = token {
        length += bytes.count
      } else {
        length += 24
      }
    }
    maximumFormattedLength = length
  }

  /// The token for `letter` repeated `count` times, or what is wrong with it.
  private static func token(letter: UInt8, count: Int) -> Result<DatePatternToken, DatePatternError> {
    let name = String(decoding: [letter], as: UTF8.self)
    let tooMany = DatePatternError("the letter '\(name)' cannot repeat \(count) times")
    switch letter {
    case UInt8(ascii: "y"):
      switch count {
      case 2: return .success(.twoDigitYear)
      case 1, 3, 4: return .success(.year(minimumDigits: count))
      default: return .failure(tooMany)
      }
    case UInt8(ascii: "M"):
      switch count {
      case 1, 2: return .success(.number(.month, digits: count))
      case 3, 4: return .success(.monthName(full: count == 4))
      default: return .failure(tooMany)
      }
    case UInt8(ascii: "d"), UInt8(ascii: "H"), UInt8(ascii: "h"), UInt8(ascii: "m"), UInt8(ascii: "s"):
      guard count <= 2 else { return .failure(tooMany) }
      let field: DatePatternField
      switch letter {
      case UInt8(ascii: "d"): field = .day
      case UInt8(ascii: "H"): field = .hour24
      case UInt8(ascii: "h"): field = .hour12
      case UInt8(ascii: "m"): field = .minute
      default: field = .second
      }
      return .success(.number(field, digits: count))
    case UInt8(ascii: "S"):
      guard count <= 9 else { return .failure(tooMany) }
      return .success(.fraction(digits: count))
    case UInt8(ascii: "a"):
      guard count <= 3 else { return .failure(tooMany) }
      return .success(.dayPeriod)
    case UInt8(ascii: "E"):
      guard count <= 4 else { return .failure(tooMany) }
      return .success(.weekdayName(full: count == 4))
    case UInt8(ascii: "Z"):
      switch count {
      case 1...3:
        return .success(.offset(DateOffsetStyle(separator: false, optionalMinutes: false, zForZero: false)))
      case 5:
        return .success(.offset(DateOffsetStyle(separator: true, optionalMinutes: false, zForZero: true)))
      case 4:
        return .failure(
          DatePatternError(
            "the letter 'Z' repeated 4 times (localized GMT) is not supported; use ZZZZZ or XXX"))
      default: return .failure(tooMany)
      }
    case UInt8(ascii: "X"), UInt8(ascii: "x"):
      guard count <= 3 else { return .failure(tooMany) }
      let style = DateOffsetStyle(
        separator: count == 3, optionalMinutes: count == 1, zForZero: letter == UInt8(ascii: "X"))
      return .success(.offset(style))
    case UInt8(ascii: "Y"):
      return .failure(DatePatternError("unsupported letter 'Y' (week-based year; use 'y' for the year)"))
    case UInt8(ascii: "D"):
      return .failure(DatePatternError("unsupported letter 'D' (day of the year; use 'd' for the day)"))
    default:
      return .failure(
        DatePatternError("unknown letter '\(name)' (put literal text in quotes: '\(name)')"))
    }
  }

  /// What a pattern must have but `tokens` lack (year, month, day, `a` for
  /// `h`), or nil.
  private static func missingField(_ tokens: [DatePatternToken]) -> String? {
    var year = false
    var month = false
    var day = false
    var hour12 = false
    var dayPeriod = false
    for token in tokens {
      switch token {
      case .year, .twoDigitYear: year = true
      case .number(.month, _), .monthName: month = true
      case .number(.day, _): day = true
      case .number(.hour12, _): hour12 = true
      case .dayPeriod: dayPeriod = true
      default: break
      }
    }
    if !year { return "year ('y')" }
    if !month { return "month ('M')" }
    if !day { return "day ('d')" }
    if hour12 && !dayPeriod { return "AM/PM ('a') for its 12-hour 'h'" }
    return nil
  }

  /// True for an ASCII letter, the characters that are pattern letters.
  private static func isLetter(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
      || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
  }
}
