import CJansson

/// RFC 6902 JSON Patch over jansson values: the patch that turns one value
/// into another, and the application of a patch (add, remove, replace, move,
/// copy, test). Paths are RFC 6901 pointers, keys escaped (`~0`, `~1`).
enum JSONPatch {
  /// Why a patch could not be applied: where in the patch document, and why.
  struct Failure: Error {
    /// RFC 6901 pointer into the patch document (`/2/path`).
    var path: String
    /// One line for a person.
    var message: String
    /// The first token of the failing operation's path (a property name of
    /// the patched model's dictionary), or "".
    var target: String
  }

  // MARK: diff

  /// The operations that turn `a` into `b` (both borrowed), as a new JSON
  /// array. Objects are compared member by member, arrays element by element
  /// (the common prefix diffed in place, extra elements appended with `-`,
  /// surplus ones removed from the end); anything else is replaced whole.
  static func diff(_ a: JPtr, _ b: JPtr) -> JPtr? {
    guard let ops = json_array() else { return nil }
    let builder = DiffBuilder(ops: ops, limit: StackGuard.limit())
    builder.diff(a, b, [])
    return ops
  }

  private struct DiffBuilder {
    let ops: JPtr
    let limit: UInt

    func append(_ op: String, _ tokens: [String], _ value: JPtr?) {
      guard let entry = json_object() else { return }
      if let name = JValue.makeString(op) { JValue.setNew(entry, "op", name) }
      if let path = JValue.makeString(JSONPointer.make(tokens)) { JValue.setNew(entry, "path", path) }
      if let value, let copy = json_deep_copy(value) { JValue.setNew(entry, "value", copy) }
      _ = json_array_append_new(ops, entry)
    }

    func diff(_ a: JPtr, _ b: JPtr, _ tokens: [String]) {
      if a == b || JSONTree.equal(a, b, exact: true) { return }
      // Too deep for this thread's stack: replacing the value whole is as exact.
      guard StackGuard.hasRoom(limit) else {
        append("replace", tokens, b)
        return
      }
      if JValue.isObject(a) && JValue.isObject(b) {
        JValue.forEachMember(a) { key, _ in
          if JSONTree.member(b, key) == nil { append("remove", tokens + [JValue.keyString(key)], nil) }
        }
        JValue.forEachMember(b) { key, value in
          if let old = JSONTree.member(a, key) {
            diff(old, value, tokens + [JValue.keyString(key)])
          } else {
            append("add", tokens + [JValue.keyString(key)], value)
          }
        }
        return
      }
      if JValue.isArray(a) && JValue.isArray(b) {
        let countA = json_array_size(a)
        let countB = json_array_size(b)
        for position in 0..<min(countA, countB) {
          if let x = json_array_get(a, position), let y = json_array_get(b, position) {
            diff(x, y, tokens + [String(position)])
          }
        }
        if countB > countA {
          for position in countA..<countB {
            if let y = json_array_get(b, position) { append("add", tokens + ["-"], y) }
          }
        } else if countA > countB {
          for position in (countB..<countA).reversed() { append("remove", tokens + [String(position)], nil) }
        }
        return
      }
      append("replace", tokens, b)
    }
  }

  // MARK: apply

  /// `document` (borrowed) with `patch` (borrowed) applied: a new reference,
  /// or the first failing operation. Operations apply in order to a copy; one
  /// that fails stops the patch and nothing is returned.
  static func apply(_ patch: JPtr, to document: JPtr) -> Result<JPtr, Failure> {
    guard JValue.isArray(patch) else {
      return .failure(
        Failure(
          path: "", message: "a JSON Patch is an array of operations, not \(JValue.typeName(patch))",
          target: ""))
    }
    guard var root = json_deep_copy(document) else {
      return .failure(Failure(path: "", message: "out of memory", target: ""))
    }
    for position in 0..<json_array_size(patch) {
      guard let operation = json_array_get(patch, position) else { continue }
      if let failure = applyOne(operation, position, &root) {
        JValue.release(root)
        return .failure(failure)
      }
    }
    return .success(root)
  }

