import CJansson
import Glibc

// Long because the scanner is one unit: strings, numbers, skipping and
// building share the cursor and scratch buffer as private state, which
// splitting across files would have to widen to the whole module.

/// Reads JSON text into a jansson value holding only what a model reads:
/// wanted keys are built (as jansson would build them), everything else is
/// validated and skipped without allocating.
///
/// The result is mapped by the ordinary `Mapper`, so answers equal the DOM
/// path's by construction. Whenever the text is not plain valid JSON that
/// jansson would accept the same way (a syntax error, invalid UTF-8, an
/// integer outside 64 bits, a real that overflows, NUL in a key, nesting
/// near jansson's limit), `parse` returns nil and the caller falls back to
/// jansson's own parser, which then gives the exact DOM answer and error.
package struct PrunedParser {
  let base: UnsafePointer<UInt8>
  let end: Int
  var position = 0
  var depth = 0
  /// Set on anything the fast path does not take: the caller falls back.
  var failed = false
  /// Set when whitespace skipped held a newline (JSON lines: a value that
  /// runs over a line's end is two lines).
  var sawNewline = false
  /// Where numbers outside jansson's range are noted (stand-ins built, or
  /// skipped as valid JSON); nil to fall back on them instead.
  var markers: NumberMarkers? = nil
  /// Scratch space for strings with escapes (decoded).
  private let scratch = ByteScratch()
  /// Where the last decoded string lies in the input when it had no escapes
  /// (its bytes are then the input's own, and `scratch` is not filled), or
  /// nil when it had escapes (its decoded bytes are in `scratch`).
  private var rawString: Range<Int>? = nil

  /// Objects of keyed models built so far, by their bytes (`InternTable`),
  /// when objects at `internDepth` or deeper are to be shared; nil otherwise.
  var interned: InternTable? = nil
  /// The least depth of an object that `interned` shares.
  var internDepth = Int.max

  /// The lowest stack address the recursion may reach on this thread:
  /// nearer than that, the text goes to jansson.
  let stackLimit = StackGuard.limit()
  /// Nesting past this goes to jansson (its own limit is 2048).
  static let depthLimit = 2000

  init(_ bytes: UnsafeBufferPointer<UInt8>) {
    // parse() only makes a parser for a non-empty buffer, which has a base address
    base = bytes.baseAddress ?? UnsafePointer(bitPattern: 8).unsafelyUnwrapped
    end = bytes.baseAddress == nil ? 0 : bytes.count
  }

  /// The pruned value of the whole text (a new reference), or nil to fall back.
  /// With `markers`, numbers outside jansson's range become stand-ins noted
  /// there (see `NumberMarkers`) instead of a fallback.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ want: Want, markers: NumberMarkers? = nil) -> JPtr?
  {
    guard bytes.baseAddress != nil, bytes.count > 0 else { return nil }
    var parser = PrunedParser(bytes)
    parser.markers = markers
    parser.skipSpace()
    guard let value = parser.value(want) else { return nil }
    parser.skipSpace()
    if parser.failed || parser.position != parser.end {
      json_decref(value)
      return nil
    }
    return value
  }

  /// Parses a text that is one array element by element, handing each
  /// element (a new reference, which `body` releases) to `body` with its
  /// index, so that a caller can be done with one element before the next is
  /// built. nil when the text is not an array (nothing was handed over);
  /// false on anything unusual (the caller then redoes the whole text on the
  /// DOM path, whatever it did with the elements so far); true when every
  /// element went to `body`. `body` answers false to stop (the answer is
  /// then false).
  ///
  /// With `root` (keys, outermost first), the array is the value of that
  /// member of nested objects (a response's `root`); the other members are
  /// skipped, and checked as any skipped value is. nil when the text has no
  /// array there (a missing key, null, a single object: the caller's whole-
  /// text path says what they mean); false when a second member of a root
  /// key's name follows the array (jansson keeps the last one).
  ///
  /// With `interning`, an object of a keyed model inside an element whose
  /// text equals one built before in this text is that same value again
  /// (`InternTable`): shared, so nobody may change what `body` gets.
  package static func forEachElement(
    _ bytes: UnsafeBufferPointer<UInt8>, _ want: Want, root: [[UInt8]] = [], interning: Bool = false,
    _ body: (JPtr, Int) -> Bool
  ) -> Bool? {
    guard bytes.baseAddress != nil, bytes.count > 0 else { return nil }
    var parser = PrunedParser(bytes)
    let table = interning ? InternTable() : nil
    defer { table?.clear() }
    parser.interned = table
    parser.internDepth = root.count + 2  // inside an element
    parser.skipSpace()
    for key in root {
      guard parser.enterMember(key) else { return nil }
    }
    guard parser.position < parser.end, parser.base[parser.position] == UInt8(ascii: "[") else { return nil }
    parser.depth += 1
    parser.position += 1
    parser.skipSpace()
    var index = 0
    if parser.position < parser.end && parser.base[parser.position] == UInt8(ascii: "]") {
      parser.position += 1
    } else {
      while true {
        guard let element = parser.value(want), !parser.failed else { return false }
        guard body(element, index) else { return false }
        index += 1
        switch parser.afterMember(closing: UInt8(ascii: "]")) {
        case .more: continue
        case .closed: break
        case .failed: return false
        }
        break
      }
    }
    for key in root.reversed() {
      guard parser.leaveMember(key) else { return false }
    }
    parser.skipSpace()
    return !parser.failed && parser.position == parser.end
  }

  /// At an object: reads up to the value of its first member named `key`
  /// (skipping the members before it) and stands there. False when the
  /// value here is not an object, has no such member, or is not well formed.
  private mutating func enterMember(_ key: [UInt8]) -> Bool {
    guard position < end, base[position] == UInt8(ascii: "{") else { return false }
    depth += 1
    position += 1
    skipSpace()
    guard position < end, base[position] != UInt8(ascii: "}") else { return false }
    while true {
      guard let found = memberKey({ $0.elementsEqual(key) }) else { return false }
      if found { return true }
      guard skip() else { return false }
      guard case .more = afterMember(closing: UInt8(ascii: "}")) else { return false }
    }
  }

  /// After the value `enterMember` stood at: skips the object's other
  /// members up to its closing brace. False when one is named `key` again
  /// (the last of the name is the member's value) or not well formed.
  private mutating func leaveMember(_ key: [UInt8]) -> Bool {
    while true {
      switch afterMember(closing: UInt8(ascii: "}")) {
      case .closed:
        depth -= 1
        return true
      case .failed: return false
      case .more:
        guard let again = memberKey({ $0.elementsEqual(key) }), !again, skip() else { return false }
      }
    }
  }

  // MARK: bytes

  @inline(__always) private func byte(_ offset: Int) -> UInt8 { base[offset] }

  @inline(__always) mutating func skipSpace() {
    // compact text (the common case): the next byte is no space at all
    if position < end && base[position] > 0x20 { return }
    skipSpaceRun()
  }

  @inline(never) private mutating func skipSpaceRun() {
    while position < end {
      let c = base[position]
      if c == 0x20 || c == 0x0D || c == 0x09 {
        position += 1
      } else if c == 0x0A {
        position += 1
        sawNewline = true
      } else {
        return
      }
    }
  }

  @inline(__always) mutating func fail() -> JPtr? {
    failed = true
    return nil
  }

  // MARK: values

  /// Builds the value at `position` as `want` says; nil on failure.
  mutating func value(_ want: Want) -> JPtr? {
    guard position < end else { return fail() }
    switch want {
    case .all: return whole()
    case .object(let reference):
      guard base[position] == UInt8(ascii: "{") else { return whole() }
      let plan = reference.plan
      if let interned, plan.keyed, depth >= internDepth { return internedObject(plan, interned) }
      return object { key in plan.want(key) }
    case .values(let inner):
      guard base[position] == UInt8(ascii: "{") else { return whole() }
      return object { _ in inner }
    case .elements(let inner):
      guard base[position] == UInt8(ascii: "[") else { return whole() }
      return array(inner)
    case .records(let reference):
      switch base[position] {
      case UInt8(ascii: "["): return array(.object(reference))
      case UInt8(ascii: "{"):
        let plan = reference.plan
        return object { key in plan.want(key) }
      default: return whole()
      }
    }
  }

  /// The object at `position` under `plan`: the value built earlier from
  /// the same bytes, found after skipping them, or built now and kept.
  private mutating func internedObject(_ plan: ObjectWant, _ table: InternTable) -> JPtr? {
    let start = position
    guard skip() else { return fail() }
    let length = position - start
    let hash = InternTable.hash(base + start, length)
    let id = ObjectIdentifier(plan)
    if let found = table.find(hash, base, start: start, length: length, plan: id) {
      return JValue.retain(found)
    }
    position = start
    guard let made = object({ key in plan.want(key) }) else { return nil }
    table.store(hash, start: start, length: length, plan: id, value: made)
    return made
  }

  /// The whole value at `position`, as jansson builds it.
  private mutating func whole() -> JPtr? {
    guard position < end else { return fail() }
    switch base[position] {
    case UInt8(ascii: "{"): return object { _ in .all }
    case UInt8(ascii: "["): return array(.all)
    case UInt8(ascii: "\""):
      guard decodeString() else { return fail() }
      return madeString()
    case UInt8(ascii: "t"): return literal("true") ? json_true() : fail()
    case UInt8(ascii: "f"): return literal("false") ? json_false() : fail()
    case UInt8(ascii: "n"): return literal("null") ? json_null() : fail()
    default: return number(build: true)
    }
  }

  /// An object: each member whose `want` is not nil is built, the others skipped.
  private mutating func object(_ wantOf: (UnsafeBufferPointer<UInt8>) -> Want?) -> JPtr? {
    depth += 1
    defer { depth -= 1 }
    guard depth < Self.depthLimit, StackGuard.hasRoom(stackLimit), let out = json_object() else {
      return fail()
    }
    position += 1
    skipSpace()
    if position < end && base[position] == UInt8(ascii: "}") {
      position += 1
      return out
    }
    while true {
      guard let key = memberKeyAndColon() else {
        json_decref(out)
        return fail()
      }
      let want: Want?
      if let raw = key {
        want = wantOf(UnsafeBufferPointer(start: base + raw.lowerBound, count: raw.count))
      } else {
        want = wantOf(scratch.bytes)
      }
      if let want {
        // the key: the input's own bytes, or a copy of the decoded ones
        let decoded: [UInt8] = key == nil ? Array(scratch.bytes) : []
        guard let member = value(want) else {
          json_decref(out)
          return fail()
        }
        if let raw = key {
          JValue.setMember(out, UnsafeBufferPointer(start: base + raw.lowerBound, count: raw.count), member)
        } else {
          decoded.withUnsafeBufferPointer { JValue.setMember(out, $0, member) }
        }
      } else if !skip() {
        json_decref(out)
        return fail()
      }
      switch afterMember(closing: UInt8(ascii: "}")) {
      case .more: continue
      case .closed: return out
      case .failed:
        json_decref(out)
        return fail()
      }
    }
  }

  /// Reads a member's key, the colon and the space after it. The key is
  /// `.some(range)` of the input when it had no escapes, `.some(nil)` when its
  /// decoded bytes are in `scratch`; nil on anything wrong (jansson also
  /// refuses NUL in keys).
  mutating func memberKeyAndColon() -> Range<Int>?? {
    guard position < end, base[position] == UInt8(ascii: "\""), decodeString() else { return nil }
    let key = rawString
    if key == nil && scratch.bytes.contains(0) { return nil }
    skipSpace()
    guard position < end, base[position] == UInt8(ascii: ":") else { return nil }
    position += 1
    skipSpace()
    return .some(key)
  }

  /// Reads a member's key and colon (as `memberKeyAndColon`) and gives what
  /// `lookup` says of the key's bytes: the input's own, or the decoded copy
  /// (valid only during the call). nil on anything wrong.
  @inline(__always) mutating func memberKey<R>(_ lookup: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
    guard let key = memberKeyAndColon() else { return nil }
    if let raw = key { return lookup(UnsafeBufferPointer(start: base + raw.lowerBound, count: raw.count)) }
    return withString(lookup)
  }

  /// An array, every element built as `want`.
  private mutating func array(_ want: Want) -> JPtr? {
    depth += 1
    defer { depth -= 1 }
    guard depth < Self.depthLimit, StackGuard.hasRoom(stackLimit), let out = json_array() else {
      return fail()
    }
    position += 1
    skipSpace()
    if position < end && base[position] == UInt8(ascii: "]") {
      position += 1
      return out
    }
    while true {
      guard let element = value(want) else {
        json_decref(out)
        return fail()
      }
      _ = json_array_append_new(out, element)
      switch afterMember(closing: UInt8(ascii: "]")) {
      case .more: continue
      case .closed: return out
      case .failed:
        json_decref(out)
        return fail()
      }
    }
  }

  /// What follows a member of an object or an element of an array.
  enum Separator {
    /// A comma (and the space after it): another one follows.
    case more
    /// The closing bracket, now passed.
    case closed
    /// Anything else, or the end of the text.
    case failed
  }

  /// Reads what follows a member or element: space, then `,` (and the
  /// space after it) or `closing`.
  @inline(__always) mutating func afterMember(closing: UInt8) -> Separator {
    skipSpace()
    guard position < end else { return .failed }
    let c = base[position]
    if c == UInt8(ascii: ",") {
      position += 1
      skipSpace()
      return .more
    }
    guard c == closing else { return .failed }
    position += 1
    return .closed
  }

  /// True, past it, when `word` (`true`, `false` or `null`) is at `position`.
  @inline(__always) mutating func literal(_ word: StaticString) -> Bool {
    guard Self.isLiteral(word, base + position, end - position) else { return false }
    position += word.utf8CodeUnitCount
    return true
  }

  /// True when the `room` bytes at `text` begin with `word` (4 or 5 bytes):
  /// compared as a 32-bit word and a last byte, not by a call to `memcmp`.
  @inline(__always) static func isLiteral(_ word: StaticString, _ text: UnsafePointer<UInt8>, _ room: Int)
    -> Bool
  {
    let count = word.utf8CodeUnitCount
    guard room >= count else { return false }
    let head = UnsafeRawPointer(word.utf8Start).loadUnaligned(as: UInt32.self)
    guard UnsafeRawPointer(text).loadUnaligned(as: UInt32.self) == head else { return false }
    return count == 4 || (count == 5 && text[4] == word.utf8Start[4])
  }

  // MARK: skipping

  /// `skip`, with the commonest skipped value, a string without escapes or
  /// non-ASCII bytes, crossed in place (no call): for the loops that skip
  /// most members of an object.
  @inline(__always) mutating func skipMember() -> Bool {
    if position < end && base[position] == UInt8(ascii: "\"") { return skipString(key: false) }
    return skip()
  }

  /// Skips one value, checking it as jansson would; false on anything wrong.
  mutating func skip() -> Bool {
    guard position < end else { return false }
    // scalars, the common case, need no bracket stack
    switch base[position] {
    case UInt8(ascii: "\""): return skipString(key: false)
    case UInt8(ascii: "t"): return literal("true")
    case UInt8(ascii: "f"): return literal("false")
    case UInt8(ascii: "n"): return literal("null")
    case UInt8(ascii: "{"), UInt8(ascii: "["): return skipContainer()
    default: return skipNumber()
    }
  }

  /// Skips the object or array whose opening bracket is at `position`.
  ///
  /// First the C kernel (`strata_skip_container`, Sources/CJansson/
  /// skip_container.h: this loop without Swift's traps, strings crossed 32
  /// bytes a step with AVX2); it answers only when it is sure all of the
  /// container is valid, and everything else comes here: one loop over the
  /// tokens, its cursor a local (kept in a register: the
  /// parser's `position` is written back only around the rare calls out,
  /// for escapes, non-ASCII text, long numbers and whitespace). The common
  /// tokens (plain strings, short integers, literals) are crossed inline
  /// (Benchmarks/README.md, "Choices the figures made").
  @inline(never) private mutating func skipContainer() -> Bool {
    let base = self.base
    let end = self.end
    // the C kernel, where it is sure of all of the container
    let kernel = strata_skip_container(base, position, end, max(0, Self.depthLimit - depth))
    if kernel > 0 {
      position = kernel
      return true
    }
    var p = position
    // Brackets seen, to check that each closes its own kind.
    var stack = BracketStack()
    value: while true {
      // at the first byte of a value (spaces crossed)
      let c = base[p]
      switch c {
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        guard depth + stack.count + 1 < Self.depthLimit else { return false }
        let isObject = c == UInt8(ascii: "{")
        stack.push(isObject)
        p = spaceEnd(p + 1)
        guard p < end else { return false }
        if base[p] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
          p += 1
          stack.pop()
        } else {
          if isObject {
            guard let after = keyAndColon(p) else { return false }
            p = after
          }
          continue value
        }
      case UInt8(ascii: "\""):
        guard let after = stringEnd(p, key: false) else { return false }
        p = after
      case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
        let word: StaticString = c == UInt8(ascii: "t") ? "true" : c == UInt8(ascii: "f") ? "false" : "null"
        guard Self.isLiteral(word, base + p, end - p) else { return false }
        p += word.utf8CodeUnitCount
      default:
        position = p
        guard skipNumber() else { return false }
        p = position
      }
      // after a value: `,` (then the next key in an object) or closing brackets
      while stack.count > 0 {
        p = spaceEnd(p)
        guard p < end else { return false }
        let c = base[p]
        let isObject = stack.topIsObject
        if c == UInt8(ascii: ",") {
          p += 1
          if isObject {
            guard let after = keyAndColon(p) else { return false }
            p = after
          } else {
            p = spaceEnd(p)
            guard p < end else { return false }
          }
          continue value
        }
        guard c == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
        p += 1
        stack.pop()
      }
      position = p
      return true
    }
  }

  /// The index of the first byte at or after `p` that is no whitespace (or
  /// `end`): one comparison on compact text, the rest out of line.
  @inline(__always) private mutating func spaceEnd(_ p: Int) -> Int {
    p < end && base[p] <= 0x20 ? spaceAfter(p) : p
  }

  /// The index after the whitespace at `p` (a newline noted in `sawNewline`).
  @inline(never) private mutating func spaceAfter(_ p: Int) -> Int {
    position = p
    skipSpaceRun()
    return position
  }

  /// The index after the string whose opening quote is at `p`, checked
  /// without decoding it (a plain run crossed here, the rest by
  /// `skipStringRest`); nil on anything wrong.
  @inline(__always) private mutating func stringEnd(_ p: Int, key: Bool) -> Int? {
    let stop = PlainRun.end(base, from: p + 1, end: end)
    if stop < end && base[stop] == UInt8(ascii: "\"") { return stop + 1 }
    position = p
    return skipStringRest(stop, key: key) ? position : nil
  }

  /// Inside a skipped object, from just after `{` or `,`: a member's key (a
  /// string) and its colon, and the spaces around them. The index of the
  /// value's first byte (before `end`), or nil on anything wrong.
  @inline(__always) private mutating func keyAndColon(_ from: Int) -> Int? {
    var p = spaceEnd(from)
    guard p < end, base[p] == UInt8(ascii: "\""), let after = stringEnd(p, key: true) else { return nil }
    p = spaceEnd(after)
    guard p < end, base[p] == UInt8(ascii: ":") else { return nil }
    p = spaceEnd(p + 1)
    guard p < end else { return nil }
    return p
  }

  /// Skips the number at `position`, checked as `number` checks it; false
  /// on anything wrong. An integer of up to 18 digits that ends where a
  /// number cannot go on (the common case) is crossed here; anything else
  /// (a fraction, an exponent, more digits, a bad ending) goes to `number`.
  @inline(__always) private mutating func skipNumber() -> Bool {
    var index = position
    if base[index] == UInt8(ascii: "-") { index += 1 }
    if index < end && base[index] >= UInt8(ascii: "1") && base[index] <= UInt8(ascii: "9") {
      let stop = digitsEnd(index + 1)
      if stop - index <= 18 && stop < end {
        let c = base[stop]
        // what may follow a number: anything but a digit, ".", "e", "E", "+" or "-"
        let goesOn =
          c < UInt8(ascii: "0")
          ? c == UInt8(ascii: ".") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
          : c <= UInt8(ascii: "9") || c | 0x20 == UInt8(ascii: "e")
        if !goesOn {
          position = stop
          return true
        }
      }
    }
    return number(build: false) != nil || !failed
  }

  /// Skips a string, checking it as `decodeString` does without decoding
  /// it: plain runs scanned in blocks, escapes and UTF-8 checked. With
  /// `key`, an escaped NUL (`\u0000`) is refused, as jansson refuses it in keys.
  @inline(__always) private mutating func skipString(key: Bool) -> Bool {
    guard let after = stringEnd(position, key: key) else { return false }
    position = after
    return true
  }

  @inline(never) private mutating func skipStringRest(_ from: Int, key: Bool) -> Bool {
    var index = from
    while true {
      index = validatedRun(index)
      guard index < end else { return false }
      let c = base[index]
      if c == UInt8(ascii: "\"") {
        position = index + 1
        return true
      }
      if c < 0x20 { return false }
      if c == UInt8(ascii: "\\") {
        // escapes come in runs (text where every non-ASCII character is
        // `\uXXXX`): the next one is read without scanning for it
        guard let next = JSONEscape.skipRun(base, index, end, key: key) else { return false }
        index = next
        continue
      }
      guard let length = utf8Length(index) else { return false }
      index += length
    }
  }

  /// The index of the first byte at or after `from` that ends a plain run of
  /// a string, or `end` (see `PlainRun`).
  @inline(__always) private func plainRun(_ from: Int) -> Int {
    PlainRun.end(base, from: from, end: end)
  }

  /// The index of the first byte at or after `from` that is `"`, a
  /// backslash or a control byte, or where well-formed UTF-8 could not be
  /// confirmed in blocks, or `end` (see `PlainRun.validatedEnd`).
  @inline(__always) private func validatedRun(_ from: Int) -> Int {
    PlainRun.validatedEnd(base, from: from, end: end)
  }

  // MARK: strings

  /// Reads the string at `position`, checked as jansson checks it (UTF-8,
  /// escapes); false on anything wrong. Without escapes its bytes are the
  /// input's own (`rawString`); with escapes they are decoded into `scratch`.
  @inline(__always) mutating func decodeString() -> Bool {
    let start = position + 1
    let stop = plainRun(start)
    if stop < end && base[stop] == UInt8(ascii: "\"") {
      rawString = start..<stop
      position = stop + 1
      return true
    }
    return decodeStringRest(start, stop)
  }

  @inline(never) private mutating func decodeStringRest(_ start: Int, _ from: Int) -> Bool {
    var index = from
    while true {
      index = validatedRun(index)
      guard index < end else { return false }
      let c = base[index]
      if c == UInt8(ascii: "\"") {
        rawString = start..<index
        position = index + 1
        return true
      }
      if c < 0x20 { return false }
      if c == UInt8(ascii: "\\") { return decodeEscaped(from: start, escape: index) }
      guard let length = utf8Length(index) else { return false }
      index += length
    }
  }

  /// The rest of `decodeString` once the first escape (at `escape`) is met:
  /// the string is decoded into `scratch`.
  private mutating func decodeEscaped(from start: Int, escape: Int) -> Bool {
    scratch.removeAll()
    scratch.append(base + start, escape - start)
    var index = escape
    var runStart = index
    while true {
      index = validatedRun(index)
      guard index < end else { return false }
      let c = base[index]
      if c == UInt8(ascii: "\"") {
        scratch.append(base + runStart, index - runStart)
        rawString = nil
        position = index + 1
        return true
      }
      if c < 0x20 { return false }
      if c == UInt8(ascii: "\\") {
        scratch.append(base + runStart, index - runStart)
        repeat {  // a run of escapes, as in skipStringRest
          // `\uXXXX` of one UTF-16 unit (no surrogate), the common one, read as one word
          if index + 8 <= end {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            if let unit = JSONEscape.unicodeUnit(word), unit & 0xF800 != 0xD800 {
              scratch.appendUTF8(unit)
              index += 6
              continue
            }
          }
          guard index + 1 < end else { return false }
          let letter = base[index + 1]
          if let byte = JSONEscape.simple(letter) {
            scratch.append(byte)
            index += 2
          } else {
            guard letter == UInt8(ascii: "u"), let (scalar, next) = JSONEscape.unicode(base, index, end)
            else {
              return false
            }
            scratch.appendUTF8(scalar)
            index = next
          }
        } while index < end && base[index] == UInt8(ascii: "\\")
        runStart = index
        continue
      }
      guard let length = utf8Length(index) else { return false }
      index += length
    }
  }

  /// The string `decodeString` last read as a new jansson value (nil when
  /// out of memory).
  @inline(__always) func madeString() -> JPtr? {
    withString { bytes in
      bytes.withMemoryRebound(to: CChar.self) { chars in
        JValue.withChars(chars) { json_stringn_nocheck($0, $1) }
      }
    }
  }

  /// Calls `body` with the bytes of the string `decodeString` last read.
  @inline(__always) func withString<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let raw = rawString {
      return body(UnsafeBufferPointer(start: base + raw.lowerBound, count: raw.count))
    }
    return body(scratch.bytes)
  }

  /// The length of the well-formed UTF-8 sequence at `at` (no overlongs,
  /// surrogates or values past U+10FFFF), or nil.
  @inline(__always) private func utf8Length(_ at: Int) -> Int? {
    let first = base[at]
    let length: Int
    var scalar: UInt32
    switch first {
    case 0xC2...0xDF:
      length = 2
      scalar = UInt32(first & 0x1F)
    case 0xE0...0xEF:
      length = 3
      scalar = UInt32(first & 0x0F)
    case 0xF0...0xF4:
      length = 4
      scalar = UInt32(first & 0x07)
    default: return nil
    }
    guard at + length <= end else { return nil }
    for offset in 1..<length {
      let c = base[at + offset]
      guard c & 0xC0 == 0x80 else { return nil }
      scalar = scalar << 6 | UInt32(c & 0x3F)
    }
    switch length {
    case 3: if scalar < 0x800 || (scalar >= 0xD800 && scalar <= 0xDFFF) { return nil }
    case 4: if scalar < 0x10000 || scalar > 0x10FFFF { return nil }
    default: break
    }
    return length
  }

  // MARK: numbers

  /// Where the number at `position` ends, as jansson's lexer reads it,
  /// and whether it is a real (a fraction or an exponent); nil when the
  /// text there is not a number (or runs on into one of its characters).
  @inline(__always) private func numberEnd() -> (stop: Int, isReal: Bool, hasExponent: Bool)? {
    var index = position
    if index < end && base[index] == UInt8(ascii: "-") { index += 1 }
    guard index < end else { return nil }
    if base[index] == UInt8(ascii: "0") {
      index += 1
    } else if base[index] >= UInt8(ascii: "1") && base[index] <= UInt8(ascii: "9") {
      index = digitsEnd(index + 1)
    } else {
      return nil
    }
    var isReal = false
    var hasExponent = false
    if index < end && base[index] == UInt8(ascii: ".") {
      isReal = true
      index += 1
      let digits = index
      index = digitsEnd(index)
      guard index > digits else { return nil }
    }
    if index < end && (base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E")) {
      isReal = true
      hasExponent = true
      index += 1
      if index < end && (base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-")) { index += 1 }
      let digits = index
      index = digitsEnd(index)
      guard index > digits else { return nil }
    }
    // jansson's lexer reads a number up to a character that cannot continue it
    if index < end {
      let c = base[index]
      if (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: ".")
        || c == UInt8(ascii: "e")
        || c == UInt8(ascii: "E") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
      {
        return nil
      }
    }
    return (index, isReal, hasExponent)
  }

  /// The integer of the `stop - start` bytes at `start` (an optional sign
  /// and digits), or nil when it does not fit 64 bits.
  @inline(__always) private func integerValue(_ start: Int, _ stop: Int) -> Int64? {
    let negative = base[start] == UInt8(ascii: "-")
    let digits = stop - start - (negative ? 1 : 0)
    // 19 digits or fewer: their magnitude fits in 64 unsigned bits
    guard digits <= 19 else { return nil }
    let magnitude = Self.decimal(base + stop - digits, digits)
    guard magnitude <= UInt64(Int64.max) + (negative ? 1 : 0) else { return nil }
    return negative ? Int64(bitPattern: 0 &- magnitude) : Int64(bitPattern: magnitude)
  }

  /// The real of the `stop - start` bytes at `start`, read by strtod on a
  /// NUL-terminated copy as jansson reads it (on the stack: no allocation).
  private func realValue(_ start: Int, _ stop: Int) -> Double {
    let length = stop - start
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { text -> Double in
      guard let copy = text.baseAddress else { return 0 }
      UnsafeMutableRawPointer(copy).copyMemory(from: base + start, byteCount: length)
      copy[length] = 0
      return strtod(copy, nil)
    }
  }

  /// A number as jansson reads it: an integer (no `.`, `e`, `E`) that must
  /// fit 64 bits, or a real that must not overflow. With `build` false only
  /// checks it (returning nil, `failed` set on a problem).
  private mutating func number(build: Bool) -> JPtr? {
    let start = position
    guard let (index, isReal, hasExponent) = numberEnd() else { return fail() }
    let length = index - start
    position = index
    if !isReal {
      // up to 18 digits always fit; longer ones are checked
      let digits = length - (base[start] == UInt8(ascii: "-") ? 1 : 0)
      // (with markers, a skipped integer of any size is valid JSON)
      if !build && (digits <= 18 || markers != nil) { return nil }
      guard let value = integerValue(start, index) else {
        return outOfRange(start, index, build: build, integer: true)
      }
      return build ? json_integer(value) : nil
    }
    if !build && (markers != nil || (!hasExponent && length < 300)) { return nil }
    let real = realValue(start, index)
    if real.isInfinite { return outOfRange(start, index, build: build, integer: false) }
    return build ? json_real(real) : nil
  }

  /// The integer at `position`, moved past, when jansson would read it as
  /// one (no fraction or exponent, within 64 bits); nil with `position`
  /// unchanged for anything else, which `value` then reads (or reports).
  /// No json_t is made: the caller keeps the value itself.
  @inline(__always) mutating func integer() -> Int64? {
    guard let (stop, isReal, _) = numberEnd(), !isReal, let value = integerValue(position, stop) else {
      return nil
    }
    position = stop
    return value
  }

  /// The real at `position`, moved past, when jansson would read it as one
  /// (a fraction or an exponent, finite); nil with `position` unchanged for
  /// anything else: an integer (the mapper makes a real of it) or an
  /// overflow (which `value` reports). No json_t is made.
  @inline(__always) mutating func real() -> Double? {
    guard let (stop, isReal, _) = numberEnd(), isReal else { return nil }
    let value = realValue(position, stop)
    guard value.isFinite else { return nil }
    position = stop
    return value
  }

  /// The value of the `count` (at most 19) ASCII digits at `digits`, eight
  /// at a time (each group of eight combined in three multiplications).
  @inline(__always) static func decimal(_ digits: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
    var value: UInt64 = 0
    var at = 0
    while count - at >= 8 {
      var word = UInt64(littleEndian: UnsafeRawPointer(digits + at).loadUnaligned(as: UInt64.self))
      // pairs, then fours, then the eight (the first digit is the lowest byte)
      word = ((word & 0x0F0F_0F0F_0F0F_0F0F) &* 2561) >> 8
      word = ((word & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
      word = ((word & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
      value = value &* 100_000_000 &+ word
      at += 8
    }
    while at < count {
      value = value &* 10 &+ UInt64(digits[at] &- UInt8(ascii: "0"))
      at += 1
    }
    return value
  }

  /// The index of the first byte at or after `from` that is not an ASCII
  /// digit, or `end`: eight bytes at a time.
  @inline(__always) private func digitsEnd(_ from: Int) -> Int {
    var index = from
    while index + 8 <= end {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      // digits become 0-9; adding 0x76 sets the high bit of every other byte
      // (a carry out of a byte only comes from one already flagged)
      let offset = word ^ 0x3030_3030_3030_3030
      let mask = ((offset &+ 0x7676_7676_7676_7676) | offset) & 0x8080_8080_8080_8080
      if mask != 0 { return index + mask.trailingZeroBitCount >> 3 }
      index += 8
    }
    while index < end && base[index] >= UInt8(ascii: "0") && base[index] <= UInt8(ascii: "9") { index += 1 }
    return index
  }

  /// A number outside jansson's range at `start..<stop`: a stand-in noted in
  /// `markers` (nil and nothing built when only checking), or a failure
  /// when there are no markers.
  private mutating func outOfRange(_ start: Int, _ stop: Int, build: Bool, integer: Bool) -> JPtr? {
    guard let markers else { return fail() }
    guard build else { return nil }
    guard
      let value = markers.make(
        UnsafeBufferPointer(start: base + start, count: stop - start), integer: integer)
    else { return fail() }
    return value
  }
}

/// The open brackets of a value being skipped, innermost last: the first 64
/// levels as bits of one word (set for an object), deeper ones in an array.
struct BracketStack {
  private var bits: UInt64 = 0
  /// The brackets past the 64th; nil until there are any (most skipped
  /// values have none, and then nothing is released)
  private var deeper: [Bool]? = nil
  /// The number of open brackets.
  private(set) var count = 0

  /// Opens a bracket: `{` when `object`, else `[`.
  @inline(__always) mutating func push(_ object: Bool) {
    if count < 64 {
      let bit: UInt64 = 1 << UInt64(count)
      bits = object ? bits | bit : bits & ~bit
    } else {
      if deeper == nil { deeper = [] }
      deeper?.append(object)
    }
    count += 1
  }

  /// True when the innermost open bracket is `{` (count > 0).
  @inline(__always) var topIsObject: Bool {
    if count > 64 { return deeper?.last ?? false }
    guard count > 0 else { return false }
    return (bits >> UInt64(count - 1)) & 1 == 1
  }

  /// Closes the innermost bracket (count > 0).
  @inline(__always) mutating func pop() {
    guard count > 0 else { return }
    count -= 1
    if count >= 64 { _ = deeper?.popLast() }
  }
}
