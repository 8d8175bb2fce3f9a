/// The text formats of `Schema.diagram(_:)`.
public enum DiagramFormat: String, Sendable, CaseIterable {
  /// A Mermaid `classDiagram`.
  case mermaid
  /// A Graphviz `digraph` of record nodes.
  case dot
}

extension Schema {
  /// A class diagram of the schema's models: each model with its properties
  /// and their types, `extends` as inheritance, `subtypes` as arrows labelled
  /// with the discriminator value (or the key a rule needs), model-typed
  /// properties as associations with their multiplicity (`T` "1", `T?`
  /// "0..1", `[T]` and `{T}` "*"), a relationship and its `inverse` as one
  /// two-way edge labelled with both names, and each generic model once,
  /// with its parameters, its instances linked to it.
  public func diagram(_ format: DiagramFormat) -> String {
    SchemaDiagram(schema: self).render(format)
  }
}

/// The facts a diagram shows, then their rendering.
struct SchemaDiagram {
  let schema: Schema

  struct Edge {
    /// `inverse`: a relationship and its inverse, drawn once, both ways.
    enum Kind { case extends, subtype, association, inverse, instance }
    let kind: Kind
    let from: String
    let to: String
    let label: String
    let multiplicity: String
    /// For `inverse`: the multiplicity at the `from` end (the inverse property's).
    var tailMultiplicity = ""
  }

  /// The generic models, as written (`Page<T>`), in the order of their first instance.
  var genericModels: [String] {
    var out: [String] = []
    for name in schema.modelNames {
      if let template = schema.instanceTemplates[name], !out.contains(template) { out.append(template) }
    }
    return out
  }

  var edges: [Edge] {
    var out: [Edge] = []
    var drawnPairs: Set<String> = []
    for model in schema.models {
      if let base = model.base {
        out.append(Edge(kind: .extends, from: base.name, to: model.name, label: "", multiplicity: ""))
      }
      switch model.cluster {
      case .key(let key, let table)?:
        for value in table.keys.sorted() {
          guard let target = table[value], target < schema.models.count else { continue }
          out.append(
            Edge(
              kind: .subtype, from: model.name, to: schema.models[target].name,
              label: "\(key.name) = \(value)",
              multiplicity: ""))
        }
      case .rules(let rules)?:
        for rule in rules where rule.model < schema.models.count {
          out.append(
            Edge(
              kind: .subtype, from: model.name, to: schema.models[rule.model].name,
              label: "has \(rule.has.name)",
              multiplicity: ""))
        }
      case nil:
        break
      }
      for property in model.properties where property.declaredIn == model.name || model.base == nil {
        guard let (target, multiplicity) = Self.association(property.type), target < schema.models.count
        else { continue }
        let other = schema.models[target]
        if let back = property.relation?.inverse, back < other.properties.count,
          let (_, backMultiplicity) = Self.association(other.properties[back].type)
        {
          // A pair is drawn once, from the side that comes first in the document.
          let pair = [model.name + "." + property.name, other.name + "." + other.properties[back].name]
            .sorted()
          if drawnPairs.insert(pair.joined(separator: "|")).inserted {
            out.append(
              Edge(
                kind: .inverse, from: model.name, to: other.name,
                label: "\(property.name) / \(other.properties[back].name)", multiplicity: multiplicity,
                tailMultiplicity: backMultiplicity))
          }
          continue
        }
        out.append(
          Edge(
            kind: .association, from: model.name, to: other.name, label: property.name,
            multiplicity: multiplicity))
      }
      if let template = schema.instanceTemplates[model.name] {
        out.append(
          Edge(
            kind: .instance, from: model.name, to: template,
            label: Self.bindings(template: template, instance: model.name), multiplicity: ""))
      }
    }
    return out
  }

  /// The model a property's type refers to, and the multiplicity.
  static func association(_ type: TypeRef) -> (Int, String)? {
    switch type {
    case .model(let index): return (index, "1")
    case .optional(let inner):
      guard let (index, multiplicity) = association(inner) else { return nil }
      return (index, multiplicity == "1" ? "0..1" : multiplicity)
    case .array(let inner), .dict(let inner):
      guard let (index, _) = association(inner) else { return nil }
      return (index, "*")
    default: return nil
    }
  }

  /// `T = Tweet` for the instance `Page<Tweet>` of `Page<T>`.
  static func bindings(template: String, instance: String) -> String {
    guard case .success(.named(_, let parameters)) = TypeExpression.parse(template),
      case .success(.named(_, let arguments)) = TypeExpression.parse(instance),
      parameters.count == arguments.count
    else { return "" }
    return zip(parameters, arguments).map { "\($0.text) = \($1.text)" }.joined(separator: ", ")
  }

  /// Properties a model declares itself (inherited ones are shown on the base).
  func ownProperties(_ model: ModelType) -> [(String, String)] {
    model.properties.filter { $0.declaredIn == model.name || model.base == nil }.map {
      ($0.name, $0.type.name(models: schema.modelNames))
    }
  }

  func render(_ format: DiagramFormat) -> String {
    switch format {
    case .mermaid: return mermaid()
    case .dot: return dot()
    }
  }

  // MARK: Mermaid

