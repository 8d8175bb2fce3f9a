import Glibc
import Strata

/// PostgreSQL's client library, libpq, loaded at run time (`dlopen`) when a
/// `postgresql://` URL is first opened: libstrata.so gains no link-time
/// dependency, and a machine without libpq gets an error naming what to
/// install. Only the functions the graph's PostgreSQL store calls are looked
/// up; each is a C function pointer of libpq's own signature (libpq-fe.h).
package final class LibPQ: Sendable {
  typealias ConnectDB = @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
  typealias ConnectionInt = @convention(c) (OpaquePointer?) -> Int32
  typealias ConnectionText = @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
  typealias ConnectionVoid = @convention(c) (OpaquePointer?) -> Void
  typealias ExecParams =
    @convention(c) (
      OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<UInt32>?,
      UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
    ) -> OpaquePointer?
  typealias Prepare =
    @convention(c) (
      OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32, UnsafePointer<UInt32>?
    )
    -> OpaquePointer?
  typealias SendPrepare =
    @convention(c) (
      OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32, UnsafePointer<UInt32>?
    )
    -> Int32
  typealias ExecPrepared =
    @convention(c) (
      OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<UnsafePointer<CChar>?>?,
      UnsafePointer<Int32>?,
      UnsafePointer<Int32>?, Int32
    ) -> OpaquePointer?
  typealias SendQueryPrepared =
    @convention(c) (
      OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<UnsafePointer<CChar>?>?,
      UnsafePointer<Int32>?,
      UnsafePointer<Int32>?, Int32
    ) -> Int32
  typealias ConnectionResult = @convention(c) (OpaquePointer?) -> OpaquePointer?
  typealias ResultInt = @convention(c) (OpaquePointer?) -> Int32
  typealias ResultVoid = @convention(c) (OpaquePointer?) -> Void
  typealias ResultField = @convention(c) (OpaquePointer?, Int32) -> UnsafeMutablePointer<CChar>?
  typealias ResultType = @convention(c) (OpaquePointer?, Int32) -> UInt32
  typealias CellText = @convention(c) (OpaquePointer?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
  typealias CellInt = @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
  typealias NoticeProcessor = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void
  typealias SetNoticeProcessor =
    @convention(c) (OpaquePointer?, NoticeProcessor?, UnsafeMutableRawPointer?) -> NoticeProcessor?

  let connectdb: ConnectDB
  let status: ConnectionInt
  let errorMessage: ConnectionText
  let finish: ConnectionVoid
  let reset: ConnectionVoid
  let transactionStatus: ConnectionInt
  let execParams: ExecParams
  let prepare: Prepare
  let execPrepared: ExecPrepared
  let sendPrepare: SendPrepare
  let sendQueryPrepared: SendQueryPrepared
  let getResult: ConnectionResult
  let enterPipelineMode: ConnectionInt
  let exitPipelineMode: ConnectionInt
  let pipelineSync: ConnectionInt
  let resultStatus: ResultInt
  let resultErrorField: ResultField
  let clear: ResultVoid
  let ntuples: ResultInt
  let nfields: ResultInt
  let fname: ResultField
  let ftype: ResultType
  let getvalue: CellText
  let getlength: CellInt
  let getisnull: CellInt
  let setNoticeProcessor: SetNoticeProcessor

  /// The library's file name as the dynamic linker finds it (Debian's libpq5).
  package static let defaultName = "libpq.so.5"

  /// libpq as found by its default name (`STRATA_LIBPQ`, when set, names
  /// another file), loaded once per process.
  package static let shared: Result<LibPQ, StrataError> = {
    if let named = getenv("STRATA_LIBPQ"), named.pointee != 0 { return load(String(cString: named)) }
    return load(defaultName)
  }()

  /// Loads libpq from `name` (a file name or path); an `io` error naming
  /// the file, the linker's reason and what to install when it cannot.
  package static func load(_ name: String) -> Result<LibPQ, StrataError> {
    guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
      let reason = dlerror().map { String(cString: $0) } ?? "not found"
      return .failure(
        StrataError(
          code: .io,
          message:
            "cannot load libpq (\(name): \(reason)): a PostgreSQL graph needs PostgreSQL's client library; install it (Debian and Ubuntu: apt install libpq5; elsewhere the libpq package), or name its file in STRATA_LIBPQ"
        ))
    }
    do throws(MissingSymbol) {
      // the handle stays open for the process: the functions are kept
      return .success(try LibPQ(handle))
    } catch {
      dlclose(handle)
      return .failure(
        StrataError(
          code: .io,
          message:
            "\(name) is not a libpq this engine can use: it lacks \(error.name) (libpq 14 or later has everything)"
        ))
    }
  }

  /// A function the library lacks.
  private struct MissingSymbol: Error {
    let name: String
  }

  /// The functions of the library `handle` (dlopen'd); the first one missing is thrown.
  private init(_ handle: UnsafeMutableRawPointer) throws(MissingSymbol) {
    func symbol<T>(_ name: String) throws(MissingSymbol) -> T {
      guard let address = dlsym(handle, name) else { throw MissingSymbol(name: name) }
      return unsafeBitCast(address, to: T.self)
    }
    connectdb = try symbol("PQconnectdb")
    status = try symbol("PQstatus")
    errorMessage = try symbol("PQerrorMessage")
    finish = try symbol("PQfinish")
    reset = try symbol("PQreset")
    transactionStatus = try symbol("PQtransactionStatus")
    execParams = try symbol("PQexecParams")
    prepare = try symbol("PQprepare")
    execPrepared = try symbol("PQexecPrepared")
    sendPrepare = try symbol("PQsendPrepare")
    sendQueryPrepared = try symbol("PQsendQueryPrepared")
    getResult = try symbol("PQgetResult")
    enterPipelineMode = try symbol("PQenterPipelineMode")
    exitPipelineMode = try symbol("PQexitPipelineMode")
    pipelineSync = try symbol("PQpipelineSync")
    resultStatus = try symbol("PQresultStatus")
    resultErrorField = try symbol("PQresultErrorField")
    clear = try symbol("PQclear")
    ntuples = try symbol("PQntuples")
    nfields = try symbol("PQnfields")
    fname = try symbol("PQfname")
    ftype = try symbol("PQftype")
    getvalue = try symbol("PQgetvalue")
    getlength = try symbol("PQgetlength")
    getisnull = try symbol("PQgetisnull")
    setNoticeProcessor = try symbol("PQsetNoticeProcessor")
  }
}
