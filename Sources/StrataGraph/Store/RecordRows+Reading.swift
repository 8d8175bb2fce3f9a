import CJansson
import CSQLite
import Strata

/// Rows back to records: a row's cells (and its link rows' keys) as the
/// record's stored body, or as its values by property index for the
/// mapper (`Stored`), with what `strata_extra` kept (RecordRows.swift).
extension RecordRows {
  /// What a row's `strata_extra` cell holds: the names of the properties
  /// the record lacks, and the values kept there (`kept`, borrowed from
  /// `parsed`); `parsed` is the whole object, a new reference the caller
  /// releases (nil when the cell is NULL).
  private static func extra(_ cell: SQLCell, of modelName: String) throws(StrataError) -> (
    absent: Set<String>, kept: JPtr?, parsed: JPtr?
  ) {
    guard case .text(let text) = cell else { return ([], nil, nil) }
    guard case .success(let parsed) = JSONText.parseBytes(text), JValue.isObject(parsed) else {
      throw damaged("the strata_extra of a '\(modelName)' row is not a JSON object")
    }
    var absent: Set<String> = []
    if let list = json_object_get(parsed, "absent"), JValue.isArray(list) {
      for index in 0..<json_array_size(list) {
        if let name = json_array_get(list, index), JValue.isString(name) {
          absent.insert(JValue.string(name))
        }
      }
    }
    var kept: JPtr? = nil
    if let object = json_object_get(parsed, "values"), JValue.isObject(object) { kept = object }
    return (absent, kept, parsed)
  }

  /// A row read back as its record's canonical values by property index,
  /// for `Mapper.canonicalModel` (what `body` gives as an object, without
  /// the object).
  struct Stored {
    /// The record's model.
    var type: ModelType
    /// True for a stub.
    var stub: Bool
    /// Each property's value by the model's property index (owned
    /// references; nil where the record has none).
    var values: [JPtr?]
    /// The unknown keys kept with the record (owned), or nil.
    var unknown: JPtr?
    /// The properties the row says the record holds no value for (its
    /// `absent` list, by property index): absent when read back, where a
    /// property merely missing from the row takes its default.
    var absent: [Int] = []
    /// The to-many lists given as their targets' keys, by property index:
    /// their values hold an empty list, which the mapper checks for the
    /// property (the keys were checked against the target's key columns as
    /// they were read, and a list no rule looks at needs no more), so that
    /// no key is made into JSON and read back from it.
    var lists: [(index: Int, keys: [RecordKey])] = []

    /// Drops the references held.
    func release() {
      for value in values { if let value { JValue.release(value) } }
      if let unknown { JValue.release(unknown) }
    }
  }

  /// A row read back as its record's values by property index: `cells` are
  /// the row's columns in table order, `links` the targets' keys of each
  /// to-many property (by name), `plan` the model a row names (its
  /// `strata_type` cell) with where its properties are in the table (nil
  /// for a model the schema lacks or the table does not hold).
  static func stored(
    _ table: Layout.Table, in layout: Layout, plan: (String) -> (ModelType, Plan)?, key: RecordKey,
    cells: [SQLCell], links: LinkLists, toOneParts: [[Layout.KeyPart]?]? = nil
  ) throws(StrataError) -> Stored {
    try stored(table, in: layout, plan: plan, key: key, row: cells, links: links, toOneParts: toOneParts)
  }

  /// `stored` of the current row of `statement`, its cells read where they
  /// are: text made into jansson strings from SQLite's bytes, with no
  /// array of cells or Swift string between (a cold `get`).
  static func stored(
    _ table: Layout.Table, in layout: Layout, plan: (String) -> (ModelType, Plan)?, key: RecordKey,
    statement: any StoreStatement, links: LinkLists, toOneParts: [[Layout.KeyPart]?]? = nil
  ) throws(StrataError) -> Stored {
    try stored(
      table, in: layout, plan: plan, key: key, row: StatementRow(statement: statement), links: links,
      toOneParts: toOneParts)
  }

