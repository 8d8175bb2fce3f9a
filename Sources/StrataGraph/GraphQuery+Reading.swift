import CJansson
import Strata

/// Reads a query object (`{"where", "order_by", "limit", "offset",
/// "stubs"}`) against a model: every name checked against the schema, every
/// value read through its property's type. All errors are collected, each
/// with its JSON Pointer into the query.
struct QueryReader {
  let schema: Schema
  /// Reads a key given for a relationship (the related model's key).
  let readKey: (JPtr, ModelType) -> Result<RecordKey, StrataError>
  private(set) var errors: [ErrorDetail] = []
  /// The queried model's name, for the errors.
  private var modelName = ""

  init(schema: Schema, readKey: @escaping (JPtr, ModelType) -> Result<RecordKey, StrataError>) {
    self.schema = schema
    self.readKey = readKey
  }

  private static let queryMembers = ["where", "order_by", "limit", "offset", "stubs"]

  /// An object's members (borrowed values), in order.
  private static func members(of object: JPtr) -> [(String, JPtr)] {
    var out: [(String, JPtr)] = []
    JValue.forEachMember(object) { key, value in out.append((JValue.keyString(key), value)) }
    return out
  }

  /// The query `value` (borrowed; nil or null: every record) of `type`, or
  /// nil after errors.
  mutating func read(_ value: JPtr?, _ type: ModelType) -> GraphQuery? {
    var query = GraphQuery(type: type)
    modelName = type.name
    guard let value, !JValue.isNull(value) else { return query }
    guard JValue.isObject(value) else {
      fail(
        "", .type,
        "a query is an object with where, order_by, limit, offset, stubs; found \(Mapper.show(value))")
      return nil
    }
    for (name, member) in Self.members(of: value) {
      switch name {
      case "where": query.condition = readWhere(member, type, at: "/where")
      case "order_by": query.order = readOrder(member, type)
      case "limit":
        if !JValue.isNull(member) { query.limit = count(member, at: "/limit", "limit") }
      case "offset": query.offset = count(member, at: "/offset", "offset") ?? 0
      case "stubs":
        if JValue.isBool(member) {
          query.stubs = member.pointee.type == JSON_TRUE
        } else {
          fail("/stubs", .type, "'stubs' is true or false, found \(Mapper.show(member))")
        }
      default:
        fail(
          "/" + JSONPointer.escape(name), .argument,
          "a query has no member '\(name)'" + Suggestion.hintOrList(for: name, among: Self.queryMembers))
      }
    }
    return errors.isEmpty ? query : nil
  }

  /// A count: an integer of at least 0.
  private mutating func count(_ value: JPtr, at path: String, _ name: String) -> Int? {
    guard JValue.isInteger(value), json_integer_value(value) >= 0 else {
      fail(path, .type, "'\(name)' is an integer of at least 0, found \(Mapper.show(value))")
      return nil
    }
    return Int(truncatingIfNeeded: json_integer_value(value))
  }

  // MARK: where

  /// A `where` object: its members all hold.
  private mutating func readWhere(_ value: JPtr, _ type: ModelType, at path: String) -> QueryCondition? {
    guard JValue.isObject(value) else {
      fail(path, .type, "a condition is an object of properties and and/or/not, found \(Mapper.show(value))")
      return nil
    }
    var parts: [QueryCondition] = []
    for (name, member) in Self.members(of: value) {
      let here = path + "/" + JSONPointer.escape(name)
      switch name {
      case "and", "or":
        guard JValue.isArray(member) else {
          fail(here, .type, "'\(name)' takes a list of conditions, found \(Mapper.show(member))")
          continue
        }
        var listed: [QueryCondition] = []
        for position in 0..<json_array_size(member) {
          if let element = json_array_get(member, position),
            let condition = readWhere(element, type, at: here + "/\(position)")
          {
            listed.append(condition)
          }
        }
        parts.append(name == "and" ? .all(listed) : .any(listed))
      case "not":
        if let condition = readWhere(member, type, at: here) { parts.append(.not(condition)) }
      default:
        guard let target = resolve(name, type, at: here, ordering: false) else { continue }
        parts.append(contentsOf: readTests(member, target, at: here))
      }
    }
    return parts.count == 1 ? parts[0] : .all(parts)
  }

  /// The tests of one property: an operator object, or a value (equality;
  /// null: `null: true`).
  private mutating func readTests(_ value: JPtr, _ target: QueryPath, at path: String) -> [QueryCondition] {
    guard JValue.isObject(value) else {
      if JValue.isNull(value) { return [.test(target, .null(true))] }
      return readValue(value, target, at: path).map { [.test(target, .equal($0))] } ?? []
    }
    var tests: [QueryCondition] = []
    for (name, operand) in Self.members(of: value) {
      let here = path + "/" + JSONPointer.escape(name)
      if let test = readOperator(name, operand, target, at: here) { tests.append(.test(target, test)) }
    }
    if json_object_size(value) == 0 {
      fail(
        path, .argument,
        "an operator object names at least one of " + QueryTest.operators.joined(separator: ", "))
    }
    return tests
  }

