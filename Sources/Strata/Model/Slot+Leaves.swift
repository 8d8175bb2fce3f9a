import CJansson

/// Reading a leaf however the slot keeps it: as a json_t (`.leaf`), as a
/// value in the slot itself (`.integer`, `.real`), as text in a shared chunk
/// (`.text`) or as an array of those (`.list`). A reader that needs a json_t
/// gets one made for a kept value; readers on hot paths switch on the
/// cases and use the kept value directly.
extension Slot {
  /// The leaf as a new reference (the json_t retained, or made for a value
  /// kept in the slot); nil unless a leaf, or when jansson is out of memory.
  package func leafJSON() -> JPtr? {
    switch self {
    case .leaf(let value): return JValue.retain(value)
    case .integer(let value): return json_integer(json_int_t(value))
    case .real(let value): return json_real(value)
    case .text(let text): return text.makeJSON()
    case .list(let elements):
      guard let out = json_array() else { return nil }
      for element in elements {
        guard let made = element.leafJSON(), json_array_append_new(out, made) == 0 else {
          JValue.release(out)
          return nil
        }
      }
      return out
    default: return nil
    }
  }

  /// Calls `body` with the leaf as a json_t, borrowed for the call (made and
  /// released around it for a value kept in the slot); nil unless a leaf.
  @inline(__always)
  package func withLeaf<R>(_ body: (JPtr) throws -> R) rethrows -> R? {
    switch self {
    case .leaf(let value): return try body(value)
    case .integer, .real, .text, .list:
      guard let made = leafJSON() else { return nil }
      defer { JValue.release(made) }
      return try body(made)
    default: return nil
    }
  }

  /// True for an array leaf, kept as a jansson array or as a `.list`.
  package var isArrayLeaf: Bool {
    switch self {
    case .list: return true
    case .leaf(let value): return JValue.isArray(value)
    default: return false
    }
  }

  /// The record key the leaf stands for, or nil unless a leaf that can be one.
  package var recordKey: RecordKey? {
    switch self {
    case .integer(let value): return .int(value)
    case .real(let value): return value.isFinite ? .double(value) : nil
    case .text(let text): return .string(text.string)
    case .leaf(let value): return RecordKey(json: value)
    default: return nil
    }
  }

  /// The bytes of a string leaf, however kept, borrowed for `body`; nil
  /// unless a string leaf.
  @inline(__always)
  package func withStringBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
    switch self {
    case .text(let text): return try body(text.bytes)
    case .leaf(let value) where JValue.isString(value): return try body(JValue.stringBytes(value))
    default: return nil
    }
  }
}
