import CJansson
import Strata

/// Turns a record (its key and stored body, `{"model", "stub"?, "values"}`)
/// into the cells of its table's row and its link tables' rows, and back
/// (format 2, TableLayout).
///
/// Nothing is lost on the way: a property a record lacks is named in the
/// row's `strata_extra` (`{"absent": [...]}`), and a value its column cannot
/// hold (a to-many that is null, a value of another type than the column's)
/// is kept there as JSON (`{"values": {...}}`), its column NULL. A key
/// Strata made for a record that had none (`{"$id": N}`) is a blob of N's
/// 8 bytes, big-endian (so blobs order as the numbers), in the key's first
/// column (empty blobs in the others): no value of the schema's types is a
/// blob. On PostgreSQL, whose columns are typed, it is N in the key's
/// `strata_synthetic` column (0 for every other key) and the types' zeros in
/// the others (`TableLayout.KeyPart.synthetic`). A date is kept with nine
/// fraction digits (`DateColumn`).
enum RecordRows {
  typealias Layout = TableLayout

  /// A record as rows.
  struct Row {
    /// The cells of the key columns.
    var key: [SQLCell]
    /// The model (`strata_type`).
    var model: String
    /// True for a stub.
    var stub: Bool
    /// The JSON text of `strata_extra`, or nil.
    var extra: String?
    /// The cells of every property column of the table, in order.
    var columns: [Cell]
    /// For each to-many property of the table (in order), the position of
    /// the first target written and the targets' key cells from there, or
    /// nil when the record's model does not store it in the link table.
    var links: [(start: Int, targets: [[SQLCell]])?]
  }

  /// A cell of a row to write: a value, or text that a jansson string or a
  /// text leaf holds (borrowed from the record's object or body, which
  /// outlive the write: bound from its bytes, with no `String` made, and on
  /// SQLite not copied).
  enum Cell {
    case value(SQLCell)
    case string(JPtr)
    case text(TextLeaf)

    /// Binds the cell to parameter `index` of `statement`.
    @inline(__always)
    func bind(to statement: any StoreStatement, _ index: Int32) throws(StrataError) {
      switch self {
      case .value(let cell): try statement.bind(index, cell: cell)
      case .string(let value):
        let bytes = UnsafeRawPointer(json_string_value(value)).map {
          UnsafeBufferPointer(start: $0.assumingMemoryBound(to: UInt8.self), count: json_string_length(value))
        }
        try statement.bind(index, borrowedText: bytes ?? UnsafeBufferPointer(start: nil, count: 0))
      case .text(let text): try statement.bind(index, borrowedText: text.bytes)
      }
    }
  }

  // MARK: keys

  /// The cells of `key` in a key of `parts`, or nil when the key does not have that shape.
  static func cells(_ key: RecordKey, parts: [Layout.KeyPart]) -> [SQLCell]? {
    if parts.first == .synthetic {
      // PostgreSQL: the number in its own column, placeholders in the others
      let rest = Array(parts.dropFirst())
      if case .synthetic(let id) = key { return [.integer(id)] + rest.flatMap(placeholders) }
      return cells(key, parts: rest).map { [.integer(0)] + $0 }
    }
    if case .synthetic(let id) = key {
      let width = parts.reduce(0) { $0 + $1.width }
      return [syntheticCell(id)] + Array(repeating: .blob([]), count: max(width - 1, 0))
    }
    if parts.count == 1 { return cells(key, part: parts[0]) }
    guard case .composite(let keys) = key, keys.count == parts.count else { return nil }
    var out: [SQLCell] = []
    for (part, key) in zip(parts, keys) {
      guard let made = cells(key, part: part) else { return nil }
      out += made
    }
    return out
  }

  /// The cells a record with a key Strata made holds in the columns of
  /// `part` on PostgreSQL: the type's zero (the record is told by its
  /// `strata_synthetic` column).
  private static func placeholders(_ part: Layout.KeyPart) -> [SQLCell] {
    switch part {
    case .synthetic, .value(.integer), .value(.bool): return [.integer(0)]
    case .value(.real): return [.real(0)]
    case .value(.text), .value(.date), .value(.json): return [.text("")]
    case .key(let parts): return parts.flatMap(placeholders)
    }
  }