  /// Applies one operation to `root` (owned, may be replaced); nil on success.
  private static func applyOne(_ operation: JPtr, _ position: Int, _ root: inout JPtr) -> Failure? {
    let at = "/\(position)"
    guard JValue.isObject(operation) else {
      return Failure(
        path: at, message: "operation \(position) must be an object, not \(JValue.typeName(operation))",
        target: "")
    }
    guard let opValue = json_object_get(operation, "op"), JValue.isString(opValue) else {
      return Failure(
        path: at + "/op",
        message: "operation \(position) needs \"op\": add, remove, replace, move, copy or test", target: "")
    }
    let op = JValue.string(opValue)
    guard ["add", "remove", "replace", "move", "copy", "test"].contains(op) else {
      return Failure(
        path: at + "/op",
        message:
          "operation \(position): unknown op '\(op)' (expected add, remove, replace, move, copy, test)",
        target: "")
    }
    let what = "operation \(position) (\(op))"
    guard let pathValue = json_object_get(operation, "path"), JValue.isString(pathValue) else {
      return Failure(path: at + "/path", message: "\(what) needs \"path\", a JSON Pointer", target: "")
    }
    let pathText = JValue.string(pathValue)
    guard let tokens = JSONTree.tokens(pathText) else {
      return Failure(
        path: at + "/path", message: "\(what): '\(pathText)' is not a JSON Pointer (RFC 6901)", target: "")
    }
    let target = tokens.first ?? ""
    func fail(_ member: String, _ message: String) -> Failure {
      Failure(path: at + member, message: "\(what): \(message)", target: target)
    }
    func value() -> JPtr? { json_object_get(operation, "value") }
    switch op {
    case "add", "replace", "test":
      guard let given = value() else { return fail("/value", "needs \"value\"") }
      if op == "test" {
        guard let current = JSONTree.locate(root, tokens[...]) else {
          return fail("/path", "'\(pathText)' does not exist")
        }
        if !JSONTree.equal(current, given, exact: false) {
          return fail(
            "/value", "the value at '\(pathText)' is \(Mapper.show(current)), not \(Mapper.show(given))")
        }
        return nil
      }
      guard let copy = json_deep_copy(given) else { return fail("", "out of memory") }
      let problem =
        op == "add" ? JSONTree.add(&root, tokens, copy) : JSONTree.replace(&root, tokens, copy)
      return problem.map { fail("/path", "'\(pathText)' \($0)") }
    case "remove":
      switch JSONTree.remove(root, tokens) {
      case .success(let removed):
        JValue.release(removed)
        return nil
      case .failure(let problem): return fail("/path", "'\(pathText)' \(problem.text)")
      }
    default:  // move, copy
      guard let fromValue = json_object_get(operation, "from"), JValue.isString(fromValue) else {
        return fail("/from", "needs \"from\", a JSON Pointer")
      }
      let fromText = JValue.string(fromValue)
      guard let from = JSONTree.tokens(fromText) else {
        return fail("/from", "'\(fromText)' is not a JSON Pointer (RFC 6901)")
      }
      if op == "move" {
        if from == tokens {
          return JSONTree.locate(root, from[...]) == nil ? fail("/from", "'\(fromText)' does not exist") : nil
        }
        if tokens.count > from.count && Array(tokens.prefix(from.count)) == from {
          return fail("/path", "cannot move '\(fromText)' into itself ('\(pathText)')")
        }
        let moved: JPtr
        switch JSONTree.remove(root, from) {
        case .success(let value): moved = value
        case .failure(let problem): return fail("/from", "'\(fromText)' \(problem.text)")
        }
        return JSONTree.add(&root, tokens, moved).map { fail("/path", "'\(pathText)' \($0)") }
      }
      guard let source = JSONTree.locate(root, from[...]) else {
        return fail("/from", "'\(fromText)' does not exist")
      }
      guard let copy = json_deep_copy(source) else { return fail("", "out of memory") }
      return JSONTree.add(&root, tokens, copy).map { fail("/path", "'\(pathText)' \($0)") }
    }
  }
}

/// Reads and edits of jansson trees by RFC 6901 tokens, and value equality.
enum JSONTree {
  /// Why an edit could not be made, as the end of a sentence that starts with the path.
  struct Problem: Error {
    let text: String
  }

  /// The tokens of a pointer ("" is the whole document), or nil if malformed.
  static func tokens(_ pointer: String) -> [String]? {
    pointer.isEmpty ? [] : JSONPointer.parse(pointer)
  }

  /// The member `key` (as bytes) of an object, borrowed, or nil.
  static func member(_ object: JPtr, _ key: UnsafeBufferPointer<UInt8>) -> JPtr? {
    key.withMemoryRebound(to: CChar.self) { chars in
      JValue.withChars(chars) { json_object_getn(object, $0, $1) }
    }
  }

  /// The member `key` of an object, borrowed, or nil.
  static func member(_ object: JPtr, _ key: String) -> JPtr? {
    var copy = key
    return copy.withUTF8 { member(object, $0) }
  }

