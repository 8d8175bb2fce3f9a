import Dispatch
import Foundation
import Strata
import StrataGraph

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `strata fetch SCHEMA MODEL URL --db FILE [--pages N] [--no-cache]`: pages
/// of an API fetched with Foundation's URLSession into a graph (docs/graph.md,
/// "Fetching pages"). The engine makes no request: this command is a host
/// with a client, as a program in any face is.
enum FetchCommand {
  static let usage = Usage(
    name: "fetch",
    synopsis: "<schema> <model> <url> --db <file> [--pages <n>] [--no-cache]",
    arguments: [
      ("schema", "The schema file.", false),
      ("model", "The model of the records (its paging says where the next page is).", false),
      ("url", "The first page's URL.", false),
    ],
    flags: [("no-cache", "Send no validators, and import every page even when it did not change.")],
    options: [
      ("db", "file", "The SQLite graph file (created when missing), or a postgresql:// URL."),
      ("pages", "n", "At most n pages."),
    ],
    overview: """
      OVERVIEW: Fetch the pages of an API into a graph: each page requested (GET), its
      records imported (one transaction), then the next page (the model's "paging"),
      until the last page or --pages. One line per page: its URL, its status, how many
      records it gave and what the import did ("cached" for a page the server said did
      not change, or sent as it was last time).

      The exit status is 1 when a page fails (a status other than 2xx, a body that is
      not JSON, a request that fails): the pages before it stay imported.
      """)

  /// Runs the command; returns the exit status.
  static func run(_ parsed: Usage.Parsed) -> Int32 {
    guard let database = parsed.values["db"] else { Usage.fail("Missing --db <file>", usage: usage) }
    guard let schema = GraphFile.schema(parsed) else { return 1 }
    let model = parsed.positionals[1]
    let pages = GraphFile.wholeNumber("pages", parsed, usage: usage)
    let cache = !parsed.flags.contains("no-cache")
    guard let context = GraphFile.create(schema, database) else { return 1 }
    defer { context.close() }
    var url: String? = parsed.positionals[2]
    var done = 0
    while let current = url, pages.map({ done < $0 }) ?? true {
      do {
        let headers = cache ? try context.fetchHeaders(current) : []
        let response = try get(current, headers: headers)
        let page = try context.fetchPage(model, url: current, response: response, cache: cache)
        var line = "\(current): \(response.status), \(page.records.count) records"
        if page.cached {
          line += ", cached"
        } else if let result = page.result {
          line += ", created \(counts(result.created)), updated \(counts(result.updated))"
        }
        print(line)
        url = page.next
        done += 1
      } catch let error as StrataError {
        Output.errors(error, file: current)
        return 1
      } catch {
        Output.errors(StrataError(code: .io, message: "\(current): \(error)"), file: current)
        return 1
      }
    }
    return 0
  }

  /// `{"Tweet": 4}` as `Tweet 4` (models in name order), `nothing` for none.
  private static func counts(_ counts: [String: Int]) -> String {
    counts.isEmpty
      ? "nothing" : counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
  }

  /// The response to a GET of `url` with `headers` (any status), or the
  /// error of a request that failed.
  private static func get(_ url: String, headers: [FetchHeader]) throws -> FetchResponse {
    guard let address = URL(string: url) else {
      throw StrataError(code: .argument, message: "'\(url)' is not a URL")
    }
    var request = URLRequest(url: address, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 60)
    for header in headers { request.addValue(header.value, forHTTPHeaderField: header.name) }
    let box = ResponseBox()
    let done = DispatchSemaphore(value: 0)
    URLSession.shared.dataTask(with: request) { data, response, error in
      box.set(data: data, response: response, error: error)
      done.signal()
    }.resume()
    done.wait()
    return try box.result()
  }

  /// What a data task handed back, read on the waiting thread.
  private final class ResponseBox: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    private var response: URLResponse?
    private var error: Error?

    func set(data: Data?, response: URLResponse?, error: Error?) {
      lock.withLock {
        self.data = data
        self.response = response
        self.error = error
      }
    }

    func result() throws -> FetchResponse {
      try lock.withLock {
        if let error { throw error }
        guard let http = response as? HTTPURLResponse else {
          throw StrataError(code: .io, message: "no HTTP response")
        }
        let headers = http.allHeaderFields.compactMap { name, value -> FetchHeader? in
          guard let name = name as? String else { return nil }
          return FetchHeader(name, "\(value)")
        }
        return FetchResponse(status: http.statusCode, headers: headers, body: Array(data ?? Data()))
      }
    }
  }
}
