import Strata

/// A record's links: one `Link` per property of its model, `.absent` for
/// every property that is not a relationship, as a collection indexed by
/// property. Only the relationships' links are stored (`ModelType.relations`,
/// ascending): an issue of 18 properties, 4 of them relationships, keeps 4
/// links instead of 18 (a graph of 20,000 issues: 6.5 MB less in use).
///
/// Setting a property that is not a relationship to anything is ignored:
/// its link reads `.absent`, as it always did.
struct RecordLinks: RandomAccessCollection, MutableCollection {
  /// The relationship properties of the model, ascending (the model's own
  /// array, shared).
  private var relations: [Int]
  /// The link of `relations[i]`.
  private var stored: ContiguousArray<Link>
  /// The model's number of properties.
  let endIndex: Int

  /// Every link of a record of `model` absent.
  init(_ model: ModelType) {
    relations = model.relations
    stored = .filled(with: .absent, count: model.relations.count)
    endIndex = model.properties.count
  }

  /// No links at all (a closed or evicted record's).
  init() {
    relations = []
    stored = []
    endIndex = 0
  }

  /// The first property.
  var startIndex: Int { 0 }

  /// Where `property`'s link is stored, or nil for a property that is not a relationship.
  @inline(__always) private func slot(_ property: Int) -> Int? {
    // few relationships per model: a scan beats a search
    for (position, index) in relations.enumerated() {
      if index == property { return position }
      if index > property { return nil }
    }
    return nil
  }

  /// The link of `property`.
  subscript(property: Int) -> Link {
    get {
      guard let position = slot(property) else { return .absent }
      return stored[position]
    }
    set {
      guard let position = slot(property) else { return }
      stored[position] = newValue
    }
  }
}
