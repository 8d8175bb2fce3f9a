import CJansson
import Strata

/// One page of a fetch (`GraphContext.fetchPage`).
package struct FetchedPage {
  /// The import's outcome; for a page found unchanged, the records it gave
  /// last time (those still in the graph) and no counts.
  package let outcome: ImportOutcome
  /// The next page's URL (the model's `paging`), or nil for the last page.
  package let next: String?
  /// True when the page was not imported again: the server answered 304
  /// Not Modified, or sent the body of last time.
  package let cached: Bool
}

/// Fetching pages (docs/graph.md, "Fetching pages"): the host makes each
/// HTTP request with its own client; the context tells it what to send
/// (`fetchHeaders`) and takes what came back (`fetchPage`): it imports the
/// page, says which page is next, and keeps what it needs to answer the
/// same page again without importing it.
extension GraphContext {
  /// The headers to send with a request of `url`: `If-None-Match` and
  /// `If-Modified-Since` with the validators of the page of last time, when
  /// the graph keeps one; none otherwise.
  package func fetchHeaders(_ url: String) -> Result<[(name: String, value: String)], StrataError> {
    locked { () -> Result<[(name: String, value: String)], StrataError> in
      do throws(StrataError) {
        guard let entry = try keptPage(url) else { return .success([]) }
        var headers: [(name: String, value: String)] = []
        if let etag = entry.etag { headers.append(("If-None-Match", etag)) }
        if let modified = entry.modified { headers.append(("If-Modified-Since", modified)) }
        return .success(headers)
      } catch {
        return .failure(error)
      }
    }
  }

  /// Takes the response to a request of `url` for records of `model`: a
  /// 2xx status's body is imported (as `importBytes`), unless `cache` and
  /// it is the body of last time; a 304 answers with the records of last
  /// time; any other status is an `http` error naming the status, the URL
  /// and the body's first bytes. The page's errors name the URL. With
  /// `cache`, the page's validators (`ETag`, `Last-Modified`), a digest of
  /// its body, its next page and its records' keys are kept for the next
  /// request of the URL.
  package func fetchPage(
    _ model: String, url: String, status: Int, headers: [(name: String, value: String)],
    body: UnsafeBufferPointer<UInt8>, request: ImportRequest, cache: Bool
  ) -> Result<FetchedPage, StrataError> {
    let type: ModelType
    switch locked({ recordType(model) }) {
    case .failure(let error): return .failure(error)
    case .success(let found): type = found
    }
    if status == 304 {
      switch keptPageLocked(url) {
      case .failure(let error): return .failure(error)
      case .success(let entry?) where entry.model == model && cache: return pageOfLastTime(entry, model)
      case .success:
        return .failure(
          StrataError(
            code: .http,
            message:
              "\(url) answered 304 Not Modified, but the graph keeps no page of it for '\(model)' to answer with"
          ))
      }
    }
    guard (200..<300).contains(status) else {
      let start = String(decoding: body.prefix(200), as: UTF8.self)
      return .failure(
        StrataError(
          code: .http, message: "\(url) answered HTTP \(status)" + (start.isEmpty ? "" : ": \(start)")))
    }
    let digest = FetchCache.digest(body)
    if cache {
      switch keptPageLocked(url) {
      case .failure(let error): return .failure(error)
      case .success(let entry?) where entry.model == model && entry.digest == digest:
        return pageOfLastTime(entry, model)
      case .success: break
      }
    }
    let outcome: ImportOutcome
    switch importBytes(model, body, request) {
    case .failure(let error): return .failure(Self.naming(url, error))
    case .success(let made): outcome = made
    }
    let next: String?
    switch nextPage(type, url: url, headers: headers, body: body) {
    case .failure(let error): return .failure(Self.naming(url, error))
    case .success(let found): next = found
    }
    if cache {
      let entry = FetchCache.Entry(
        model: model, etag: Self.header("ETag", in: headers),
        modified: Self.header("Last-Modified", in: headers),
        digest: digest, next: next, keys: Self.keysText(outcome.records))
      let kept = changingLocked { () -> Result<Void, StrataError> in
        guard let store else {
          fetchedPages[url] = entry
          return .success(())
        }
        do throws(StrataError) {
          try FetchCache.keep(entry, for: url, in: store)
          return .success(())
        } catch {
          return .failure(error)
        }
      }
      if case .failure(let error) = kept { return .failure(error) }
    }
    return .success(FetchedPage(outcome: outcome, next: next, cached: false))
  }

  /// The page of `url` the graph keeps, under the lock.
  private func keptPageLocked(_ url: String) -> Result<FetchCache.Entry?, StrataError> {
    locked { () -> Result<FetchCache.Entry?, StrataError> in
      do throws(StrataError) {
        return .success(try keptPage(url))
      } catch {
        return .failure(error)
      }
    }
  }

  /// The page of `url` the graph keeps (the caller holds the lock).
  private func keptPage(_ url: String) throws(StrataError) -> FetchCache.Entry? {
    if let store { return try FetchCache.entry(url, in: store) }
    return fetchedPages[url]
  }

  /// The page of last time: the records it gave that the graph still holds.
  private func pageOfLastTime(_ entry: FetchCache.Entry, _ model: String) -> Result<FetchedPage, StrataError>
  {
    var records: [ModelObject] = []
    guard case .success(let keys) = JSONText.parse(entry.keys) else {
      return .failure(
        StrataError(code: .io, message: "the graph's fetch cache is damaged: keys \(entry.keys)"))
    }
    defer { JValue.release(keys) }
    for position in 0..<json_array_size(keys) {
      guard let key = json_array_get(keys, position) else { continue }
      switch record(model, key: key) {
      case .failure(let error): return .failure(error)
      case .success(let found?): records.append(found)
      case .success(nil): continue  // deleted since
      }
    }
    let outcome = ImportOutcome(
      records: records, created: [], updated: [], unchanged: [], deleted: [], warnings: [], metadata: nil)
    return .success(FetchedPage(outcome: outcome, next: entry.next, cached: true))
  }

  /// The next page after `url`, as the model's `paging` reads it from the
  /// response (its headers, or its body, parsed again for it).
  private func nextPage(
    _ type: ModelType, url: String, headers: [(name: String, value: String)], body: UnsafeBufferPointer<UInt8>
  ) -> Result<String?, StrataError> {
    guard let spec = type.response.paging else { return .success(nil) }
    if case .link = spec { return Paging.next(spec, url: url, response: nil, headers: headers) }
    guard let base = body.baseAddress, let response = json_loadb(base, body.count, 0, nil) else {
      return .success(nil)
    }
    defer { JValue.release(response) }
    return Paging.next(spec, url: url, response: response, headers: headers)
  }

  /// The first value of the header `name` (compared without case), or nil.
  static func header(_ name: String, in headers: [(name: String, value: String)]) -> String? {
    let wanted = name.lowercased()
    return headers.first(where: { $0.name.lowercased() == wanted })?.value
  }

  /// The keys of `records` as JSON text (an array).
  static func keysText(_ records: [ModelObject]) -> String {
    guard let array = json_array() else { return "[]" }
    defer { JValue.release(array) }
    for record in records {
      guard let key = record.recordKeyJSON else { continue }
      json_array_append_new(array, key)
    }
    return (try? CanonicalJSON.text(array, what: "the page's keys", sortKeys: false)) ?? "[]"
  }

  /// `error` with the URL at the start of each message.
  static func naming(_ url: String, _ error: StrataError) -> StrataError {
    StrataError(
      error.errors.map { detail in
        var named = detail
        named.message = "\(url): \(detail.message)"
        return named
      })
  }
}
