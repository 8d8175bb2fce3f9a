import CJansson

/// How a model's responses page (the model key `paging`; docs/responses.md,
/// "Paging"): where a response says what the next page is.
package enum PagingSpec: Sendable, Equatable {
  /// `{"next": LOCATION}`: the response holds the next page's URL there (a
  /// key path or JSON Pointer), absolute or relative to the request's URL;
  /// a missing, null or empty value: no next page.
  case next(ResponseLocation)
  /// `{"next": "link"}`: the next page is the `Link` header's `rel="next"`
  /// target (RFC 8288).
  case link
  /// `{"cursor": LOCATION, "param": NAME}`: the response holds a cursor
  /// there (a string or an integer); the next page is the request's URL
  /// with the query parameter NAME set to it.
  case cursor(ResponseLocation, param: String)

  package static func == (lhs: PagingSpec, rhs: PagingSpec) -> Bool {
    switch (lhs, rhs) {
    case (.next(let a), .next(let b)): return a.text == b.text
    case (.link, .link): return true
    case (.cursor(let a, let p), .cursor(let b, let q)): return a.text == b.text && p == q
    default: return false
    }
  }
}

/// The next page of a response.
package enum Paging {
  /// The URL of the page after the one `url` gave (`response` its parsed
  /// body, borrowed; `headers` its headers as name and value, in order):
  /// nil when the response says there is none. A value at the location that
  /// is neither a string nor an integer is an error naming the location.
  package static func next(
    _ spec: PagingSpec, url: String, response: JPtr?, headers: [(name: String, value: String)]
  ) -> Result<String?, StrataError> {
    switch spec {
    case .link:
      for (name, value) in headers where name.lowercased() == "link" {
        if let target = LinkHeader.target(value, rel: "next") {
          return .success(URLReference.resolve(target, against: url))
        }
      }
      return .success(nil)
    case .next(let location):
      switch value(at: location, in: response) {
      case .failure(let problem): return .failure(problem)
      case .success(nil): return .success(nil)
      case .success(let text?): return .success(URLReference.resolve(text, against: url))
      }
    case .cursor(let location, let param):
      switch value(at: location, in: response) {
      case .failure(let problem): return .failure(problem)
      case .success(nil): return .success(nil)
      case .success(let cursor?): return .success(URLReference.settingQuery(param, to: cursor, in: url))
      }
    }
  }

  /// The text at `location` (a string, or an integer's digits); nil when it
  /// is missing, null or empty.
  private static func value(at location: ResponseLocation, in response: JPtr?) -> Result<String?, StrataError>
  {
    guard let response else { return .success(nil) }
    switch ResponseLookup.find(location, in: response) {
    case .missing, .throughNull: return .success(nil)
    case .blocked(let count, let value):
      return .failure(
        StrataError([
          ErrorDetail(
            path: location.pointer(count), code: .path,
            message:
              "the paging location '\(location.text)' runs through \(JValue.typeName(value)), not an object")
        ]))
    case .found(let value):
      if JValue.isNull(value) { return .success(nil) }
      if JValue.isString(value) {
        let text = JValue.string(value)
        return .success(text.isEmpty ? nil : text)
      }
      if JValue.isInteger(value) { return .success(String(json_integer_value(value))) }
      return .failure(
        StrataError([
          ErrorDetail(
            path: location.pointer(location.keys.count), code: .type,
            message:
              "the next page at '\(location.text)' must be a string or an integer, not \(JValue.typeName(value))"
          )
        ]))
    }
  }
}

/// `Link` header values (RFC 8288): `<target>; rel="next"; ..., <...>; ...`.
package enum LinkHeader {
  /// The target of the first link of `value` whose `rel` (a space-separated
  /// list, compared without case) holds `rel`; nil when none does.
  package static func target(_ value: String, rel wanted: String) -> String? {
    var rest = Substring(value)
    while let open = rest.firstIndex(of: "<") {
      guard let close = rest[open...].firstIndex(of: ">") else { return nil }
      let target = rest[rest.index(after: open)..<close]
      // the parameters run to the next link (a comma outside quotes)
      var end = rest.index(after: close)
      var quoted = false
      while end < rest.endIndex {
        let character = rest[end]
        if character == "\"" { quoted.toggle() }
        if character == "," && !quoted { break }
        end = rest.index(after: end)
      }
      for parameter in rest[rest.index(after: close)..<end].split(separator: ";") {
        let parts = parameter.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, trimmed(parts[0]).lowercased() == "rel" else { continue }
        var rels = trimmed(parts[1])
        if rels.hasPrefix("\"") && rels.hasSuffix("\"") && rels.count >= 2 {
          rels = rels.dropFirst().dropLast()
        }
        if rels.split(separator: " ").contains(where: { $0.lowercased() == wanted.lowercased() }) {
          return String(target)
        }
      }
      rest = end < rest.endIndex ? rest[rest.index(after: end)...] : ""
    }
    return nil
  }

  private static func trimmed(_ text: Substring) -> Substring {
    var out = text
    while let first = out.first, first == " " || first == "\t" { out = out.dropFirst() }
    while let last = out.last, last == " " || last == "\t" { out = out.dropLast() }
    return out
  }
}