  /// A Mermaid class id: letters, digits and `_`.
  static func mermaidID(_ name: String) -> String {
    var out = ""
    for scalar in name.unicodeScalars {
      if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" {
        out.unicodeScalars.append(scalar)
      } else if scalar != " " {
        out += "_"
      }
    }
    while out.hasSuffix("_") { out.removeLast() }
    return out.isEmpty ? "_" : out
  }

  /// A type as Mermaid shows it: `[T]` -> `List~T~`, `{T}` -> `Map~T~`, `A<B>` -> `A~B~`.
  static func mermaidType(_ text: String) -> String {
    var out = ""
    var closers: [String] = []
    for character in text {
      switch character {
      case "[":
        out += "List~"
        closers.append("~")
      case "{":
        out += "Map~"
        closers.append("~")
      case "<":
        out += "~"
        closers.append("~")
      case "]", "}", ">": out += closers.popLast() ?? ""
      case " ": break
      default: out.append(character)
      }
    }
    return out
  }

  func mermaid() -> String {
    var lines = ["classDiagram"]
    for generic in genericModels {
      if case .success(.named(let base, let parameters)) = TypeExpression.parse(generic) {
        lines.append("  class \(Self.mermaidID(base))~\(parameters.map(\.text).joined(separator: ","))~")
        lines.append("  <<generic>> \(Self.mermaidID(base))")
      }
    }
    for model in schema.models {
      let id = Self.mermaidID(model.name)
      let label = id == model.name ? "" : "[\"\(Self.mermaidType(model.name))\"]"
      lines.append("  class \(id)\(label) {")
      for (name, type) in ownProperties(model) { lines.append("    +\(Self.mermaidType(type)) \(name)") }
      lines.append("  }")
    }
    for edge in edges {
      let from = Self.mermaidID(edge.from)
      switch edge.kind {
      case .extends:
        lines.append("  \(from) <|-- \(Self.mermaidID(edge.to))")
      case .subtype:
        lines.append("  \(from) <|.. \(Self.mermaidID(edge.to)) : \(edge.label)")
      case .association:
        lines.append("  \(from) --> \"\(edge.multiplicity)\" \(Self.mermaidID(edge.to)) : \(edge.label)")
      case .inverse:
        lines.append(
          "  \(from) \"\(edge.tailMultiplicity)\" <--> \"\(edge.multiplicity)\" \(Self.mermaidID(edge.to)) : \(edge.label)"
        )
      case .instance:
        let base: String
        if case .success(.named(let name, _)) = TypeExpression.parse(edge.to) {
          base = name
        } else {
          base = edge.to
        }
        lines.append(
          "  \(from) ..> \(Self.mermaidID(base)) : \(edge.label.isEmpty ? "instance" : edge.label)")
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  // MARK: Graphviz

  /// A double-quoted DOT string (backslashes are left to the label's own escapes).
  static func quoted(_ text: String) -> String {
    var out = "\""
    for character in text {
      if character == "\"" { out.append("\\") }
      out.append(character)
    }
    return out + "\""
  }

  /// Text escaped for a record label.
  static func record(_ text: String) -> String {
    var out = ""
    for character in text {
      if "{}|<>\\".contains(character) { out.append("\\") }
      out.append(character)
    }
    return out
  }

  func dot() -> String {
    var lines = [
      "digraph Schema {", "  rankdir=BT;", "  node [shape=record, fontname=\"Helvetica\", fontsize=10];",
      "  edge [fontname=\"Helvetica\", fontsize=9];",
    ]
    for generic in genericModels {
      lines.append(
        "  \(Self.quoted(generic)) [label=\(Self.quoted("{\\<\\<generic\\>\\>\\n\(Self.record(generic))}"))];"
      )
    }
    for model in schema.models {
      let fields = ownProperties(model).map { Self.record("\($0.0): \($0.1)") + "\\l" }.joined()
      lines.append(
        "  \(Self.quoted(model.name)) [label=\(Self.quoted("{\(Self.record(model.name))|\(fields)}"))];")
    }
    for edge in edges {
      switch edge.kind {
      case .extends:
        lines.append("  \(Self.quoted(edge.to)) -> \(Self.quoted(edge.from)) [arrowhead=empty];")
      case .subtype:
        lines.append(
          "  \(Self.quoted(edge.to)) -> \(Self.quoted(edge.from)) [arrowhead=empty, style=dashed, label=\(Self.quoted(edge.label))];"
        )
      case .association:
        lines.append(
          "  \(Self.quoted(edge.from)) -> \(Self.quoted(edge.to)) [arrowhead=vee, label=\(Self.quoted(edge.label)), headlabel=\(Self.quoted(edge.multiplicity))];"
        )
      case .inverse:
        lines.append(
          "  \(Self.quoted(edge.from)) -> \(Self.quoted(edge.to)) [dir=both, arrowhead=vee, arrowtail=vee, label=\(Self.quoted(edge.label)), headlabel=\(Self.quoted(edge.multiplicity)), taillabel=\(Self.quoted(edge.tailMultiplicity))];"
        )
      case .instance:
        lines.append(
          "  \(Self.quoted(edge.from)) -> \(Self.quoted(edge.to)) [arrowhead=empty, style=dotted, label=\(Self.quoted(edge.label))];"
        )
      }
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }
}
