/// URL references as RFC 3986 reads them: a next-page link resolved
/// against the URL of the page that gave it, and a query parameter set.
package struct URLReference: Equatable {
  /// The scheme (`https`), nil for a relative reference.
  var scheme: String?
  /// The authority (`user@host:port`), nil when there is no `//`.
  var authority: String?
  /// The path, possibly empty.
  var path: String
  /// The query, without its `?`; nil when there is no `?`.
  var query: String?
  /// The fragment, without its `#`; nil when there is no `#`.
  var fragment: String?

  /// The parts of `text` (RFC 3986, appendix B).
  package init(_ text: String) {
    var rest = Substring(text)
    scheme = nil
    if let colon = rest.firstIndex(of: ":"), let first = rest.first, first.isASCII, first.isLetter,
      rest[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
    {
      scheme = String(rest[..<colon])
      rest = rest[rest.index(after: colon)...]
    }
    if let hash = rest.firstIndex(of: "#") {
      fragment = String(rest[rest.index(after: hash)...])
      rest = rest[..<hash]
    } else {
      fragment = nil
    }
    if let question = rest.firstIndex(of: "?") {
      query = String(rest[rest.index(after: question)...])
      rest = rest[..<question]
    } else {
      query = nil
    }
    if rest.hasPrefix("//") {
      let afterSlashes = rest.dropFirst(2)
      let end = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
      authority = String(afterSlashes[..<end])
      rest = afterSlashes[end...]
    } else {
      authority = nil
    }
    path = String(rest)
  }

  /// The reference written out.
  package var text: String {
    var out = ""
    if let scheme { out += scheme + ":" }
    if let authority { out += "//" + authority }
    out += path
    if let query { out += "?" + query }
    if let fragment { out += "#" + fragment }
    return out
  }

  /// `reference` resolved against `base` (RFC 3986, section 5.2): an
  /// absolute URL as it is, `/path`, `?query`, `page2` and `../x` in the
  /// base's place.
  package static func resolve(_ reference: String, against base: String) -> String {
    let relative = URLReference(reference)
    if relative.scheme != nil {
      var target = relative
      target.path = removingDotSegments(relative.path)
      return target.text
    }
    let from = URLReference(base)
    var target = relative
    target.scheme = from.scheme
    if relative.authority != nil {
      target.path = removingDotSegments(relative.path)
      return target.text
    }
    target.authority = from.authority
    if relative.path.isEmpty {
      target.path = from.path
      target.query = relative.query ?? from.query
    } else if relative.path.hasPrefix("/") {
      target.path = removingDotSegments(relative.path)
    } else {
      let merged: String
      if from.authority != nil && from.path.isEmpty {
        merged = "/" + relative.path
      } else if let slash = from.path.lastIndex(of: "/") {
        merged = String(from.path[...slash]) + relative.path
      } else {
        merged = relative.path
      }
      target.path = removingDotSegments(merged)
    }
    return target.text
  }

  /// `url` with the query parameter `name` set to `value` (percent-encoded):
  /// the first parameter of that name takes the value and the others of
  /// that name go; a URL without one gets it at the end of its query.
  package static func settingQuery(_ name: String, to value: String, in url: String) -> String {
    var parts = URLReference(url)
    let encodedName = percentEncoded(name)
    let item = encodedName + "=" + percentEncoded(value)
    var items: [String] = []
    var placed = false
    for existing in (parts.query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
      let key = existing.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
      if key == encodedName || key == name {
        if !placed { items.append(item) }
        placed = true
      } else {
        items.append(String(existing))
      }
    }
    if !placed { items.append(item) }
    parts.query = items.joined(separator: "&")
    return parts.text
  }

  /// `text` with every byte but RFC 3986's unreserved characters as `%XX`.
  static func percentEncoded(_ text: String) -> String {
    let digits = Array("0123456789ABCDEF")
    var out = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        out.append("%")
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 15)])
      }
    }
    return out
  }

  /// RFC 3986, section 5.2.4: `.` and `..` segments taken out of a path.
  static func removingDotSegments(_ path: String) -> String {
    var input = Substring(path)
    var output: [Substring] = []
    while !input.isEmpty {
      if input.hasPrefix("../") {
        input = input.dropFirst(3)
      } else if input.hasPrefix("./") {
        input = input.dropFirst(2)
      } else if input.hasPrefix("/./") {
        input = input.dropFirst(2)
      } else if input == "/." {
        input = "/"
      } else if input.hasPrefix("/../") {
        input = input.dropFirst(3)
        if !output.isEmpty { output.removeLast() }
      } else if input == "/.." {
        input = "/"
        if !output.isEmpty { output.removeLast() }
      } else if input == "." || input == ".." {
        input = ""
      } else {
        // the first segment, with its leading "/", up to the next "/"
        let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
        let end = input[start...].firstIndex(of: "/") ?? input.endIndex
        output.append(input[..<end])
        input = input[end...]
      }
    }
    return output.joined()
  }
}
