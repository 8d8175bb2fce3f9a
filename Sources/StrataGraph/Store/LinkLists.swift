import Strata

/// The targets' keys of one record's to-many lists, by property name, as
/// read from their link tables. A record has few lists, so the names are
/// searched rather than hashed: they are the layout's own strings, whose
/// comparison stops at their shared storage (a cold `get` made, filled,
/// searched and freed a dictionary each: Benchmarks/README.md, "Links kept
/// as keys").
struct LinkLists: ExpressibleByDictionaryLiteral {
  private var entries: [(name: String, keys: [RecordKey])] = []

  /// No lists.
  init() {}

  /// The lists given, by name (a name given twice keeps its last list).
  init(dictionaryLiteral elements: (String, [RecordKey])...) {
    for (name, keys) in elements { self[name] = keys }
  }

  /// True when no list is held.
  var isEmpty: Bool { entries.isEmpty }

  /// The list of the property `name`, or nil; setting nil removes it.
  subscript(name: String) -> [RecordKey]? {
    get {
      for entry in entries where entry.name == name { return entry.keys }
      return nil
    }
    set {
      if let position = entries.firstIndex(where: { $0.name == name }) {
        if let newValue { entries[position].keys = newValue } else { entries.remove(at: position) }
      } else if let newValue {
        if entries.capacity == 0 { entries.reserveCapacity(2) }
        entries.append((name, newValue))
      }
    }
  }
}
