import Foundation
import Strata
import StrataGraph
import Testing

/// The base URL of the test API (Tests/http/fetch_api.py), which scripts/test
/// serves while the suite runs; nil when no server was given.
let fetchAPI = ProcessInfo.processInfo.environment["STRATA_TEST_HTTP_URL"]
/// True when the suite must run against the test API (scripts/test sets it).
let fetchAPIRequired = ProcessInfo.processInfo.environment["STRATA_TEST_HTTP_REQUIRED"] != nil

/// Fetching pages through the Swift face against a real HTTP server: the
/// test API of every face's fetch tests (Tests/http/fetch_api.py), over
/// an HTTP/1.0 client of the test's own on a socket (the host's client in
/// an app: URLSession, AsyncHTTPClient).
@Suite(
  .enabled(
    if: fetchAPI != nil || fetchAPIRequired,
    "no test API to fetch from: run `python3 Tests/http/fetch_api.py swift test` (scripts/test does)"))
struct FetchServerTests {
  static let schema: JSON = [
    "strata": 1,
    "models": [
      "User": [
        "primaryKey": "id",
        "properties": [
          "id": ["type": "int"], "name": ["type": "string"],
          "tweets": ["type": "[Tweet]", "inverse": "user", "json": false],
        ],
      ],
      "Tweet": [
        "primaryKey": "id", "root": "statuses", "paging": ["next": "search_metadata.next_results"],
        "properties": [
          "id": ["type": "int"], "text": ["type": "string"], "user": ["type": "User?", "inverse": "tweets"],
        ],
      ],
      "LinkTweet": [
        "primaryKey": "id", "paging": ["next": "link"],
        "properties": ["id": ["type": "int"], "text": ["type": "string"]],
      ],
      "CursorTweet": [
        "primaryKey": "id", "root": "data", "paging": ["cursor": "meta.cursor", "param": "cursor"],
        "properties": ["id": ["type": "int"], "text": ["type": "string"]],
      ],
    ],
  ]

  /// The server's base URL (a failure when none was given but one is required).
  func base() throws -> String {
    guard let fetchAPI else {
      throw MissingServer("STRATA_TEST_HTTP_REQUIRED is set but STRATA_TEST_HTTP_URL is not")
    }
    return fetchAPI
  }

  /// Every page of `model` from `path`, as the ids of their records.
  func ids(_ context: Context, _ model: String, _ url: String, pages: Int? = nil) async throws -> [[Int]] {
    var got: [[Int]] = []
    for try await page in context.fetch(model, from: url, pages: pages, client: SocketClient.get) {
      got.append(page.records.compactMap { $0.key.intValue })
    }
    return got
  }

  @Test func pagesFollowNextLinksLinkHeadersAndCursors() async throws {
    let base = try base()
    let context = try Context(schema: Schema(Self.schema))
    let pages = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    #expect(try await ids(context, "Tweet", base + "/search") == pages)
    #expect(try await ids(context, "LinkTweet", base + "/links") == pages)
    #expect(try await ids(context, "CursorTweet", base + "/cursor") == pages)
    #expect(try await ids(context, "Tweet", base + "/search", pages: 2) == Array(pages.prefix(2)))
    // the records are in the graph, related
    #expect(try context.get("User", key: 1)?.related("tweets").map(\.key) == [1, 3, 5, 7, 9, 11])
    try context.check()
  }

  @Test func aPageTheServerAnswers304ForComesFromTheCache() async throws {
    let base = try base()
    let context = try Context(schema: Schema(Self.schema))
    _ = try await ids(context, "Tweet", base + "/search")
    var cached: [Bool] = []
    var records: [[Int]] = []
    for try await page in context.fetch("Tweet", from: base + "/search", client: SocketClient.get) {
      cached.append(page.cached)
      records.append(page.records.compactMap { $0.key.intValue })
      #expect(page.status == 304)
    }
    #expect(cached == [true, true, true])
    #expect(records == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
  }

  @Test func aServerErrorATruncatedBodyAndASlowPage() async throws {
    let base = try base()
    let context = try Context(schema: Schema(Self.schema))
    do {
      for try await _ in context.fetch("Tweet", from: base + "/error", client: SocketClient.get) {}
      Issue.record("a 500 gave no error")
    } catch let error as StrataError {
      #expect(error.errors.first?.code == .http)
      #expect(error.description.contains("500"))
      #expect(error.description.contains(base + "/error"))
      #expect(error.description.contains("boom"))
    }
    do {
      for try await _ in context.fetch("Tweet", from: base + "/truncated", client: SocketClient.get) {}
      Issue.record("a truncated body gave no error")
    } catch let error as StrataError {
      #expect(error.errors.first?.code == .syntax)
      #expect(error.description.contains(base + "/truncated"))
    }
    #expect(try context.count("Tweet") == 0)
    #expect(try await ids(context, "Tweet", base + "/slow") == [[1, 2, 3, 4]])
  }
}

extension JSON {
  /// The integer this value is, or nil.
  fileprivate var intValue: Int? {
    if case .int(let value) = self { return Int(value) }
    return nil
  }
}

/// An HTTP/1.0 GET over a socket to 127.0.0.1: enough of a client for the
/// test API, with a 10 s timeout on every read.
enum SocketClient {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  @Sendable static func get(_ request: FetchRequest) async throws -> FetchResponse {
    try fetch(request)
  }

  static func fetch(_ request: FetchRequest) throws -> FetchResponse {
    let prefix = "http://127.0.0.1:"
    guard request.url.hasPrefix(prefix) else {
      throw Failure(description: "not the test API: \(request.url)")
    }
    let rest = request.url.dropFirst(prefix.count)
    let port = UInt16(rest.prefix { $0.isNumber }) ?? 0
    var target = String(rest.drop { $0.isNumber })
    if target.isEmpty { target = "/" }

    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw Failure(description: "socket: \(errno)") }
    defer { close(socket) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw Failure(description: "connect to port \(port): \(errno)") }

    var head = "GET \(target) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n"
    for header in request.headers { head += "\(header.name): \(header.value)\r\n" }
    head += "\r\n"
    let bytes = Array(head.utf8)
    var sent = 0
    while sent < bytes.count {
      let wrote = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
      guard wrote > 0 else { throw Failure(description: "send: \(errno)") }
      sent += wrote
    }

    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let read = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
      guard read >= 0 else { throw Failure(description: "recv: \(errno)") }
      if read == 0 { break }
      answer += buffer[..<read]
    }
    return try parse(answer)
  }

  /// The status, headers and body of a whole HTTP/1.0 answer.
  static func parse(_ answer: [UInt8]) throws -> FetchResponse {
    let separator: [UInt8] = Array("\r\n\r\n".utf8)
    guard
      let end = (0...(max(answer.count - 4, 0))).first(where: {
        answer[$0..<min($0 + 4, answer.count)].elementsEqual(separator)
      })
    else { throw Failure(description: "no end of the headers") }
    let lines = String(decoding: answer[..<end], as: UTF8.self).split(separator: "\r\n")
    guard let statusLine = lines.first,
      let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
    else { throw Failure(description: "no status line") }
    var headers: [FetchHeader] = []
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers.append(
        FetchHeader(String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " })))
    }
    return FetchResponse(status: status, headers: headers, body: Array(answer[(end + 4)...]))
  }
}
