import Strata

/// Importing a bare array of records straight from its bytes: the byte
/// reader makes each element's partial model (`DirectReader.forEachRecord`),
/// and the importer makes records of the models (`GraphImporter.importModel`),
/// with no jansson tree and no mapper in between (docs/graph.md, "How an
/// import reads its input").
extension GraphContext {
  /// The records of `type` in `bytes` (a bare array, or a response with
  /// them at `root`) imported into
  /// `importer`'s transaction from their models; nil when the text holds
  /// anything this path leaves to the mapper's (an error among them): the
  /// caller then drops `importer` and imports the text that way. A text of
  /// `parseAheadBytes` or more is read on a helper thread, windows of
  /// models ahead of their import (`Overlap`).
  func importModels(
    _ importer: inout GraphImporter, _ bytes: UnsafeBufferPointer<UInt8>, _ type: ModelType, root: [Key]
  ) throws(StrataError)
    -> [GraphRecord]?
  {
    var records: [GraphRecord] = []
    var failed = false
    var failure: StrataError? = nil
    let schema = self.schema
    // a cache that does not hold the whole file reads the records of each
    // window ahead (`prefetch(models:)`), as the mapper's path does
    let readsAhead = !memory.complete && memory.store != nil
    let windowSize = readsAhead ? GraphStore.prefetchChunk : Self.parseWindow
    func importWindow(_ window: ArraySlice<ModelObject>) -> Bool {
      do throws(StrataError) {
        if readsAhead { try prefetch(models: window) }
      } catch {
        failure = error
        return false
      }
      for object in window {
        guard let record = importer.importModel(object, parent: nil) else {
          failed = true
          return false
        }
        records.append(record)
      }
      return true
    }
    let read: Bool
    if !root.isEmpty {
      // records under a root: read whole first (`DirectReader.response`), then imported
      guard let found = DirectReader.response(bytes, type, root: root, meta: nil, in: schema, records: true)
      else { return nil }
      var start = 0
      while start < found.records.count {
        let end = min(start + windowSize, found.records.count)
        guard importWindow(found.records[start..<end]) else { break }
        start = end
      }
      read = true
    } else if bytes.count >= parseAheadBytes {
      read =
        Overlap.run(
          depth: 8,
          produce: { (channel: Overlap.Channel<ModelObject>) -> Bool in
            var window: [ModelObject] = []
            window.reserveCapacity(windowSize)
            let all = DirectReader.forEachRecord(bytes, type, in: schema) { object in
              window.append(object)
              guard window.count == windowSize else { return true }
              let sent = channel.send(window)
              window = []
              window.reserveCapacity(windowSize)
              return sent
            }
            return all && (window.isEmpty || channel.send(window))
          },
          consume: { window in importWindow(window[...]) },
          drop: { _ in }) ?? false
    } else {
      var window: [ModelObject] = []
      read =
        DirectReader.forEachRecord(bytes, type, in: schema) { object in
          window.append(object)
          guard window.count == windowSize else { return true }
          defer { window.removeAll(keepingCapacity: true) }
          return importWindow(window[...])
        } && importWindow(window[...])
    }
    if let failure { throw failure }
    guard read, !failed, !importer.directFailed, importer.mapper.errors.isEmpty else { return nil }
    return records
  }
}