  /// The cell of a key Strata made: `id`'s 8 bytes, big-endian.
  static func syntheticCell(_ id: Int64) -> SQLCell {
    let bits = UInt64(bitPattern: id)
    return .blob((0..<8).reversed().map { UInt8(truncatingIfNeeded: bits >> (UInt64($0) * 8)) })
  }
  /// The id of a key Strata made, from its cell's bytes; nil for bytes of another length.
  static func syntheticID(_ bytes: [UInt8]) -> Int64? {
    guard bytes.count == 8 else { return nil }
    return Int64(bitPattern: bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
  }

  private static func cells(_ key: RecordKey, part: Layout.KeyPart) -> [SQLCell]? {
    switch (part, key) {
    case (.key(let parts), _): return cells(key, parts: parts)
    case (.synthetic, _): return nil
    case (.value(.integer), .int(let value)): return [.integer(value)]
    case (.value(.real), .double(let value)): return [.real(value)]
    case (.value(.bool), .bool(let value)): return [.integer(value ? 1 : 0)]
    case (.value(.text), .string(let value)): return [.text(value)]
    case (.value(.date), .string(let value)): return DateColumn.stored(value).map { [.text($0)] }
    case (.value(.json), _):
      guard let value = key.makeJSON() else { return nil }
      defer { JValue.release(value) }
      return (try? CanonicalJSON.text(value)).map { [.text($0)] }
    default: return nil
    }
  }

  /// The keys in the first columns of every row `statement` selects, in a
  /// key of `table` (its key columns); a row that does not hold one is an
  /// `io` error naming the table.
  static func keys(_ statement: any StoreStatement, of table: Layout.Table) throws(StrataError) -> [RecordKey]
  {
    var keys: [RecordKey] = []
    let width = Int32(table.keyColumns.count)
    while try statement.step() {
      let cells = (0..<width).map(statement.cell)
      guard let key = key(cells[...], parts: table.keyParts) else {
        throw damaged("a row of '\(table.name)' does not hold a key")
      }
      keys.append(key)
    }
    return keys
  }

  /// The key the cells hold in a key of `parts`; nil when they do not hold one.
  static func key(_ cells: ArraySlice<SQLCell>, parts: [Layout.KeyPart]) -> RecordKey? {
    guard let first = cells.first else { return nil }
    // the common key, one value in one column, read without the general
    // path's list of parts (an array made per key); a blob there is a key
    // Strata made, which the general path reads
    if parts.count == 1, case .value = parts[0] {
      switch first {
      case .blob: break
      default: return key(cells.prefix(1), part: parts[0])
      }
    }
    if parts.first == .synthetic {
      guard case .integer(let id) = first else { return nil }
      return id != 0 ? .synthetic(id) : key(cells.dropFirst(), parts: Array(parts.dropFirst()))
    }
    let width = parts.reduce(0) { $0 + $1.width }
    if case .blob(let bytes) = first, let id = syntheticID(bytes) {
      let second = cells.dropFirst().first
      if width == 1 || second == .blob([]) { return .synthetic(id) }
    }
    var keys: [RecordKey] = []
    var offset = cells.startIndex
    for part in parts {
      let end = offset + part.width
      guard end <= cells.endIndex, let key = key(cells[offset..<end], part: part) else { return nil }
      keys.append(key)
      offset = end
    }
    return keys.count == 1 ? keys[0] : .composite(keys)
  }

  private static func key(_ cells: ArraySlice<SQLCell>, part: Layout.KeyPart) -> RecordKey? {
    switch (part, cells.first ?? .null) {
    case (.key(let parts), _): return key(cells, parts: parts)
    case (.synthetic, _): return nil
    case (.value(.integer), .integer(let value)): return .int(value)
    case (.value(.real), .real(let value)): return .double(value)
    case (.value(.real), .integer(let value)): return .double(Double(value))
    case (.value(.bool), .integer(let value)): return .bool(value != 0)
    case (.value(.text), .text(let value)): return .string(value)
    case (.value(.date), .text(let value)): return .string(DateColumn.canonical(value))
    case (.value(.json), .text(let text)):
      guard case .success(let value) = JSONText.parseBytes(text) else { return nil }
      defer { JValue.release(value) }
      return RecordKey(json: value)
    default: return nil
    }
  }

  // MARK: values

  /// The cell of a property value in a column of `kind`, or nil when the
  /// column cannot hold it.
  static func cell(_ value: JPtr, kind: Layout.ColumnKind) -> SQLCell? {
    switch (kind, value.pointee.type) {
    case (_, JSON_NULL): return .null
    case (.integer, JSON_INTEGER): return .integer(Int64(json_integer_value(value)))
    case (.real, JSON_REAL): return .real(json_real_value(value))
    case (.bool, JSON_TRUE): return .integer(1)
    case (.bool, JSON_FALSE): return .integer(0)
    case (.text, JSON_STRING): return .text(JValue.string(value))
    case (.date, JSON_STRING): return DateColumn.stored(JValue.string(value)).map(SQLCell.text)
    case (.json, _): return (try? CanonicalJSON.text(value, sortKeys: false)).map(SQLCell.text)
    default: return nil
    }
  }

  /// The value a column of `kind` holds (a new reference).
  static func value(_ cell: SQLCell, kind: Layout.ColumnKind, what: @autoclosure () -> String)
    throws(StrataError)
    -> JPtr
  {
    let made: JPtr?
    switch (kind, cell) {
    case (_, .null): made = json_null()
    case (.integer, .integer(let value)): made = json_integer(json_int_t(value))
    case (.real, .real(let value)): made = json_real(value)
    case (.real, .integer(let value)): made = json_real(Double(value))
    case (.bool, .integer(let value)): made = value != 0 ? json_true() : json_false()
    case (.text, .text(let text)): made = JValue.makeString(text)
    case (.date, .text(let text)): made = JValue.makeString(DateColumn.canonical(text))
    case (.json, .text(let text)): made = try json(JSONText.parseBytes(text), what: what())
    default: throw damaged("\(what()) holds \(cell), not \(kind.rawValue)")
    }
    guard let made else { throw StrataError(code: .oom, message: "out of memory reading \(what())") }
    return made
  }

  /// The value a JSON column's text parsed to (a new reference); text that
  /// is not JSON means the file was changed behind the store's back.
  static func json(_ parsed: Result<JPtr, StrataError>, what: @autoclosure () -> String) throws(StrataError)
    -> JPtr
  {
    switch parsed {
    case .success(let value): return value
    case .failure(let error): throw damaged("\(what()) is not JSON: \(error.description)")
    }
  }

  /// The cell of a property value in a column of `kind` for writing (text
  /// borrowed from `value`), or nil when the column cannot hold it.
  @inline(__always)
  static func rowCell(_ value: JPtr, kind: Layout.ColumnKind) -> Cell? {
    if kind == .text && value.pointee.type == JSON_STRING { return .string(value) }
    return cell(value, kind: kind).map(Cell.value)
  }

  // MARK: records to rows

  /// The rows of the record of `key` whose stored body is `body`, in `table`
  /// of `layout`. A body of a model the table does not hold, or a key that
  /// does not fit the table's key, is an `argument` error. `keptLinks`:
  /// for to-many properties, how many first targets the file holds already;
  /// the body's list holds the rest, which are made into rows from there.
  static func row(
    _ table: Layout.Table, in layout: Layout, key: RecordKey, body: JPtr, keptLinks: [String: Int] = [:]
  ) throws(StrataError) -> Row {
    guard JValue.isObject(body), let modelValue = json_object_get(body, "model"), JValue.isString(modelValue),
      let values = json_object_get(body, "values"), JValue.isObject(values)
    else { throw StrataError(code: .argument, message: "a stored record needs a model and values") }
    let stub = json_object_get(body, "stub").map { $0.pointee.type == JSON_TRUE } ?? false
    return try row(
      table, in: layout, key: key, modelName: JValue.string(modelValue), stub: stub,
      value: { json_object_get(values, $0) }, members: { body in forEachMember(values, body) },
      keptLinks: keptLinks)
  }

  /// The rows of a record whose committed object is `object` (what `row`
  /// makes of the body `GraphCommit.body` gives it, without making the
  /// body): the values are the object's canonical values, except the
  /// to-many lists named in `lists`, whose keys (borrowed) are given there
  /// from the first one to write on. `plan` is the object's model's plan in `table`.
  static func row(
    _ table: Layout.Table, in layout: Layout, plan: Plan, key: RecordKey, object: ModelObject, stub: Bool,
    lists: [String: [JPtr]], keptLinks: [String: Int]
  ) throws(StrataError) -> Row {
    let type = object.type
    var made: [JPtr] = []
    defer { for value in made { JValue.release(value) } }
    func value(at index: Int) -> JPtr? {
      guard index >= 0 && index < object.slots.count else { return nil }
      var canonical: JPtr?
      // only a to-many property's list is given apart (looked up by name)
      if !lists.isEmpty, index < plan.toManyNames.count, let name = plan.toManyNames[index],
        let keys = lists[name]
      {
        canonical = json_array()
        if let list = canonical {
          for key in keys { _ = json_array_append_new(list, JValue.retain(key)) }
        }
      } else if case .leaf(let leaf) = object.slots[index] {
        // its own canonical value, held by the object (which outlives the write)
        return leaf
      } else {
        canonical = Serializer.canonical(object.slots[index], archive: true)
      }
      if let canonical { made.append(canonical) }
      return canonical
    }
    guard let keyCells = cells(key, parts: table.keyParts) else {
      throw StrataError(
        code: .argument, message: "the key \(key) does not fit the key columns of '\(table.name)'")
    }
    var absent: [String] = []
    var kept: [(String, JPtr)] = []
    var columns: [Cell] = []
    columns.reserveCapacity(plan.columnCount)
    var links: [(start: Int, targets: [[SQLCell]])?] = []
    for (position, name) in table.keyProperties.enumerated() {
      if let index = plan.keys[position],
        index < 0 || index >= object.slots.count || !object.slots[index].isPresent
      {
        absent.append(name)
      }
    }
    // the table's properties read in place, not copied one by one (a copy
    // retains and releases each of their strings and arrays)
    try table.properties.withUnsafeBufferPointer { (properties) throws(StrataError) in
      guard let base = properties.baseAddress else { return }
      for position in properties.indices {
        // a leaf kept without jansson (`Slot+Leaves.swift`): a string bound
        // from the object's own bytes, a number from the slot, with no
        // json_t made for the row
        if case .column(let kind) = properties[position].storage, let index = plan.columns[position],
          index >= 0 && index < object.slots.count
        {
          switch (kind, object.slots[index]) {
          case (.text, .text(let text)):
            columns.append(.text(text))
            continue
          case (.integer, .integer(let number)):
            columns.append(.value(.integer(number)))
            continue
          case (.real, .real(let number)):
            columns.append(.value(.real(number)))
            continue
          default: break
          }
        }
        let present = plan.columns[position].flatMap(value(at:))
        if present == nil && plan.columns[position] != nil { absent.append(properties[position].name) }
        try place(
          present, of: base + position, in: layout, columns: &columns, links: &links,
          kept: &kept, keptLinks: keptLinks)
      }
    }
    if type.isSubtype && !plan.model.tagged, let tag = JValue.makeString(type.name) {
      made.append(tag)
      kept.append(("$type", tag))
    }
    for index in plan.unowned {
      if let present = value(at: index) { kept.append((type.properties[index].name, present)) }
    }
    if let unknown = object.unknown, json_object_size(unknown) > 0 { kept.append(("$unknown", unknown)) }
    return Row(
      key: keyCells, model: type.name, stub: stub, extra: try extraText(absent: absent, kept: kept),
      columns: columns, links: links)
  }

  /// Puts the value of `property` (borrowed; nil when the record has none)
  /// into a row's columns or links, or into `kept` when they cannot hold it.
  /// `property` points into the table's properties: read in place, not
  /// copied (a copy retains and releases each of its strings and arrays).
  private static func place(
    _ value: JPtr?, of property: UnsafePointer<Layout.Property>, in layout: Layout, columns: inout [Cell],
    links: inout [(start: Int, targets: [[SQLCell]])?], kept: inout [(String, JPtr)], keptLinks: [String: Int]
  ) throws(StrataError) {
    func none() { for _ in property.pointee.columns { columns.append(.value(.null)) } }
    switch property.pointee.storage {
    case .column(let kind):
      guard let value else { return none() }
      if let made = rowCell(value, kind: kind) {
        columns.append(made)
      } else {
        kept.append((property.pointee.name, value))
        none()
      }
    case .toOne(let target):
      guard let value, !JValue.isNull(value) else { return none() }
      if let targetKey = RecordKey(json: value), let parts = layout.table(target)?.keyParts,
        let made = cells(targetKey, parts: parts)
      {
        for cell in made { columns.append(.value(cell)) }
      } else {
        kept.append((property.pointee.name, value))
        none()
      }
    case .toMany(let target, _):
      guard let value else { return links.append(nil) }
      let start = keptLinks[property.pointee.name] ?? 0
      if let made = targetCells(value, parts: layout.table(target)?.keyParts) {
        links.append((start, made))
      } else {
        kept.append((property.pointee.name, value))
        links.append(nil)
      }
    }
  }

  /// The rows of a record from its values: `value` gives a property's
  /// canonical value by name (borrowed), `members` calls its argument with
  /// every value the record has (properties and `$type`, `$unknown`).
  private static func row(
    _ table: Layout.Table, in layout: Layout, key: RecordKey, modelName: String, stub: Bool,
    value valueNamed: (String) -> JPtr?, members: ((String, JPtr) -> Void) -> Void, keptLinks: [String: Int]
  ) throws(StrataError) -> Row {
    guard let model = table.models.first(where: { $0.name == modelName }) else {
      throw StrataError(
        code: .argument, message: "the table '\(table.name)' does not hold records of '\(modelName)'")
    }
    guard let keyCells = cells(key, parts: table.keyParts) else {
      throw StrataError(
        code: .argument, message: "the key \(key) does not fit the key columns of '\(table.name)'")
    }
    let owned = model.owns
    var absent: [String] = []
    var kept: [(String, JPtr)] = []
    var columns: [Cell] = []
    var links: [(start: Int, targets: [[SQLCell]])?] = []
    for name in table.keyProperties where valueNamed(name) == nil && owned.contains(name) {
      absent.append(name)
    }
    try table.properties.withUnsafeBufferPointer { (properties) throws(StrataError) in
      guard let base = properties.baseAddress else { return }
      for position in properties.indices {
        let name = properties[position].name
        let value = owned.contains(name) ? valueNamed(name) : nil
        if value == nil && owned.contains(name) { absent.append(name) }
        try place(
          value, of: base + position, in: layout, columns: &columns, links: &links,
          kept: &kept, keptLinks: keptLinks)
      }
    }
    members { name, value in
      if name == "$type" && model.tagged && JValue.isString(value) && JValue.string(value) == model.name {
        return
      }
      if !owned.contains(name) { kept.append((name, value)) }
    }
    return Row(
      key: keyCells, model: modelName, stub: stub, extra: try extraText(absent: absent, kept: kept),
      columns: columns, links: links)
  }

  /// The key cells of every element of a to-many value, or nil when it is
  /// not a list of keys of that shape.
  private static func targetCells(_ value: JPtr, parts: [Layout.KeyPart]?) -> [[SQLCell]]? {
    guard let parts, JValue.isArray(value) else { return nil }
    var out: [[SQLCell]] = []
    out.reserveCapacity(json_array_size(value))
    for index in 0..<json_array_size(value) {
      guard let element = json_array_get(value, index), let key = RecordKey(json: element),
        let made = cells(key, parts: parts)
      else { return nil }
      out.append(made)
    }
    return out
  }

  /// The text of `strata_extra`, or nil when there is nothing to keep.
  private static func extraText(absent: [String], kept: [(String, JPtr)]) throws(StrataError) -> String? {
    if absent.isEmpty && kept.isEmpty { return nil }
    guard let extra = json_object() else { throw StrataError(code: .oom, message: "out of memory") }
    defer { JValue.release(extra) }
    if !absent.isEmpty, let list = json_array() {
      for name in absent { _ = json_array_append_new(list, JValue.makeString(name) ?? json_null()) }
      JValue.setNew(extra, "absent", list)
    }
    if !kept.isEmpty, let object = json_object() {
      for (name, value) in kept { JValue.setNew(object, name, JValue.retain(value)) }
      JValue.setNew(extra, "values", object)
    }
    return try CanonicalJSON.text(extra, what: "a record's kept values", sortKeys: false)
  }

  /// Calls `body` with every member of an object (borrowed).
  static func forEachMember(_ object: JPtr, _ body: (String, JPtr) -> Void) {
    var iterator = json_object_iter(object)
    while let current = iterator {
      if let key = json_object_iter_key(current), let value = json_object_iter_value(current) {
        body(String(cString: key), value)
      }
      iterator = json_object_iter_next(object, current)
    }
  }

  /// An `io` error for a file whose rows do not make sense.
  static func damaged(_ message: String) -> StrataError {
    StrataError(code: .io, message: "the graph file is damaged: \(message)")
  }
}
