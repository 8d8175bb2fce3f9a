import CJansson
import Strata

/// Queries (docs/graph.md#queries): the records a `where` selects, in the
/// order `order_by` gives (ties by key), `offset` and `limit` applied.
extension GraphContext {
  /// The records of `model` (and its subtypes) the query (borrowed: a
  /// query object; nil or null: all) selects, in its order.
  package func query(_ model: String, _ query: JPtr?) -> Result<[ModelObject], StrataError> {
    locked { () -> Result<[ModelObject], StrataError> in
      prepare(model, query).flatMap { read in
        Result { () throws(StrataError) in try objects(read) }
      }
    }
  }

  /// The number of records the query selects (`offset` and `limit` applied).
  package func queryCount(_ model: String, _ query: JPtr?) -> Result<Int, StrataError> {
    locked { () -> Result<Int, StrataError> in
      prepare(model, query).flatMap { read in
        Result { () throws(StrataError) in
          if !memory.complete, let store, let keys = try keysBySQL(read, store) { return keys.count }
          return try run(read).count
        }
      }
    }
  }

  /// The query read against the model, or its errors.
  private func prepare(_ model: String, _ query: JPtr?) -> Result<GraphQuery, StrataError> {
    recordType(model).flatMap { type in
      var reader = QueryReader(schema: schema) { key, target in self.readKey(key, target) }
      guard let read = reader.read(query, type) else { return .failure(StrataError(reader.errors)) }
      return .success(read)
    }
  }

  /// The objects of the records the query selects.
  private func objects(_ query: GraphQuery) throws(StrataError) -> [ModelObject] {
    try run(query).map(\.shownState.object)
  }

  /// The query as SQL over the file's tables, selecting the records' whole
  /// rows or their keys alone; nil when it must run in memory.
  private func compiled(_ query: GraphQuery, _ store: GraphStore, rows: Bool) -> (
    sql: String, parameters: [SQLCell], table: TableLayout.Table
  )? {
    guard store.fileFormat == GraphStore.format, store.hasOwnLayout else { return nil }
    var compiler = QuerySQL(schema: schema, layout: store.layout, dialect: store.dialect)
    compiler.selectsRows = rows
    guard let sql = compiler.compile(query),
      let table = store.layout.table(schema.models[query.type.keyRoot].name)
    else { return nil }
    return (sql, compiler.parameters, table)
  }

  /// The keys of the records the query selects, in order, by SQL; nil when
  /// the query must run in memory.
  private func keysBySQL(_ query: GraphQuery, _ store: GraphStore) throws(StrataError) -> [RecordKey]? {
    guard let (sql, parameters, table) = compiled(query, store, rows: false) else { return nil }
    memory.startReading()
    return try store.connection.withStatement(sql) { (statement) throws(StrataError) -> [RecordKey] in
      try statement.bind(1, cells: parameters)
      return try RecordRows.keys(statement, of: table)
    }
  }

  /// The records the query selects, in order: by SQL over the file's
  /// tables when the context has a file in this schema's tables (reading
  /// the selected rows, unless memory holds every record), else over the
  /// records in memory (the same answers: GraphQuery+SQL.swift).
  private func run(_ query: GraphQuery) throws(StrataError) -> [GraphRecord] {
    guard let store else { return runInMemory(query) }
    if !memory.complete {
      guard let (sql, parameters, table) = compiled(query, store, rows: true) else {
        _ = try memory.readAll(query.type.keyRoot)
        return runInMemory(query)
      }
      return try read(query.type.keyRoot, sql, parameters, table, store)
    }
    guard let keys = try keysBySQL(query, store) else { return runInMemory(query) }
    var found: [GraphRecord] = []
    found.reserveCapacity(keys.count)
    for key in keys {
      guard let record = memory.record(query.type.keyRoot, key) else {
        throw StrataError(code: .io, message: "the graph file changed while it was read")
      }
      found.append(record)
    }
    return found
  }

