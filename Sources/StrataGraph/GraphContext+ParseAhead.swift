import Strata

/// Parsing a long page on a second core while its elements are imported.
extension GraphContext {
  /// The `parseAheadBytes` of a new context: a text at least this long
  /// (bytes) is parsed on a helper thread, windows of elements ahead of the
  /// import (`Overlap`); a shorter one is parsed in place, element by
  /// element, where a thread would cost more than it saves.
  package static let parseAheadDefault = 256 << 10

  /// The elements handed over at a time when nothing is read ahead: few,
  /// so that an element is imported while it is still in the caches the
  /// two cores share.
  static let parseWindow = 32

  /// The elements of the array `bytes` holds (at `root`) as
  /// `PrunedParser.forEachElement` parses them, sent to `channel` in windows of `windows` elements
  /// (`GraphStore.prefetchChunk` when the import reads the records of each
  /// window ahead, `parseWindow` otherwise). Ends early, answering false,
  /// when the consumer stops; an element not sent is released here.
  static func parseWindows(
    _ bytes: UnsafeBufferPointer<UInt8>, _ want: Want, root: [[UInt8]], interning: Bool, windows: Int,
    into channel: Overlap.Channel<JPtr>
  ) -> Bool? {
    var window: [JPtr] = []
    window.reserveCapacity(windows)
    let streamed = PrunedParser.forEachElement(bytes, want, root: root, interning: interning) { element, _ in
      window.append(element)
      guard window.count == windows else { return true }
      let sent = channel.send(window)
      if !sent { for held in window { JValue.release(held) } }
      window = []
      window.reserveCapacity(windows)
      return sent
    }
    guard streamed == true else {
      for held in window { JValue.release(held) }
      return streamed
    }
    if window.isEmpty || channel.send(window) { return true }
    for held in window { JValue.release(held) }
    return false
  }
}