  /// `stored`, its row's cells read from `cells`. `toOneParts`, when given,
  /// holds for each property of the table the key parts of the table its
  /// to-one relationship refers to (`StoreStatements.Reading.toOneParts`),
  /// else they are looked up by name.
  private static func stored<Row: RowCells>(
    _ table: Layout.Table, in layout: Layout, plan: (String) -> (ModelType, Plan)?, key: RecordKey,
    row cells: Row, links: LinkLists, toOneParts: [[Layout.KeyPart]?]?
  ) throws(StrataError) -> Stored {
    let base = table.keyColumns.count
    guard cells.count == base + 3 + table.properties.reduce(0, { $0 + $1.columns.count }) else {
      throw damaged("a row of '\(table.name)' has no model")
    }
    // a table of one model: its name compared with the cell's bytes, not made again
    let modelName: String
    if table.models.count == 1, cells.text(base, is: table.models[0].name) {
      modelName = table.models[0].name
    } else {
      guard case .text(let named) = cells[base] else {
        throw damaged("a row of '\(table.name)' has no model")
      }
      modelName = named
    }
    guard let (type, plan) = plan(modelName) else {
      throw damaged("a row of '\(table.name)' is of the model '\(modelName)', which the table does not hold")
    }
    var isStub = false
    if case .integer(let stub) = cells[base + 1], stub != 0 { isStub = true }
    var stored = Stored(
      type: type, stub: isStub, values: .filled(with: nil, count: type.properties.count), unknown: nil)
    var done = false
    defer { if !done { stored.release() } }
    func what(_ name: String) -> String { "the column '\(name)' of the '\(modelName)' record \(key)" }
    func set(_ index: Int, _ name: String, _ value: JPtr) throws(StrataError) {
      guard index >= 0 && index < stored.values.count else {
        JValue.release(value)
        throw damaged(
          "the '\(modelName)' record \(key) holds '\(name)', which is not a property of its model")
      }
      if let old = stored.values[index] { JValue.release(old) }
      stored.values[index] = value
    }

    let (absent, kept, extraValue) = try extra(cells[base + 2], of: modelName)
    defer { if let extraValue { JValue.release(extraValue) } }
    stored.absent = absent.compactMap { type.propertyIndex[$0] }
    func isKept(_ name: String) -> Bool { kept.flatMap { json_object_get($0, name) } != nil }
    if case .composite(let parts) = key, table.keyProperties.count > 1 {
      for (name, part) in zip(table.keyProperties, parts) where !absent.contains(name) && !isKept(name) {
        if let value = part.makeJSON() { try set(type.propertyIndex[name] ?? -1, name, value) }
      }
    } else if table.keyProperties.count == 1, absent.isEmpty || !absent.contains(table.keyProperties[0]),
      !isKept(table.keyProperties[0]), let value = key.makeJSON()
    {
      // the plan's index of the key property (the type's own, looked up when the model does not own it)
      let index = plan.keys.first.flatMap { $0 } ?? type.propertyIndex[table.keyProperties[0]] ?? -1
      try set(index, table.keyProperties[0], value)
    }
    var offset = base + 3
    // the properties are read in place, not copied one by one (their names,
    // columns and storage retained and released: Benchmarks/README.md,
    // "A record read from its row")
    try table.properties.withUnsafeBufferPointer { (properties) throws(StrataError) in
      for position in properties.indices {
        let range = offset..<(offset + properties[position].columns.count)
        offset = range.upperBound
        guard let index = plan.columns[position] else { continue }
        let name = properties[position].name
        guard absent.isEmpty || !absent.contains(name), !isKept(name) else { continue }
        switch properties[position].storage {
        case .column(let kind):
          try set(index, name, try cells.value(range.lowerBound, kind: kind, what: what(name)))
        case .toOne(let target):
          let targetParts =
            toOneParts.flatMap { position < $0.count ? $0[position] : nil } ?? layout.keyParts(of: target)
          // one integer column: the cell read as it is (no cells made)
          if range.count == 1, let parts = targetParts, parts.count == 1, parts[0] == .value(.integer) {
            if cells.isNull(range.lowerBound) {
              try set(index, name, json_null())
              continue
            }
            if let id = cells.integer(range.lowerBound) {
              guard let made = RecordKey.int(id).makeJSON() else {
                throw StrataError(code: .oom, message: "out of memory")
              }
              try set(index, name, made)
              continue
            }
          }
          let keyCells = cells.slice(range)
          if keyCells.allSatisfy(\.isNull) {
            try set(index, name, json_null())
          } else {
            guard let parts = targetParts, let targetKey = Self.key(keyCells, parts: parts),
              let made = targetKey.makeJSON()
            else { throw damaged("\(what(name)) does not hold a key of '\(target)'") }
            try set(index, name, made)
          }
        case .toMany:
          guard let list = json_array() else { throw StrataError(code: .oom, message: "out of memory") }
          if index < type.properties.count && type.properties[index].rules == nil {
            try set(index, name, list)
            stored.lists.append((index, links[name] ?? []))
            continue
          }
          for target in links[name] ?? [] {
            _ = json_array_append_new(list, target.makeJSON() ?? json_null())
          }
          try set(index, name, list)
        }
      }
    }
    if let kept {
      var failure: StrataError? = nil
      forEachMember(kept) { name, value in
        guard failure == nil else { return }
        if name == "$unknown" {
          stored.unknown = JValue.retain(value)
        } else if name != "$type" {
          do throws(StrataError) {
            try set(type.propertyIndex[name] ?? -1, name, JValue.retain(value))
          } catch {
            failure = error
          }
        }
      }
      if let failure { throw failure }
    }
    done = true
    return stored
  }

