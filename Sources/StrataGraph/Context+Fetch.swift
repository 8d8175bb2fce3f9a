import Strata

/// A GET the fetch asks the host's client to make (docs/graph.md,
/// "Fetching pages"): the URL, and the headers to send (`If-None-Match`
/// and `If-Modified-Since` when the graph keeps the page of last time).
public struct FetchRequest: Sendable {
  /// The URL to get.
  public let url: String
  /// The headers to send, as name and value, in order.
  public let headers: [FetchHeader]
}

/// One HTTP header.
public struct FetchHeader: Sendable, Hashable {
  /// The header's name.
  public let name: String
  /// The header's value.
  public let value: String

  /// A header from its name and value.
  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}

/// What the host's client got: the status, the headers and the body's bytes.
public struct FetchResponse: Sendable {
  /// The HTTP status.
  public let status: Int
  /// The response's headers, in order (a name may repeat).
  public let headers: [FetchHeader]
  /// The body.
  public let body: [UInt8]

  /// A response from its parts.
  public init(status: Int, headers: [FetchHeader] = [], body: [UInt8]) {
    self.status = status
    self.headers = headers
    self.body = body
  }
}

/// One page of a fetch: its records and what its import did.
public struct Page: Sendable {
  /// The page's records, in order.
  public let records: [Record]
  /// The URL the page came from (nil for page 0 of `fetchFirst`).
  public let url: String?
  /// The HTTP status (nil for page 0 of `fetchFirst`).
  public let status: Int?
  /// The next page's URL (the model's `paging`), or nil after the last page.
  public let next: String?
  /// True when the page was not imported again: a 304, the body of last
  /// time, or page 0 of `fetchFirst`.
  public let cached: Bool
  /// What the import did (`ImportResult`); empty for a cached page.
  public let result: ImportResult?
}

extension Context {
  /// The headers to send with a GET of `url`: the validators of the page of
  /// last time, when the graph keeps it.
  public func fetchHeaders(_ url: String) throws(StrataError) -> [FetchHeader] {
    try engine.fetchHeaders(url).get().map { FetchHeader($0.name, $0.value) }
  }

  /// Takes the response to a GET of `url` for records of `model`: imports
  /// a 2xx body, answers a 304 or an unchanged body with the records of
  /// last time (with `cache`), and says which page is next. A status other
  /// than 2xx is an `http` error; a body that is not JSON a `syntax` error;
  /// every message starts with the URL.
  public func fetchPage(
    _ model: String, url: String, response: FetchResponse, root: String? = nil, meta: ResponseMeta? = nil,
    cache: Bool = true
  ) throws(StrataError) -> Page {
    let page = try response.body.withUnsafeBufferPointer { (body) throws(StrataError) -> FetchedPage in
      try engine.fetchPage(
        model, url: url, status: response.status, headers: response.headers.map { ($0.name, $0.value) },
        body: body, request: ImportRequest(root: root, meta: meta), cache: cache
      ).get()
    }
    let imported = result(page.outcome)
    return Page(
      records: imported.records, url: url, status: response.status, next: page.next, cached: page.cached,
      result: page.cached ? nil : imported)
  }

  /// The pages of `model`'s records from `url` on, as an `AsyncSequence`:
  /// each page requested with `client` when the loop asks for it,
  /// imported, and followed by the next (the model's `paging`). It ends
  /// after the last page, after `pages` pages, or when the loop stops.
  /// `fetchFirst` (a query object, as `query(_:_:)` takes it) gives page 0
  /// from the graph before any request. An error of the client is thrown as
  /// it is; nothing of that page is imported.
  public func fetch(
    _ model: String, from url: String, pages: Int? = nil, fetchFirst: JSON? = nil, cache: Bool = true,
    client: @escaping @Sendable (FetchRequest) async throws -> FetchResponse
  ) -> FetchPages {
    FetchPages(
      context: self, model: model, url: url, pages: pages, fetchFirst: fetchFirst, cache: cache,
      client: client)
  }
}

/// The pages of `Context.fetch`.
public struct FetchPages: AsyncSequence, Sendable {
  /// A page.
  public typealias Element = Page

  let context: Context
  let model: String
  let url: String
  let pages: Int?
  let fetchFirst: JSON?
  let cache: Bool
  let client: @Sendable (FetchRequest) async throws -> FetchResponse

  /// The iterator: one request per page asked for.
  public struct AsyncIterator: AsyncIteratorProtocol {
    let pages: FetchPages
    var next: String?
    var done = 0
    var firstGiven = false

    /// The next page, or nil after the last.
    public mutating func next() async throws -> Page? {
      if !firstGiven {
        firstGiven = true
        if let query = pages.fetchFirst {
          let records = try pages.context.query(pages.model, query)
          return Page(records: records, url: nil, status: nil, next: next, cached: true, result: nil)
        }
      }
      guard let url = next, pages.pages.map({ done < $0 }) ?? true else { return nil }
      let headers = pages.cache ? try pages.context.fetchHeaders(url) : []
      let response = try await pages.client(FetchRequest(url: url, headers: headers))
      let page = try pages.context.fetchPage(pages.model, url: url, response: response, cache: pages.cache)
      done += 1
      next = page.next
      return page
    }
  }

  /// An iterator from the first page.
  public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pages: self, next: url) }
}