  /// One operator and its operand.
  private mutating func readOperator(_ name: String, _ operand: JPtr, _ target: QueryPath, at path: String)
    -> QueryTest?
  {
    switch name {
    case "null":
      guard JValue.isBool(operand) else {
        fail(path, .type, "'null' takes true or false, found \(Mapper.show(operand))")
        return nil
      }
      return .null(operand.pointee.type == JSON_TRUE)
    case "prefix", "contains":
      guard case .scalar(text: true) = target.kind else {
        fail(path, .type, "'\(name)' applies to string properties; '\(target.name)' is not one")
        return nil
      }
      guard JValue.isString(operand) else {
        fail(path, .type, "'\(name)' takes a string, found \(Mapper.show(operand))")
        return nil
      }
      let text = JValue.string(operand)
      return name == "prefix" ? .prefix(text) : .contains(text)
    case "in":
      guard JValue.isArray(operand) else {
        fail(path, .type, "'in' takes a list of values, found \(Mapper.show(operand))")
        return nil
      }
      var values: [QueryValue] = []
      for position in 0..<json_array_size(operand) {
        if let element = json_array_get(operand, position),
          let value = readValue(element, target, at: path + "/\(position)")
        {
          values.append(value)
        }
      }
      return .oneOf(values)
    case "==", "!=", "<", "<=", ">", ">=":
      if name == "==" && JValue.isNull(operand) { return .null(true) }
      if name == "!=" && JValue.isNull(operand) { return .null(false) }
      guard let value = readValue(operand, target, at: path) else { return nil }
      switch name {
      case "==": return .equal(value)
      case "!=": return .notEqual(value)
      case "<": return .less(value)
      case "<=": return .lessOrEqual(value)
      case ">": return .greater(value)
      default: return .greaterOrEqual(value)
      }
    default:
      fail(
        path, .argument,
        "'\(name)' is not an operator" + Suggestion.hintOrList(for: name, among: QueryTest.operators))
      return nil
    }
  }

  /// A value given for `target`, read as the property reads a canonical
  /// value (a relationship: the related record's key).
  private mutating func readValue(_ value: JPtr, _ target: QueryPath, at path: String) -> QueryValue? {
    switch target.kind {
    case .opaque:
      fail(path, .type, "'\(target.name)' holds models or JSON: only 'null' tests it")
      return nil
    case .relationship(let model):
      guard model < schema.models.count else { return nil }
      switch readKey(value, schema.models[model]) {
      case .success(let key): return .key(key)
      case .failure(let error):
        for detail in error.errors { fail(path + detail.path, detail.code, detail.message) }
        return nil
      }
    case .scalar, .date:
      guard target.owner < schema.models.count else { return nil }
      let owner = schema.models[target.owner]
      guard target.index < owner.properties.count else { return nil }
      var scalar = owner.properties[target.index].type.unwrapped
      if case .array(let element) = scalar { scalar = element.unwrapped }
      var reader = Mapper(schema: schema, mode: .canonical)
      let slot = reader.readScalar(value, type: scalar, model: owner, property: target.index)
      defer { slot.release() }
      for detail in reader.errors {
        fail(path + detail.path, detail.code, "the value of '\(target.name)': \(detail.message)")
      }
      guard reader.errors.isEmpty, case .leaf(let leaf) = slot else { return nil }
      return QueryValue(leaf, target.kind)
    }
  }

  // MARK: paths

  /// The path `name` ("user.screenName") from `type`: relationships, then a
  /// property; with `ordering`, through to-one relationships only, to a
  /// single value.
  mutating func resolve(_ name: String, _ type: ModelType, at path: String, ordering: Bool) -> QueryPath? {
    let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    var model = type
    var hops: [String] = []
    var many = false
    for (position, part) in parts.enumerated() {
      guard let index = model.propertyIndex[part], index < model.properties.count else {
        fail(
          path, .property,
          "model '\(model.name)' has no property '\(part)'"
            + Suggestion.hint(for: part, among: model.properties.map(\.name)))
        return nil
      }
      let spec = model.properties[index]
      if position == parts.count - 1 {
        let kind = QueryKind(spec)
        let list = spec.relation?.toMany == true || spec.type.unwrapped.isArray
        if ordering && (list || many || !kind.isComparable) {
          fail(
            path, .property,
            "cannot order by '\(name)': it holds " + (list || many ? "several values" : "models or JSON"))
          return nil
        }
        return QueryPath(
          hops: hops, name: name, property: part, kind: kind, reachesMany: many || list, owner: model.index,
          index: index)
      }
      guard let relation = spec.relation, relation.target < schema.models.count else {
        fail(
          path, .property,
          "'\(model.name).\(part)' is not a relationship: a path goes on only through relationships")
        return nil
      }
      many = many || relation.toMany
      hops.append(part)
      model = schema.models[relation.target]
    }
    return nil
  }

  // MARK: order_by

  /// `order_by`: a name or a list of names, `-` first for descending.
  private mutating func readOrder(_ value: JPtr, _ type: ModelType) -> [QueryOrder] {
    var names: [(String, String)] = []
    if JValue.isString(value) {
      names = [(JValue.string(value), "/order_by")]
    } else if JValue.isArray(value) {
      for position in 0..<json_array_size(value) {
        guard let element = json_array_get(value, position), JValue.isString(element) else {
          fail("/order_by/\(position)", .type, "'order_by' lists property names")
          continue
        }
        names.append((JValue.string(element), "/order_by/\(position)"))
      }
    } else if !JValue.isNull(value) {
      fail("/order_by", .type, "'order_by' is a property name or a list of them, found \(Mapper.show(value))")
    }
    var order: [QueryOrder] = []
    for (written, path) in names {
      let descending = written.hasPrefix("-")
      let name = descending ? String(written.dropFirst()) : written
      if let target = resolve(name, type, at: path, ordering: true) {
        order.append(QueryOrder(path: target, descending: descending))
      }
    }
    return order
  }

  private mutating func fail(_ path: String, _ code: ErrorCode, _ message: String) {
    errors.append(ErrorDetail(path: path, model: modelName, code: code, message: "the query: " + message))
  }
}