  /// The stored body of a row read back (a new reference): `cells` are the
  /// row's columns in table order (key, `strata_type`, `strata_stub`,
  /// `strata_extra`, properties), `links` the targets' keys of each to-many
  /// property (by name; a missing one is empty).
  static func body(
    _ table: Layout.Table, in layout: Layout, key: RecordKey, cells: [SQLCell], links: LinkLists
  ) throws(StrataError) -> JPtr {
    let base = table.keyColumns.count
    guard cells.count == base + 3 + table.properties.reduce(0, { $0 + $1.columns.count }),
      case .text(let modelName) = cells[base]
    else { throw damaged("a row of '\(table.name)' has no model") }
    guard let model = table.models.first(where: { $0.name == modelName }) else {
      throw damaged("a row of '\(table.name)' is of the model '\(modelName)', which the table does not hold")
    }
    guard let body = json_object(), let values = json_object() else {
      throw StrataError(code: .oom, message: "out of memory")
    }
    JValue.setNew(body, "values", values)
    var done = false
    defer { if !done { JValue.release(body) } }
    JValue.setNew(body, "model", JValue.makeString(modelName) ?? json_null())
    if case .integer(let stub) = cells[base + 1], stub != 0 { JValue.setNew(body, "stub", json_true()) }
    if model.tagged { JValue.setNew(values, "$type", JValue.makeString(modelName) ?? json_null()) }

    let (absent, kept, extraValue) = try extra(cells[base + 2], of: modelName)
    defer { if let extraValue { JValue.release(extraValue) } }
    if !absent.isEmpty, let list = json_array() {
      // what the record holds no value for (`GraphLoading.mapStored` keeps it absent)
      for name in absent.sorted() { _ = json_array_append_new(list, JValue.makeString(name) ?? json_null()) }
      JValue.setNew(body, "absent", list)
    }
    let owned = model.owns
    if case .composite(let parts) = key, table.keyProperties.count > 1 {
      for (name, part) in zip(table.keyProperties, parts) where !absent.contains(name) {
        if let value = part.makeJSON() { JValue.setNew(values, name, value) }
      }
    } else if table.keyProperties.count == 1, !absent.contains(table.keyProperties[0]) {
      if let value = key.makeJSON() { JValue.setNew(values, table.keyProperties[0], value) }
    }
    var offset = base + 3
    for property in table.properties {
      let range = offset..<(offset + property.columns.count)
      offset = range.upperBound
      guard owned.contains(property.name), !absent.contains(property.name),
        kept.flatMap({ json_object_get($0, property.name) }) == nil
      else { continue }
      func what() -> String { "the column '\(property.name)' of the '\(modelName)' record \(key)" }
      switch property.storage {
      case .column(let kind):
        JValue.setNew(values, property.name, try value(cells[range.lowerBound], kind: kind, what: what()))
      case .toOne(let target):
        if cells[range].allSatisfy(\.isNull) {
          JValue.setNew(values, property.name, json_null())
        } else {
          guard let parts = layout.table(target)?.keyParts,
            let targetKey = Self.key(cells[range], parts: parts),
            let made = targetKey.makeJSON()
          else { throw damaged("\(what()) does not hold a key of '\(target)'") }
          JValue.setNew(values, property.name, made)
        }
      case .toMany:
        guard let list = json_array() else { throw StrataError(code: .oom, message: "out of memory") }
        for target in links[property.name] ?? [] {
          _ = json_array_append_new(list, target.makeJSON() ?? json_null())
        }
        JValue.setNew(values, property.name, list)
      }
    }
    if let kept {
      forEachMember(kept) { name, value in JValue.setNew(values, name, JValue.retain(value)) }
    }
    done = true
    return body
  }
}

