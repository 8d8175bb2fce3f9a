/// What the schema says about a value the Codable bridge is reading or
/// locating: a model (whose keys are property names), a collection type, or
/// nothing (a leaf, or inside a `json` value).
enum SchemaShape {
  case model(ModelType)
  case type(TypeRef)
  case free

  /// The shape of a value of `type` (`T?` is read as `T`).
  static func of(_ type: TypeRef, in schema: Schema) -> SchemaShape {
    switch type.unwrapped {
    case .model(let index): return index < schema.models.count ? .model(schema.models[index]) : .free
    case .array, .dict: return .type(type.unwrapped)
    default: return .free
    }
  }

  /// The model a canonical dictionary of this shape holds: the subtype its
  /// `"$type"` names, or the model itself.
  func model(of value: JSON, in schema: Schema) -> ModelType? {
    guard case .model(let type) = self else { return nil }
    if case .string(let tag)? = value["$type"], let index = schema.modelIndex[tag],
      index < schema.models.count
    {
      return schema.models[index]
    }
    return type
  }

  /// The shape of the member `key` (or element) of a value of this shape.
  func child(_ key: String, of value: JSON, in schema: Schema) -> SchemaShape {
    switch self {
    case .model:
      guard let type = model(of: value, in: schema), let index = type.propertyIndex[key],
        index < type.properties.count
      else { return .free }
      return .of(type.properties[index].type, in: schema)
    case .type(.array(let element)), .type(.dict(let element)):
      return .of(element, in: schema)
    default:
      return .free
    }
  }
}

/// Where a coding path of the bridge lies: the JSON Pointer of the value in
/// the API's JSON (through each property's key, key path, plucked array or
/// list of key paths), the canonical pointer (property names), and the model
/// and property that hold it.
struct CodingPlace {
  /// The pointer into the API JSON, or the canonical pointer where a step has
  /// no place in it (a `json: false` property).
  var path: String
  /// The pointer into the canonical dictionary (property names, indices).
  var canonicalPath: String
  /// The innermost model on the way, or "".
  var model: String
  /// The property of that model, or "".
  var property: String

  /// Follows `keys` from a root value of `shape` (the canonical value `root`).
  init(_ keys: [any CodingKey], root: JSON, shape: SchemaShape, schema: Schema) {
    var tokens: [String] = []
    var canonical: [String] = []
    var mappable = true
    var shape = shape
    var current: JSON? = root
    var multi: [MultiPath]? = nil
    var pluckedElement: [Key]? = nil
    model = ""
    property = ""
    for key in keys {
      let token: String
      var next: JSON? = nil
      if case .array(let elements)? = current, let index = key.intValue {
        token = String(index)
        if index >= 0 && index < elements.count { next = elements[index] }
      } else {
        token = key.stringValue
        next = current?[token]
      }
      canonical.append(token)
      let here = current ?? .null
      if let paths = multi {
        // The value of a list-of-key-paths property is an object keyed by the
        // key paths as written: a member (or the key a property of a model
        // there reads) stands for the keys of its path.
        multi = nil
        var inner = [token]
        if let type = shape.model(of: here, in: schema) {
          model = type.name
          property = token
          if let index = type.propertyIndex[token], index < type.properties.count,
            case .path(let keys) = type.properties[index].location
          {
            inner = keys.map(\.name)
          }
        }
        if let first = inner.first, let match = paths.first(where: { $0.written.name == first }) {
          tokens += match.keys.map(\.name) + inner.dropFirst()
        } else {
          tokens += inner
        }
        shape = shape.child(token, of: here, in: schema)
      } else if let type = shape.model(of: here, in: schema) {
        model = type.name
        property = token
        if let index = type.propertyIndex[token], index < type.properties.count {
          switch type.properties[index].location {
          case .none: mappable = false
          case .path(let path): tokens += path.map(\.name)
          case .multi(let paths): multi = paths
          case .pluck(let array, let element):
            tokens += array.map(\.name)
            pluckedElement = element
          }
        } else {
          tokens.append(token)
        }
        shape = shape.child(token, of: here, in: schema)
      } else {
        tokens.append(token)
        if let element = pluckedElement {
          tokens += element.map(\.name)
          pluckedElement = nil
        }
        shape = shape.child(token, of: here, in: schema)
      }
      current = next
    }
    canonicalPath = JSONPointer.make(canonical)
    path = mappable ? JSONPointer.make(tokens) : canonicalPath
  }
}
