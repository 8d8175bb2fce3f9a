import CJansson
import Glibc
import Strata

/// The per-thread list of the most recent failed call's errors (a json_t array).
private let errorListKey: pthread_key_t = {
  var key = pthread_key_t()
  _ = pthread_key_create(&key) { pointer in
    if let pointer { json_decref(pointer.assumingMemoryBound(to: json_t.self)) }
  }
  return key
}()

/// Set (to any non-nil value) on a thread once it records an outcome: a
/// helper thread (DeepCall.swift) hands its outcome to the caller only then.
private let recordedKey: pthread_key_t = {
  var key = pthread_key_t()
  _ = pthread_key_create(&key, nil)
  return key
}()

/// Records the outcome of a call that takes a `strata_error_t *`.
enum ErrorReporting {
  /// A successful call: clears the struct and the thread's error list.
  static func succeed(_ error: UnsafeMutableRawPointer?) {
    // recorded with no list (the thread's last call succeeded): nothing to change, and
    // two reads of the keys cost less than writing both again
    if pthread_getspecific(errorListKey) != nil || pthread_getspecific(recordedKey) == nil { setList(nil) }
    guard let error else { return }
    // one memset of the header's struct (building a strata_error_t() value
    // and assigning it writes its text arrays field by field)
    memset(error, 0, MemoryLayout<strata_error_t>.size)
  }

  /// A failed call: fills the struct with the first error and keeps them all.
  static func fail(_ failure: StrataError, _ error: UnsafeMutableRawPointer?) {
    setList(list(failure))
    guard let error else { return }
    memset(error, 0, MemoryLayout<strata_error_t>.size)
    let out = error.assumingMemoryBound(to: strata_error_t.self)
    guard let first = failure.errors.first else { return }
    out.pointee.code = strata_code_t(UInt32(bitPattern: first.code.number))
    out.pointee.count = failure.errors.count
    withUnsafeMutableBytes(of: &out.pointee.code_name) { copy(first.code.rawValue, to: $0) }
    withUnsafeMutableBytes(of: &out.pointee.path) { copy(first.path, to: $0) }
    withUnsafeMutableBytes(of: &out.pointee.model) { copy(first.model, to: $0) }
    withUnsafeMutableBytes(of: &out.pointee.property) { copy(first.property, to: $0) }
    withUnsafeMutableBytes(of: &out.pointee.message) { copy(first.message, to: $0) }
  }

  /// A failed call with a single error of the whole input.
  static func fail(_ code: ErrorCode, _ message: String, _ error: UnsafeMutableRawPointer?) {
    fail(StrataError([ErrorDetail(path: "", code: code, message: message)]), error)
  }

  /// A new reference to the thread's error list, or nil.
  static func current() -> UnsafeMutablePointer<json_t>? {
    guard let stored = pthread_getspecific(errorListKey) else { return nil }
    let list = stored.assumingMemoryBound(to: json_t.self)
    return json_incref(list)
  }

  private static func setList(_ list: UnsafeMutablePointer<json_t>?) {
    if let old = pthread_getspecific(errorListKey) {
      json_decref(old.assumingMemoryBound(to: json_t.self))
    }
    _ = pthread_setspecific(errorListKey, list.map { UnsafeRawPointer($0) })
    _ = pthread_setspecific(recordedKey, UnsafeRawPointer(bitPattern: 1))
  }

  /// The outcome a thread recorded (its error list, owned), to be recorded
  /// again by the thread a call was made on.
  struct Handoff {
    /// The error list (owned), or nil after a success.
    let list: UnsafeMutablePointer<json_t>?
  }

  /// Takes the outcome this thread recorded, if it recorded one, leaving it
  /// no error list.
  static func takeHandoff() -> Handoff? {
    guard pthread_getspecific(recordedKey) != nil else { return nil }
    let list = pthread_getspecific(errorListKey)?.assumingMemoryBound(to: json_t.self)
    _ = pthread_setspecific(errorListKey, nil)
    _ = pthread_setspecific(recordedKey, nil)
    return Handoff(list: list)
  }

  /// Records an outcome handed over from a helper thread as this thread's own.
  static func adopt(_ handoff: Handoff) { setList(handoff.list) }

  /// The errors as a JSON array (a new reference), each entry with "line"
  /// when the error has one.
  static func list(_ failure: StrataError) -> UnsafeMutablePointer<json_t>? {
    guard let array = json_array() else { return nil }
    for detail in failure.errors {
      guard let entry = json_object() else { continue }
      set(entry, "path", detail.path)
      set(entry, "model", detail.model)
      set(entry, "property", detail.property)
      set(entry, "code", detail.code.rawValue)
      set(entry, "message", detail.message)
      if let line = detail.line, let number = json_integer(json_int_t(line)) {
        _ = json_object_set_new(entry, "line", number)
      }
      _ = json_array_append_new(array, entry)
    }
    return array
  }

  private static func set(_ object: UnsafeMutablePointer<json_t>, _ key: String, _ value: String) {
    var copy = value
    let string = copy.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { json_stringn_nocheck($0.baseAddress, $0.count) }
    }
    if let string { _ = json_object_set_new(object, key, string) }
  }

  /// Copies UTF-8 text into a fixed C buffer (one of strata_error_t's
  /// fields), cut at a character boundary, NUL-terminated.
  private static func copy(_ text: String, to destination: UnsafeMutableRawBufferPointer) {
    guard destination.count > 0 else { return }
    var bytes = Array(text.utf8)
    if bytes.count > destination.count - 1 {
      var end = destination.count - 1
      while end > 0 && (bytes[end] & 0xC0) == 0x80 { end -= 1 }
      bytes = Array(bytes[0..<end])
    }
    destination.copyBytes(from: bytes)
    destination[bytes.count] = 0
  }
}