  /// Removes the member `key` of an object; true if it was there.
  @discardableResult static func removeMember(_ object: JPtr, _ key: String) -> Bool {
    var copy = key
    return copy.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { chars in
        JValue.withChars(chars) { json_object_deln(object, $0, $1) == 0 }
      }
    }
  }

  /// An array index token: digits without a leading zero, below `limit` (inclusive when `end`).
  static func index(_ token: String, count: Int, end: Bool) -> Int? {
    guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
      token == "0" || !token.hasPrefix("0"), let value = Int(token)
    else { return nil }
    return value < count || (end && value == count) ? value : nil
  }

  /// The value at `tokens` inside `root` (borrowed), or nil.
  static func locate(_ root: JPtr, _ tokens: ArraySlice<String>) -> JPtr? {
    var current = root
    for token in tokens {
      if JValue.isObject(current) {
        guard let next = member(current, token) else { return nil }
        current = next
      } else if JValue.isArray(current) {
        guard let position = index(token, count: json_array_size(current), end: false),
          let next = json_array_get(current, position)
        else { return nil }
        current = next
      } else {
        return nil
      }
    }
    return current
  }

  /// RFC 6902 "add": sets or inserts `value` (stolen) at `tokens`; a message on failure.
  static func add(_ root: inout JPtr, _ tokens: [String], _ value: JPtr) -> String? {
    guard let last = tokens.last else {
      JValue.release(root)
      root = value
      return nil
    }
    guard let parent = locate(root, tokens.dropLast()) else {
      JValue.release(value)
      return "does not exist (its parent is missing)"
    }
    if JValue.isObject(parent) {
      JValue.setNew(parent, last, value)
      return nil
    }
    if JValue.isArray(parent) {
      if last == "-" {
        _ = json_array_append_new(parent, value)
        return nil
      }
      guard let position = index(last, count: json_array_size(parent), end: true) else {
        JValue.release(value)
        return "is not an index of the array (0 to \(json_array_size(parent)), or -)"
      }
      _ = json_array_insert_new(parent, position, value)
      return nil
    }
    JValue.release(value)
    return "goes through \(JValue.typeName(parent)), not an object or array"
  }

  /// RFC 6902 "replace": the value at `tokens` must exist; `value` is stolen.
  static func replace(_ root: inout JPtr, _ tokens: [String], _ value: JPtr) -> String? {
    guard let last = tokens.last else {
      JValue.release(root)
      root = value
      return nil
    }
    guard let parent = locate(root, tokens.dropLast()) else {
      JValue.release(value)
      return "does not exist"
    }
    if JValue.isObject(parent), member(parent, last) != nil {
      JValue.setNew(parent, last, value)
      return nil
    }
    if JValue.isArray(parent), let position = index(last, count: json_array_size(parent), end: false) {
      _ = json_array_set_new(parent, position, value)
      return nil
    }
    JValue.release(value)
    return "does not exist"
  }

  /// RFC 6902 "remove": takes the value at `tokens` out (a new reference to it).
  static func remove(_ root: JPtr, _ tokens: [String]) -> Result<JPtr, Problem> {
    guard let last = tokens.last else {
      return .failure(Problem(text: "is the whole document: it cannot be removed"))
    }
    guard let parent = locate(root, tokens.dropLast()) else {
      return .failure(Problem(text: "does not exist"))
    }
    if JValue.isObject(parent), let found = member(parent, last) {
      JValue.retain(found)
      removeMember(parent, last)
      return .success(found)
    }
    if JValue.isArray(parent), let position = index(last, count: json_array_size(parent), end: false),
      let found = json_array_get(parent, position)
    {
      JValue.retain(found)
      _ = json_array_remove(parent, position)
      return .success(found)
    }
    return .failure(Problem(text: "does not exist"))
  }

  /// Equality of JSON values. `exact`: an integer differs from a real (the
  /// canonical forms); otherwise numbers compare by value (RFC 6902 "test").
  static func equal(_ a: JPtr, _ b: JPtr, exact: Bool, depth: Int = 0) -> Bool {
    if a == b { return true }
    // jansson's own comparison is exact; past `maxDepth` it is the safe one.
    if exact || depth > maxDepth { return json_equal(a, b) != 0 }
    if isNumber(a) && isNumber(b) {
      if JValue.isInteger(a) && JValue.isInteger(b) { return json_integer_value(a) == json_integer_value(b) }
      return json_number_value(a) == json_number_value(b)
    }
    if JValue.isArray(a) && JValue.isArray(b) {
      guard json_array_size(a) == json_array_size(b) else { return false }
      for position in 0..<json_array_size(a) {
        guard let x = json_array_get(a, position), let y = json_array_get(b, position),
          equal(x, y, exact: false, depth: depth + 1)
        else { return false }
      }
      return true
    }
    if JValue.isObject(a) && JValue.isObject(b) {
      guard json_object_size(a) == json_object_size(b) else { return false }
      var same = true
      JValue.forEachMember(a) { key, value in
        if same, !(member(b, key).map { equal(value, $0, exact: false, depth: depth + 1) } ?? false) {
          same = false
        }
      }
      return same
    }
    return json_equal(a, b) != 0
  }

  /// True for integers and reals.
  static func isNumber(_ value: JPtr) -> Bool { JValue.isInteger(value) || JValue.isReal(value) }
}
