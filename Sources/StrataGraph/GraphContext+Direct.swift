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
  )
    -> [GraphRecord]?
  {
    var records: [GraphRecord] = []
    var failed = false
    let schema = self.schema
    let read: Bool
    if !root.isEmpty {
      // records under a root: read whole first (`DirectReader.response`), then imported
      guard let found = DirectReader.response(bytes, type, root: root, meta: nil, in: schema, records: true)
      else { return nil }
      for object in found.records {
        guard let record = importer.importModel(object, parent: nil) else { return nil }
        records.append(record)
      }
      read = true
    } else if bytes.count >= parseAheadBytes {
      read =
        Overlap.run(
          depth: 8,
          produce: { (channel: Overlap.Channel<ModelObject>) -> Bool in
            var window: [ModelObject] = []
            window.reserveCapacity(Self.parseWindow)
            let all = DirectReader.forEachRecord(bytes, type, in: schema) { object in
              window.append(object)
              guard window.count == Self.parseWindow else { return true }
              let sent = channel.send(window)
              window = []
              window.reserveCapacity(Self.parseWindow)
              return sent
            }
            return all && (window.isEmpty || channel.send(window))
          },
          consume: { window in
            for object in window {
              guard let record = importer.importModel(object, parent: nil) else {
                failed = true
                return false
              }
              records.append(record)
            }
            return true
          },
          drop: { _ in }) ?? false
    } else {
      read = DirectReader.forEachRecord(bytes, type, in: schema) { object in
        guard let record = importer.importModel(object, parent: nil) else {
          failed = true
          return false
        }
        records.append(record)
        return true
      }
    }
    guard read, !failed, !importer.directFailed, importer.mapper.errors.isEmpty else { return nil }
    return records
  }
}
