import Foundation
import Strata
import StrataGraph
import Testing

/// Fetching pages through the Swift face (`Context.fetch`, an
/// `AsyncSequence`) with a client of the test's own: canned pages with next
/// links, ETags and a 304. FetchServerTests fetch from a real HTTP server,
/// the test API every face's fetch tests share (Tests/http/fetch_api.py).
struct FetchTests {
  static let schema: JSON = [
    "strata": 1,
    "models": [
      "Tweet": [
        "primaryKey": "id", "root": "statuses", "paging": ["next": "search_metadata.next_results"],
        "properties": ["id": ["type": "int"], "text": ["type": "string"]],
      ]
    ],
  ]

  /// A server of three pages at https://api.test/search, each with an ETag;
  /// it answers 304 to a request that sends the page's ETag back.
  final class Server: Sendable {
    let requests = Requests()

    func respond(_ request: FetchRequest) -> FetchResponse {
      requests.append(request)
      let page = request.url.hasSuffix("page=3") ? 3 : request.url.hasSuffix("page=2") ? 2 : 1
      let etag = "\"v\(page)\""
      if request.headers.contains(FetchHeader("If-None-Match", etag)) {
        return FetchResponse(status: 304, headers: [FetchHeader("ETag", etag)], body: [])
      }
      let next = page < 3 ? "\"?page=\(page + 1)\"" : "null"
      let ids = (1...2).map { (page - 1) * 2 + $0 }
      let statuses = ids.map { #"{"id": \#($0), "text": "t\#($0)"}"# }.joined(separator: ",")
      let body = #"{"statuses": [\#(statuses)], "search_metadata": {"next_results": \#(next)}}"#
      return FetchResponse(status: 200, headers: [FetchHeader("ETag", etag)], body: Array(body.utf8))
    }
  }

  /// The requests a server saw.
  final class Requests: @unchecked Sendable {
    private var seen: [FetchRequest] = []
    private let lock = NSLock()
    func append(_ request: FetchRequest) { lock.withLock { seen.append(request) } }
    var all: [FetchRequest] { lock.withLock { seen } }
  }

  @Test func pagesFollowTheNextLinksAndAnUnchangedPageIsNotImportedAgain() async throws {
    let context = try Context(schema: Schema(Self.schema))
    let server = Server()
    var pages: [Page] = []
    for try await page in context.fetch(
      "Tweet", from: "https://api.test/search", client: { server.respond($0) })
    {
      pages.append(page)
    }
    #expect(
      pages.map(\.url) == [
        "https://api.test/search", "https://api.test/search?page=2", "https://api.test/search?page=3",
      ])
    #expect(pages.map(\.next) == ["https://api.test/search?page=2", "https://api.test/search?page=3", nil])
    #expect(pages.map { $0.records.map(\.key) } == [[1, 2], [3, 4], [5, 6]])
    #expect(pages.map { $0.result?.created ?? [:] } == [["Tweet": 2], ["Tweet": 2], ["Tweet": 2]])
    // again: the ETags go back, every page is a 304 with the records of last time
    var again: [Page] = []
    for try await page in context.fetch(
      "Tweet", from: "https://api.test/search", pages: 2, client: { server.respond($0) })
    {
      again.append(page)
    }
    #expect(again.map(\.status) == [304, 304] && again.allSatisfy(\.cached))
    #expect(again.map { $0.records.map(\.key) } == [[1, 2], [3, 4]])
    #expect(
      server.requests.all.suffix(2).map(\.headers) == [
        [FetchHeader("If-None-Match", "\"v1\"")], [FetchHeader("If-None-Match", "\"v2\"")],
      ])
    // page 0 from the graph, before any request
    let before = server.requests.all.count
    var iterator = context.fetch(
      "Tweet", from: "https://api.test/search", fetchFirst: ["where": ["id": [">": 4]], "order_by": ["-id"]],
      client: { server.respond($0) }
    ).makeAsyncIterator()
    let zero = try await iterator.next()
    #expect(
      zero?.records.map(\.key) == [6, 5] && zero?.cached == true && server.requests.all.count == before)
    try context.check()
  }

  @Test func aStatusOtherThan2xxIsAnHTTPErrorAndAClientErrorIsThrownAsItIs() async throws {
    let context = try Context(schema: Schema(Self.schema))
    do {
      for try await _ in context.fetch(
        "Tweet", from: "https://api.test/down",
        client: { _ in FetchResponse(status: 503, body: Array("try later".utf8)) })
      {}
      Issue.record("no error")
    } catch let error as StrataError {
      #expect(error.errors.first?.code == .http)
      #expect(error.errors.first?.message == "https://api.test/down answered HTTP 503: try later")
    }
    struct Offline: Error {}
    await #expect(throws: Offline.self) {
      for try await _ in context.fetch("Tweet", from: "https://api.test/", client: { _ in throw Offline() }) {
      }
    }
    #expect(try context.count("Tweet") == 0)
  }
}
