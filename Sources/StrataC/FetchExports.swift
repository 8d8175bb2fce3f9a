import CJansson
import Glibc
import Strata
import StrataGraph

// Fetching pages (docs/graph.md, "Fetching pages"): the host makes the HTTP
// requests; the context says what to send and takes what came back.

/// The headers to send with a request of `url`: a new reference to an array
/// of [name, value] pairs, or NULL with the errors.
@_cdecl("strata_context_fetch_headers")
public func strata_context_fetch_headers(
  _ context: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<json_t>? {
  deepCall { () -> UnsafeMutablePointer<json_t>? in
    guard let engine = Handles.context(context) else {
      ErrorReporting.fail(.argument, "the context is NULL", error)
      return nil
    }
    guard let url = Handles.string(url) else {
      ErrorReporting.fail(.argument, "the URL is NULL", error)
      return nil
    }
    return engine.fetchHeaders(url).toC(error, failed: nil) { headerArray($0) }
  }
}

/// Takes the response to a request of `url`: the page's records, as
/// strata_context_import_responseb() gives them, with "next" and "cached"
/// in the report.
@_cdecl("strata_context_fetch_page")
public func strata_context_fetch_page(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?, _ status: Int32,
  _ headers: UnsafeMutablePointer<json_t>?, _ body: UnsafePointer<CChar>?, _ length: Int,
  _ options: UnsafeMutablePointer<json_t>?, _ cache: Int32, _ count: UnsafeMutablePointer<Int>?,
  _ metadata: UnsafeMutablePointer<OpaquePointer?>?,
  _ report: UnsafeMutablePointer<UnsafeMutablePointer<json_t>?>?,
  _ error: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<OpaquePointer?>? {
  deepCall { () -> UnsafeMutablePointer<OpaquePointer?>? in
    count?.pointee = 0
    metadata?.pointee = nil
    report?.pointee = nil
    guard let engine = Handles.context(context) else {
      ErrorReporting.fail(.argument, "the context is NULL", error)
      return nil
    }
    guard let name = Handles.string(model), let address = Handles.string(url) else {
      ErrorReporting.fail(.argument, model == nil ? "the model name is NULL" : "the URL is NULL", error)
      return nil
    }
    guard let count else {
      ErrorReporting.fail(.argument, "the count pointer is NULL", error)
      return nil
    }
    let pairs: [(name: String, value: String)]
    switch fetchedHeaders(headers) {
    case .failure(let failure):
      ErrorReporting.fail(failure, error)
      return nil
    case .success(let read): pairs = read
    }
    // a 304's body may be empty: a NULL buffer of no bytes is one
    let bytes: Result<UnsafeBufferPointer<UInt8>, StrataError> =
      body == nil && length == 0
      ? .success(UnsafeBufferPointer(start: nil, count: 0)) : checkedBuffer(body, length)
    let outcome = bytes.flatMap { buffer in
      ImportRequest.read(options, keep: nil).flatMap { request in
        engine.fetchPage(
          name, url: address, status: Int(status), headers: pairs, body: buffer, request: request,
          cache: cache != 0)
      }
    }
    return outcome.toC(error, failed: nil) { page in
      guard let array = Handles.modelArray(page.outcome.records) else { return nil }
      count.pointee = page.outcome.records.count
      if let report {
        guard let made = page.outcome.report() else { return nil }
        JValue.setNew(made, "next", page.next.flatMap(JValue.makeString) ?? json_null())
        JValue.setNew(made, "cached", page.cached ? json_true() : json_false())
        report.pointee = made
      }
      metadata?.pointee = page.outcome.metadata.map { Handles.retained($0) }
      return array
    }
  }
}

/// Response headers given as an array of [name, value] pairs or an object
/// {name: value} (NULL: none).
private func fetchedHeaders(_ headers: UnsafeMutablePointer<json_t>?) -> Result<
  [(name: String, value: String)], StrataError
> {
  guard let headers else { return .success([]) }
  var out: [(name: String, value: String)] = []
  if JValue.isObject(headers) {
    var failed = false
    JValue.forEachMember(headers) { key, value in
      guard JValue.isString(value) else {
        failed = true
        return
      }
      out.append((JValue.keyString(key), JValue.string(value)))
    }
    if !failed { return .success(out) }
  } else if JValue.isArray(headers) {
    for position in 0..<json_array_size(headers) {
      guard let pair = json_array_get(headers, position), JValue.isArray(pair), json_array_size(pair) == 2,
        let name = json_array_get(pair, 0), let value = json_array_get(pair, 1), JValue.isString(name),
        JValue.isString(value)
      else {
        return .failure(
          StrataError(code: .argument, message: "header \(position) is not a [name, value] pair of strings"))
      }
      out.append((JValue.string(name), JValue.string(value)))
    }
    return .success(out)
  }
  return .failure(
    StrataError(
      code: .argument, message: "the headers must be an array of [name, value] pairs or an object of strings")
  )
}

/// Fetches the pages of `model` from `url` on with the host's `fetch`
/// function, handing each page to `page`; the number of pages taken, or -1.
@_cdecl("strata_context_fetch")
public func strata_context_fetch(
  _ context: OpaquePointer?, _ model: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
  _ fetch: strata_fetch_fn?, _ page: strata_page_fn?, _ payload: UnsafeMutableRawPointer?, _ maxPages: Int,
  _ cache: Int32, _ error: UnsafeMutableRawPointer?
) -> Int {
  deepCall { () -> Int in
    guard let engine = Handles.context(context) else {
      ErrorReporting.fail(.argument, "the context is NULL", error)
      return -1
    }
    guard let name = Handles.string(model), let first = Handles.string(url) else {
      ErrorReporting.fail(.argument, model == nil ? "the model name is NULL" : "the URL is NULL", error)
      return -1
    }
    guard let fetch else {
      ErrorReporting.fail(.argument, "the fetch function is NULL", error)
      return -1
    }
    var next: String? = first
    var taken = 0
    while let current = next, maxPages <= 0 || taken < maxPages {
      switch takePage(engine, name, current, fetch, page, payload, cache: cache != 0) {
      case .failure(let failure):
        ErrorReporting.fail(failure, error)
        return -1
      case .success(let (following, stop)):
        taken += 1
        if stop { next = nil } else { next = following }
      }
    }
    ErrorReporting.succeed(error)
    return taken
  }
}

/// One page of `strata_context_fetch`: the request, the page taken, the
/// page function called; the next page's URL and whether to stop.
private func takePage(
  _ engine: GraphContext, _ model: String, _ url: String, _ fetch: strata_fetch_fn, _ page: strata_page_fn?,
  _ payload: UnsafeMutableRawPointer?, cache: Bool
) -> Result<(next: String?, stop: Bool), StrataError> {
  let headers: [(name: String, value: String)]
  if cache {
    switch engine.fetchHeaders(url) {
    case .failure(let failure): return .failure(failure)
    case .success(let found): headers = found
    }
  } else {
    headers = []
  }
  guard let sent = headerArray(headers) else {
    return .failure(StrataError(code: .oom, message: "out of memory"))
  }
  defer { JValue.release(sent) }
  var response = strata_response_t()
  defer {
    free(response.body)
    if let returned = response.headers { JValue.release(returned) }
  }
  let status = url.withCString { address -> Int32 in
    var request = strata_request_t(url: address, headers: UnsafePointer(sent))
    return fetch(&request, &response, payload)
  }
  if status != 0 {
    let reason = withUnsafeBytes(of: response.error) { bytes in
      String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
    return .failure(
      StrataError(
        code: .io,
        message: "\(url): the fetch function failed (\(status))" + (reason.isEmpty ? "" : ": \(reason)")))
  }
  let pairs: [(name: String, value: String)]
  switch fetchedHeaders(response.headers) {
  case .failure(let failure): return .failure(failure)
  case .success(let read): pairs = read
  }
  let body = UnsafeBufferPointer(
    start: response.body.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) },
    count: response.length)
  let taken: FetchedPage
  switch engine.fetchPage(
    model, url: url, status: Int(response.status), headers: pairs, body: body, request: ImportRequest(),
    cache: cache)
  {
  case .failure(let failure): return .failure(failure)
  case .success(let made): taken = made
  }
  guard let page else { return .success((taken.next, false)) }
  let records = taken.outcome.records
  guard let array = Handles.modelArray(records), let report = taken.outcome.report() else {
    return .failure(StrataError(code: .oom, message: "out of memory"))
  }
  defer {
    for position in 0..<records.count { strata_model_decref(array[position]) }
    free(array)
    JValue.release(report)
  }
  JValue.setNew(report, "url", JValue.makeString(url) ?? json_null())
  JValue.setNew(report, "status", json_integer(json_int_t(response.status)) ?? json_null())
  JValue.setNew(report, "next", taken.next.flatMap(JValue.makeString) ?? json_null())
  JValue.setNew(report, "cached", taken.cached ? json_true() : json_false())
  let stop = page(UnsafePointer(array), records.count, UnsafePointer(report), payload) != 0
  return .success((taken.next, stop))
}

/// Headers as a new array of [name, value] pairs, or nil when memory ran out.
private func headerArray(_ headers: [(name: String, value: String)]) -> JPtr? {
  guard let array = json_array() else { return nil }
  for (name, value) in headers {
    guard let pair = json_array(), let nameValue = JValue.makeString(name),
      let valueValue = JValue.makeString(value)
    else {
      JValue.release(array)
      return nil
    }
    json_array_append_new(pair, nameValue)
    json_array_append_new(pair, valueValue)
    json_array_append_new(array, pair)
  }
  return array
}
