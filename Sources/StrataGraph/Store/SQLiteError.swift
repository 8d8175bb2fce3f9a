import CSQLite
import Strata

/// How SQLite's result codes become `StrataError`s.
///
/// Every failure of the store is one `StrataError` with one detail: code `io`
/// when the file or the system failed (cannot open, read-only, disk full,
/// corrupt or not a database, locked by another writer past the busy
/// timeout), `oom` when SQLite ran out of memory, code `argument` when the request was wrong (bad
/// SQL, a value too big, a misuse). The message names what was being done,
/// the file, SQLite's own message and its result code.
enum SQLiteError {
  /// The `ErrorCode` for an SQLite result code (primary or extended).
  static func errorCode(for result: Int32) -> ErrorCode {
    switch result & 0xFF {
    case SQLITE_ERROR, SQLITE_MISUSE, SQLITE_RANGE, SQLITE_MISMATCH, SQLITE_CONSTRAINT, SQLITE_TOOBIG,
      SQLITE_SCHEMA, SQLITE_AUTH:
      return .argument
    case SQLITE_NOMEM:
      return .oom
    default:
      // SQLITE_CANTOPEN, SQLITE_IOERR, SQLITE_READONLY, SQLITE_FULL, SQLITE_CORRUPT,
      // SQLITE_NOTADB, SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED,
      // SQLITE_PROTOCOL, SQLITE_NOLFS and anything newer: the file or the system.
      return .io
    }
  }

  /// The error of a failed SQLite call on `handle` (may be nil when opening failed
  /// before SQLite made a handle): `doing` says what was being done, in words
  /// that fit "cannot ...": "open", "write records to".
  static func make(_ result: Int32, handle: OpaquePointer?, doing: String, path: String) -> StrataError {
    var detail = ""
    if let handle, let message = sqlite3_errmsg(handle) {
      detail = String(cString: message)
    } else if let message = sqlite3_errstr(result) {
      detail = String(cString: message)
    }
    return StrataError(
      code: errorCode(for: result),
      message: "cannot \(doing) '\(path)': \(detail) (\(name(of: result)), SQLite result code \(result))")
  }

  /// An error of the store itself (not of an SQLite call).
  static func store(_ code: ErrorCode, _ message: String, path: String) -> StrataError {
    StrataError(code: code, message: "\(message) ('\(path)')")
  }

  /// The symbolic name of a primary result code, for messages.
  static func name(of result: Int32) -> String {
    switch result & 0xFF {
    case SQLITE_ERROR: return "SQLITE_ERROR"
    case SQLITE_PERM: return "SQLITE_PERM"
    case SQLITE_BUSY: return "SQLITE_BUSY"
    case SQLITE_LOCKED: return "SQLITE_LOCKED"
    case SQLITE_NOMEM: return "SQLITE_NOMEM"
    case SQLITE_READONLY: return "SQLITE_READONLY"
    case SQLITE_IOERR: return "SQLITE_IOERR"
    case SQLITE_CORRUPT: return "SQLITE_CORRUPT"
    case SQLITE_FULL: return "SQLITE_FULL"
    case SQLITE_CANTOPEN: return "SQLITE_CANTOPEN"
    case SQLITE_PROTOCOL: return "SQLITE_PROTOCOL"
    case SQLITE_SCHEMA: return "SQLITE_SCHEMA"
    case SQLITE_TOOBIG: return "SQLITE_TOOBIG"
    case SQLITE_CONSTRAINT: return "SQLITE_CONSTRAINT"
    case SQLITE_MISMATCH: return "SQLITE_MISMATCH"
    case SQLITE_MISUSE: return "SQLITE_MISUSE"
    case SQLITE_NOLFS: return "SQLITE_NOLFS"
    case SQLITE_AUTH: return "SQLITE_AUTH"
    case SQLITE_RANGE: return "SQLITE_RANGE"
    case SQLITE_NOTADB: return "SQLITE_NOTADB"
    default: return "SQLite error"
    }
  }
}
