import Strata

/// The records a context holds, by key space (the index of the key
/// space's model) and key: a dictionary of records per key space, in an
/// array indexed by key space.
///
/// A get or an import looks a record up by key space and key many times a
/// call. With a dictionary of dictionaries, each lookup hashed the key
/// space and copied the inner dictionary out (a retain and a release)
/// before looking the key up in it; an array element is read in place.
/// The surface is the part of `Dictionary`'s that the graph uses, so the
/// index reads as the dictionary of dictionaries it replaces.
struct RecordIndex: ExpressibleByDictionaryLiteral, Sequence {
  /// The records of one key space, by key.
  typealias Records = [RecordKey: GraphRecord]

  /// The records of key space `root` at position `root` (nil: none held).
  private var spaces: ContiguousArray<[RecordKey: GraphRecord]?> = []

  init() {}

  init(dictionaryLiteral elements: (Int, [RecordKey: GraphRecord])...) {
    for (root, records) in elements { self[root] = records }
  }

  /// The record of key space `root` under `key`, read in place.
  @inline(__always)
  func record(_ root: Int, _ key: RecordKey) -> GraphRecord? {
    root >= 0 && root < spaces.count ? spaces[root]?[key] : nil
  }

  /// The records of key space `root`, or nil when none are held.
  subscript(root: Int) -> [RecordKey: GraphRecord]? {
    get { root >= 0 && root < spaces.count ? spaces[root] : nil }
    _modify {
      grow(root)
      yield &spaces[root]
      if spaces[root]?.isEmpty == true { spaces[root] = nil }
    }
  }

  /// The records of key space `root`, `fallback` when none are held (to change in place).
  subscript(root: Int, default fallback: @autoclosure () -> [RecordKey: GraphRecord]) -> Records {
    get { self[root] ?? fallback() }
    _modify {
      grow(root)
      // taken out of the array while it changes, so that it stays uniquely referenced
      var records = spaces[root] ?? fallback()
      spaces[root] = nil
      defer { spaces[root] = records.isEmpty ? nil : records }
      yield &records
    }
  }

  /// Takes out the records of key space `root`.
  mutating func removeValue(forKey root: Int) -> [RecordKey: GraphRecord]? {
    guard root >= 0 && root < spaces.count else { return nil }
    defer { spaces[root] = nil }
    return spaces[root]
  }

  /// The key spaces that hold records, in order.
  var keys: [Int] { spaces.indices.filter { spaces[$0] != nil } }

  /// The records of each key space that holds some, in key-space order.
  var values: [[RecordKey: GraphRecord]] { spaces.compactMap { $0 } }

  /// (key space, its records) for each key space that holds some, in key-space order.
  func makeIterator() -> IndexingIterator<[(key: Int, value: [RecordKey: GraphRecord])]> {
    spaces.indices.compactMap { root in spaces[root].map { (key: root, value: $0) } }.makeIterator()
  }

  private mutating func grow(_ root: Int) {
    if root >= spaces.count { spaces.append(contentsOf: repeatElement(nil, count: root + 1 - spaces.count)) }
  }
}