/// The cells of one row, as `RecordRows.stored` reads them: from an array,
/// or from a statement's current row (`StatementRow`).
protocol RowCells {
  /// The number of cells.
  var count: Int { get }
  /// Cell `index`.
  subscript(_ index: Int) -> SQLCell { get }
  /// The cells in `range`.
  func slice(_ range: Range<Int>) -> ArraySlice<SQLCell>
  /// True when cell `index` is NULL.
  func isNull(_ index: Int) -> Bool
  /// Cell `index` when it holds an integer, else nil.
  func integer(_ index: Int) -> Int64?
  /// True when cell `index` is text of exactly the bytes of `name`.
  func text(_ index: Int, is name: String) -> Bool
  /// Cell `index` as the jansson value of a column of `kind` (a new reference).
  func value(_ index: Int, kind: TableLayout.ColumnKind, what: @autoclosure () -> String) throws(StrataError)
    -> JPtr
}

extension Array: RowCells where Element == SQLCell {
  func slice(_ range: Range<Int>) -> ArraySlice<SQLCell> { self[range] }

  func isNull(_ index: Int) -> Bool { self[index].isNull }

  func integer(_ index: Int) -> Int64? {
    if case .integer(let value) = self[index] { return value }
    return nil
  }

  func text(_ index: Int, is name: String) -> Bool {
    if case .text(let text) = self[index] { return text == name }
    return false
  }

  func value(_ index: Int, kind: TableLayout.ColumnKind, what: @autoclosure () -> String) throws(StrataError)
    -> JPtr
  {
    try RecordRows.value(self[index], kind: kind, what: what())
  }
}

/// The current row of a statement, read cell by cell where it is.
struct StatementRow: RowCells {
  /// The statement, stepped to the row.
  let statement: any StoreStatement

  var count: Int { Int(statement.columnCount) }

  subscript(_ index: Int) -> SQLCell { statement.cell(Int32(index)) }

  func slice(_ range: Range<Int>) -> ArraySlice<SQLCell> { range.map { self[$0] }[...] }

  func isNull(_ index: Int) -> Bool { statement.columnType(Int32(index)) == SQLITE_NULL }

  func integer(_ index: Int) -> Int64? {
    statement.columnType(Int32(index)) == SQLITE_INTEGER ? statement.int64(Int32(index)) : nil
  }

  func text(_ index: Int, is name: String) -> Bool {
    guard statement.columnType(Int32(index)) == SQLITE_TEXT else { return false }
    let found = try? statement.withText(Int32(index)) { (bytes) throws(StrataError) -> Bool in
      guard let bytes else { return false }
      return name.utf8.withContiguousStorageIfAvailable { expected in
        expected.count == bytes.count && expected.elementsEqual(bytes)
      } ?? name.utf8.elementsEqual(bytes)
    }
    return found ?? false
  }

  /// A text column's string made from SQLite's bytes (ASCII as it is,
  /// other text checked as UTF-8 by jansson; bytes that are not go the way
  /// of `cell`, which replaces them), a JSON column's value parsed from
  /// them; every other cell as `RecordRows.value` makes it.
  func value(_ index: Int, kind: TableLayout.ColumnKind, what: @autoclosure () -> String) throws(StrataError)
    -> JPtr
  {
    if kind == .text || kind == .json {
      let made = try statement.withText(Int32(index)) { (bytes) throws(StrataError) -> JPtr? in
        guard let bytes else { return nil }
        if kind == .json { return try RecordRows.json(JSONText.parseBytes(bytes), what: what()) }
        // ASCII needs no check (jansson's own goes a byte at a time)
        return bytes.withMemoryRebound(to: CChar.self) {
          Self.isASCII(bytes)
            ? json_stringn_nocheck($0.baseAddress, bytes.count) : json_stringn($0.baseAddress, bytes.count)
        }
      }
      if let made { return made }
    }
    return try RecordRows.value(self[index], kind: kind, what: what())
  }

  /// True when every byte is below 0x80, eight at a time.
  static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let raw = UnsafeRawPointer(base)
    var index = 0
    var high: UInt64 = 0
    while index + 32 <= bytes.count {
      high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      high |= raw.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
      high |= raw.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self)
      high |= raw.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self)
      if high & 0x8080_8080_8080_8080 != 0 { return false }
      index += 32
    }
    while index + 8 <= bytes.count {
      high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      index += 8
    }
    var last: UInt8 = 0
    while index < bytes.count {
      last |= base[index]
      index += 1
    }
    return high & 0x8080_8080_8080_8080 == 0 && last < 0x80
  }
}
