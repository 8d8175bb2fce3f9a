import Glibc

/// The tie between a graph record and the model objects that show it: a
/// record handle finds its record through it while the record lives.
///
/// A Swift `weak` reference from each object to its record did this
/// before, and gave every record a side table: each retain and release
/// of a record then took the runtime's slow path, about a tenth of a
/// cached get and of an import's reference counting (Benchmarks/README.md,
/// "Cached gets, records without side tables, the pages' peer"). The tie is a small object the record
/// makes and the objects hold: the record's `deinit` clears `record`, so
/// the pointer is never left dangling, without a weak reference.
///
/// The rule that keeps it safe: `record` is read only by the context whose
/// cache made the tie (`owner`, that cache's `serial`), under that
/// context's lock while it is open; a context frees its records under its
/// lock, or after it closed. Any other reader compares `owner` first.
package final class RecordTie: @unchecked Sendable {
  /// The record, not retained; nil once it is freed.
  package unowned(unsafe) var record: (any RecordIdentity)?
  /// The serial of the cache the record lives in (`CacheSerial`).
  package let owner: UInt64

  /// The tie of `record`, a record of the cache of serial `owner`.
  package init(_ record: any RecordIdentity, owner: UInt64) {
    self.record = record
    self.owner = owner
  }
}

/// Serials for the caches that records live in: unlike an object's
/// address, a serial is never used again by a later cache, so a tie from a
/// cache that is gone never matches a new one.
package enum CacheSerial {
  nonisolated(unsafe) private static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
    let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(lock, nil)
    return lock
  }()
  nonisolated(unsafe) private static var last: UInt64 = 0

  /// A serial no cache had before.
  package static func next() -> UInt64 {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    last += 1
    return last
  }
}
