import CJansson

/// What one line of JSON lines maps to.
package enum LineOutcome {
  /// The line's model.
  case model(ModelObject, line: Int)
  /// Every error of the line, each carrying `line`.
  case failure(StrataError, line: Int)
}

/// The engine of JSON lines (docs/lines.md), push style: bytes go in with
/// `feed` in chunks of any size, `finish` ends the input, and each line's
/// outcome comes out through a closure, in order. Every line is parsed by
/// the schema-directed byte parser (jansson for anything unusual) and mapped
/// as `Schema.mapValue` maps one value, so a line gives
/// what mapping it alone gives, with `line` set on its errors. Memory stays
/// bounded by the longest line (at most the limit) whatever the input's size.
package final class LineMapping {
  /// The schema the lines are mapped with.
  package let schema: Schema
  let type: ModelType
  /// What the byte parser builds of each line (the schema's parse plan of the model).
  let plan: ObjectWant
  /// The schema's direct plans, fetched once for every line.
  let directPlans: ContiguousArray<DirectPlan?>
  /// The keys met in earlier lines (`KeyMemo`): the lines of a file
  /// repeat their keys in the same order.
  let memos = KeyMemos()
  /// Where the lines' strings go (`TextLeaf`): the lines' models share its chunks.
  let texts = TextWriter()
  var splitter: LineSplitter

  /// A mapping onto the model named `model`, refusing lines longer than
  /// `limit` bytes; an unknown model is an `argument` error.
  package init(schema: Schema, model: String, limit: Int = LineSplitter.defaultLimit) throws(StrataError) {
    self.schema = schema
    self.type = try schema.modelType(model).get()
    self.plan = schema.parsePlans.plan(type, in: schema)
    self.directPlans = schema.parsePlans.directPlans(in: schema)
    self.splitter = LineSplitter(limit: limit)
  }

  /// The number of the last line completed (0 before the first).
  package var line: Int { splitter.line }

  /// Splits and maps `bytes`; returns false as soon as `deliver` does.
  package func feed(_ bytes: UnsafeRawBufferPointer, _ deliver: (LineOutcome) -> Bool) -> Bool {
    let limit = splitter.limit
    return splitter.feed(
      bytes,
      quick: { [self] rest, line in
        // A record read straight into a model, its end found as it is read
        // (no search for the newline first); anything else is declined.
        guard
          let (object, length) = DirectReader.line(
            rest, type, in: schema, plans: directPlans, memos: memos, texts: texts, limit: limit)
        else { return .declined }
        return .read(length: length, going: deliver(.model(object, line: line)))
      }
    ) { event in deliver(self.map(event)) }
  }

  /// Ends the input (maps a last line without "\n"); returns false if `deliver` did.
  package func finish(_ deliver: (LineOutcome) -> Bool) -> Bool {
    splitter.finish { event in deliver(self.map(event)) }
  }

  /// Maps one complete line (an element of a sequence of lines; one
  /// trailing "\n" and "\r" are removed, a blank one is skipped).
  package func single(_ bytes: UnsafeBufferPointer<UInt8>, _ deliver: (LineOutcome) -> Bool) -> Bool {
    splitter.single(bytes) { event in deliver(self.map(event)) }
  }

  private func map(_ event: LineEvent) -> LineOutcome {
    switch event {
    case .tooLong(let line, let limit):
      let detail = ErrorDetail(
        path: "", code: .syntax, message: "the line is longer than the limit of \(limit) bytes; skipped",
        line: line)
      return .failure(StrataError([detail]), line: line)
    case .text(let line, let bytes):
      // Straight into model storage; any error maps the line again below.
      if let object = DirectReader.one(
        bytes, type, in: schema, plans: directPlans, memos: memos, texts: texts)
      {
        return .model(object, line: line)
      }
      // The byte parser builds only what the model reads; it gives up on
      // anything unusual, and jansson then gives the exact answer.
      if let answer = schema.mapPruned(
        bytes, .object(PlanRef(plan: plan)),
        { [type] mapper, value in
          mapper.mapRoot(value, type: type)
        })
      {
        switch answer {
        case .success(let object): return .model(object, line: line)
        case .failure(let failure): return .failure(Self.numbered(failure, line), line: line)
        }
      }
      let value: JPtr
      switch JSONText.parse(bytes) {
      case .success(let parsed): value = parsed
      case .failure(let failure):
        // The text is one line: jansson's "line 1" says nothing.
        var details = failure.errors
        for index in details.indices {
          details[index].message = Self.columnOnly(details[index].message)
        }
        return .failure(Self.numbered(StrataError(details), line), line: line)
      }
      defer { JValue.release(value) }
      var mapper = Mapper(schema: schema, mode: .json)
      if let object = mapper.mapRoot(value, type: type), mapper.errors.isEmpty {
        return .model(object, line: line)
      }
      return .failure(Self.numbered(StrataError(mapper.errors), line), line: line)
    }
  }

  /// "invalid JSON at line 1, column 5 (byte 4): ..." as "invalid JSON at
  /// column 5 (byte 4): ..." (the byte offset is already within the line).
  static func columnOnly(_ message: String) -> String {
    let prefix = "invalid JSON at line 1, column "
    guard message.hasPrefix(prefix) else { return message }
    return "invalid JSON at column " + message.dropFirst(prefix.count)
  }

  /// The errors with `line` set on each.
  static func numbered(_ failure: StrataError, _ line: Int) -> StrataError {
    StrataError(
      failure.errors.map { detail in
        var numbered = detail
        numbered.line = line
        return numbered
      })
  }
}
