import CJansson

/// How deeply a JSON value nests, measured without recursion (a `json_t`
/// built in C may be nested far deeper than any stack allows).
///
/// A scalar has nesting 0; an array or object has one level more than its
/// deepest element. Every operation that recurses through stored values
/// relies on those values nesting at most `maxDepth` levels: the mapper
/// refuses deeper `json` values and kept keys, and the calls that take whole
/// documents (patches, archives, schemas) refuse deeper ones up front.
package enum Nesting {
  /// True when `value` nests more than `limit` levels (stops as soon as it does).
  package static func exceeds(_ value: JPtr, _ limit: Int) -> Bool {
    guard JValue.isObject(value) || JValue.isArray(value) else { return false }
    if limit < 1 { return true }
    // most values checked hold no container (a flat object of counts): no walk
    if !holdsContainer(value) { return false }
    // Each entry: a container and where its walk stands (array index or object iterator).
    var stack: [(container: JPtr, index: Int, iterator: UnsafeMutableRawPointer?)] = []
    stack.reserveCapacity(16)
    stack.append((value, 0, JValue.isObject(value) ? json_object_iter(value) : nil))
    while let top = stack.last {
      let position = stack.count - 1
      var child: JPtr? = nil
      if JValue.isArray(top.container) {
        if top.index < json_array_size(top.container) {
          child = json_array_get(top.container, top.index)
          stack[position].index += 1
        }
      } else if let iterator = top.iterator {
        child = json_object_iter_value(iterator)
        stack[position].iterator = json_object_iter_next(top.container, iterator)
      }
      guard let next = child else {
        stack.removeLast()
        continue
      }
      if JValue.isArray(next) || JValue.isObject(next) {
        if stack.count >= limit { return true }
        stack.append((next, 0, JValue.isObject(next) ? json_object_iter(next) : nil))
      }
    }
    return false
  }

  /// The `depth` error of a document nested more than `limit` levels.
  package static func tooDeep(_ what: String, _ limit: Int) -> StrataError {
    StrataError(code: .depth, message: "\(what) is nested deeper than \(limit) levels")
  }

  /// How deep the documents given whole (patches, archives, schemas) may nest:
  /// the values inside them, at most `maxDepth` levels, plus their envelope.
  package static let documentLimit = maxDepth + 16

  /// True when `value` (an object or an array) has an object or array among its members.
  private static func holdsContainer(_ value: JPtr) -> Bool {
    if JValue.isArray(value) {
      for index in 0..<json_array_size(value) {
        if let child = json_array_get(value, index), JValue.isArray(child) || JValue.isObject(child) {
          return true
        }
      }
      return false
    }
    var iterator = json_object_iter(value)
    while let at = iterator {
      if let child = json_object_iter_value(at), JValue.isArray(child) || JValue.isObject(child) {
        return true
      }
      iterator = json_object_iter_next(value, at)
    }
    return false
  }
}
