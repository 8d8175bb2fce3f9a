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
    var missing: [String] = []
    func symbol<T>(_ symbolName: String, as type: T.Type) -> T? {
      guard let address = dlsym(handle, symbolName) else {
        missing.append(symbolName)
        return nil
      }
      return unsafeBitCast(address, to: type)
    }
    let library = LibPQ(
      connectdb: symbol("PQconnectdb", as: ConnectDB.self),
      status: symbol("PQstatus", as: ConnectionInt.self),
      errorMessage: symbol("PQerrorMessage", as: ConnectionText.self),
      finish: symbol("PQfinish", as: ConnectionVoid.self),
      reset: symbol("PQreset", as: ConnectionVoid.self),
      transactionStatus: symbol("PQtransactionStatus", as: ConnectionInt.self),
      execParams: symbol("PQexecParams", as: ExecParams.self),
      resultStatus: symbol("PQresultStatus", as: ResultInt.self),
      resultErrorField: symbol("PQresultErrorField", as: ResultField.self),
      clear: symbol("PQclear", as: ResultVoid.self),
      ntuples: symbol("PQntuples", as: ResultInt.self),
      nfields: symbol("PQnfields", as: ResultInt.self),
      fname: symbol("PQfname", as: ResultField.self),
      ftype: symbol("PQftype", as: ResultType.self),
      getvalue: symbol("PQgetvalue", as: CellText.self),
      getlength: symbol("PQgetlength", as: CellInt.self),
      getisnull: symbol("PQgetisnull", as: CellInt.self),
      setNoticeProcessor: symbol("PQsetNoticeProcessor", as: SetNoticeProcessor.self))
    guard let library else {
      dlclose(handle)
      return .failure(
        StrataError(
          code: .io,
          message: "\(name) is not a libpq this engine can use: it lacks \(missing.joined(separator: ", "))"))
    }
    // the handle stays open for the process: the functions are kept
    return .success(library)
  }

  private init?(
    connectdb: ConnectDB?, status: ConnectionInt?, errorMessage: ConnectionText?, finish: ConnectionVoid?,
    reset: ConnectionVoid?, transactionStatus: ConnectionInt?, execParams: ExecParams?,
    resultStatus: ResultInt?, resultErrorField: ResultField?, clear: ResultVoid?, ntuples: ResultInt?,
    nfields: ResultInt?, fname: ResultField?, ftype: ResultType?, getvalue: CellText?, getlength: CellInt?,
    getisnull: CellInt?, setNoticeProcessor: SetNoticeProcessor?
  ) {
    guard let connectdb, let status, let errorMessage, let finish, let reset, let transactionStatus,
      let execParams, let resultStatus, let resultErrorField, let clear, let ntuples, let nfields, let fname,
      let ftype, let getvalue, let getlength, let getisnull, let setNoticeProcessor
    else { return nil }
    self.connectdb = connectdb
    self.status = status
    self.errorMessage = errorMessage
    self.finish = finish
    self.reset = reset
    self.transactionStatus = transactionStatus
    self.execParams = execParams
    self.resultStatus = resultStatus
    self.resultErrorField = resultErrorField
    self.clear = clear
    self.ntuples = ntuples
    self.nfields = nfields
    self.fname = fname
    self.ftype = ftype
    self.getvalue = getvalue
    self.getlength = getlength
    self.getisnull = getisnull
    self.setNoticeProcessor = setNoticeProcessor
  }
}
