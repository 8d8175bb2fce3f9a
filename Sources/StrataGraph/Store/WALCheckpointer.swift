import CSQLite
import Glibc

/// Copies a file's write-ahead log back into the file on a helper thread,
/// in place of SQLite's automatic checkpoint, which runs inside the commit
/// that makes the log long: a large import's commit returns once the log
/// is synced, and the copy (every page written again, and synced) runs
/// while the import hands its records over.
///
/// It is what SQLite's own `wal_autocheckpoint` does, at the same length
/// (`pages`), from a connection of its own: a PASSIVE checkpoint, which
/// waits for no reader or writer and copies what it can. Durability is
/// unchanged (a commit is durable once its log is synced, with or without
/// the copy); a process killed during the copy leaves a log SQLite copies
/// later. Its failures are SQLite's to retry: the next checkpoint, or the
/// last connection's close, copies what is left. The connection's next
/// write transaction waits for it (`wait`), so that transaction writes its
/// log from the start again instead of after the frames being copied: the
/// log stays as long as one large commit, as with SQLite's own checkpoint.
final class WALCheckpointer {
  /// The log's length (pages) from which a commit starts a checkpoint:
  /// SQLite's default for its automatic one.
  static let pages: Int32 = 1000

  /// The file.
  private let path: String
  /// The log's length after the connection's last commit, set by the WAL
  /// hook on the committing thread.
  private let logged = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
  /// The helper running a checkpoint, until joined.
  private var running: pthread_t? = nil

  /// A checkpointer of the file at `path` (opened as given, never as a URI).
  init(path: String) {
    self.path = path
    logged.initialize(to: 0)
  }

  deinit {
    wait()
    logged.deallocate()
  }

  /// Takes over from SQLite's automatic checkpoint on `handle` (a
  /// connection in WAL mode); `self` must outlive the handle's commits.
  func install(on handle: OpaquePointer) {
    sqlite3_wal_hook(handle, Self.hook, UnsafeMutableRawPointer(logged))
  }

  /// After a commit of the connection: when the log has grown to `pages`,
  /// a checkpoint starts on a helper thread, once the previous one ended
  /// (in place when no thread starts).
  func afterCommit() {
    guard logged.pointee >= Self.pages else { return }
    logged.pointee = 0
    wait()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Job(path: path)).toOpaque()
    if pthread_create(&thread, &attributes, Self.run, context) == 0 {
      running = thread
    } else {
      Unmanaged<Job>.fromOpaque(context).release()
      Self.checkpoint(path)
    }
  }

  /// Waits for the running checkpoint, if any (before the connection closes).
  func wait() {
    if let thread = running {
      pthread_join(thread, nil)
      running = nil
    }
  }

  /// One PASSIVE checkpoint of `path` from a connection opened for it.
  private static func checkpoint(_ path: String) {
    var database: OpaquePointer? = nil
    let opened = sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
    // a read first: a connection learns that the file is in WAL mode when it reads it
    if opened == SQLITE_OK, let database,
      sqlite3_exec(database, "SELECT count(*) FROM sqlite_master", nil, nil, nil) == SQLITE_OK
    {
      _ = sqlite3_wal_checkpoint_v2(database, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }
    if let database { sqlite3_close_v2(database) }
  }

  /// The helper's work.
  private final class Job {
    let path: String
    init(path: String) { self.path = path }
  }

  /// The helper thread's start routine.
  private static let run: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
    if let raw { WALCheckpointer.checkpoint(Unmanaged<Job>.fromOpaque(raw).takeRetainedValue().path) }
    return nil
  }

  /// The WAL hook: notes the log's length (SQLite calls it after each
  /// commit, the write lock released).
  private static let hook:
    @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = {
      raw, _, _, pages in
      raw?.assumingMemoryBound(to: Int32.self).pointee = pages
      return SQLITE_OK
    }
}