  /// The records of key space `root` whose whole rows `sql` selects, in
  /// order: a record the cache does not hold is filled from its row
  /// (`GraphMemory.prefetched`) instead of being read again by key; of a
  /// record it holds, the key alone is read.
  private func read(
    _ root: Int, _ sql: String, _ parameters: [SQLCell], _ table: TableLayout.Table, _ store: GraphStore
  ) throws(StrataError) -> [GraphRecord] {
    memory.startReading()
    let memory = self.memory
    let rows = try store.storedRows(
      selectedBy: sql, parameters: parameters, in: table, schema: schema,
      needs: { key in memory.index.record(root, key)?.isFault ?? true })
    // each row goes to its record's fill alone (`handOver`); a row left
    // over (a row met twice) is released by the next handover or at the end
    var left = rows.makeIterator()
    defer {
      while let (_, row) = left.next() { row?.release() }
      memory.dropPrefetched()
    }
    var found: [GraphRecord] = []
    found.reserveCapacity(rows.count)
    while let (key, row) = left.next() {
      if let stored = row { memory.handOver(root, key, stored) }
      guard let record = memory.record(root, key) else {
        throw StrataError(code: .io, message: "the graph file changed while it was read")
      }
      if record.isFault { memory.fill(record) }  // a fault the cache held: filled from its row now
      found.append(record)
    }
    return found
  }

  /// The records the query selects, in order, from the records in memory.
  private func runInMemory(_ query: GraphQuery) -> [GraphRecord] {
    var selected = (memory.index[query.type.keyRoot] ?? [:]).values.filter { record in
      record.lazyState.model.isSelfOrDescendant(of: query.type) && (query.stubs || !record.lazyState.isStub)
        && (query.condition.map { QueryEvaluation.holds($0, record) } ?? true)
    }
    if query.order.isEmpty {
      selected.sort { $0.key < $1.key }
    } else {
      let keys = selected.map { record in
        query.order.map { QueryEvaluation.values(of: $0.path, from: record).first ?? .null }
      }
      let positions = selected.indices.sorted { a, b in
        for (position, order) in query.order.enumerated() {
          let compared = QueryValue.orders(keys[a][position], before: keys[b][position])
          if compared != 0 { return order.descending ? compared > 0 : compared < 0 }
        }
        return selected[a].key < selected[b].key
      }
      selected = positions.map { selected[$0] }
    }
    let start = min(query.offset, selected.count)
    let end = query.limit.map { start + min($0, selected.count - start) } ?? selected.count
    return Array(selected[start..<end])
  }
}

/// A query's condition and paths evaluated on the records in memory.
enum QueryEvaluation {
  /// True when `record` meets `condition`.
  static func holds(_ condition: QueryCondition, _ record: GraphRecord) -> Bool {
    switch condition {
    case .all(let parts): return parts.allSatisfy { holds($0, record) }
    case .any(let parts): return parts.contains { holds($0, record) }
    case .not(let part): return !holds(part, record)
    case .test(let path, let test): return values(of: path, from: record).contains { test.holds($0) }
    }
  }

  /// The values `path` reaches from `record`: through a to-one relationship
  /// that is empty, null; through a to-many one, one value per record it
  /// holds (none for an empty list); a list property, one per element.
  static func values(of path: QueryPath, from record: GraphRecord) -> [QueryValue] {
    var reached: [GraphRecord?] = [record]
    for hop in path.hops {
      var next: [GraphRecord?] = []
      for current in reached {
        guard let current, let index = current.state.model.propertyIndex[hop],
          index < current.state.links.count
        else {
          next.append(nil)
          continue
        }
        switch current.state.links[index] {
        case .one(let target): next.append(target)
        case .many(let list): next.append(contentsOf: list.items.lazy.map { Optional($0) })
        case .absent, .null:
          if current.state.model.properties[index].relation?.toMany != true { next.append(nil) }
        }
      }
      reached = next
    }
    var out: [QueryValue] = []
    for current in reached {
      guard let current, let index = current.state.model.propertyIndex[path.property],
        index < current.state.model.properties.count
      else {
        out.append(.null)
        continue
      }
      if current.state.model.properties[index].relation != nil {
        switch index < current.state.links.count ? current.state.links[index] : .absent {
        case .one(let target): out.append(.key(target.key))
        case .many(let list): out.append(contentsOf: list.items.lazy.map { .key($0.key) })
        case .absent, .null: out.append(.null)
        }
        continue
      }
      let slots = current.state.object.slots
      guard index < slots.count else {
        out.append(.null)
        continue
      }
      switch slots[index] {
      case .absent, .null: out.append(.null)
      case .leaf(let value):
        if JValue.isArray(value) {
          for position in 0..<json_array_size(value) {
            if let element = json_array_get(value, position) { out.append(QueryValue(element, path.kind)) }
          }
        } else {
          out.append(QueryValue(value, path.kind))
        }
      case .list(let elements):
        // an array kept element by element: each element, as for a jansson array
        for element in elements { out.append(QueryValue(leaf: element, path.kind)) }
      case .integer, .real, .text: out.append(QueryValue(leaf: slots[index], path.kind))
      case .model, .array, .dict: out.append(.other)
      }
    }
    return out
  }
}
