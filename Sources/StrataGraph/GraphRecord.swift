import CJansson
import Strata

/// One record of a graph context: a model instance found by its key. The
/// context holds exactly one per key (per key space: a model and the
/// subtypes that share its primary key).
package final class GraphRecord: RecordIdentity {
  /// The record's key.
  package let key: RecordKey
  /// The key as JSON (owned): what relationship slots of other records hold.
  package let keyJSON: JPtr
  /// The model whose key space the record lives in (`ModelType.keyRoot`).
  let keyRoot: Int
  /// The committed state (for a record made by an import that has not
  /// committed yet, its first state). A fault (a record of a file known by
  /// its key, not read yet) is read from the file on first use
  /// (`GraphMemory.fill`).
  ///
  /// Reading it also reads the to-many lists the record holds unread
  /// (`pendingLists`): whoever reads `state` sees every list whole.
  var state: RecordState {
    _read {
      if isFault || pendingLists || staleObject || unmadeLinks != nil { source?.fill(self) }
      yield storedState
    }
    _modify {
      if isFault || pendingLists || staleObject || unmadeLinks != nil { source?.fill(self) }
      yield &storedState
    }
  }
  /// The committed state for its model, object and stub flag only (what a
  /// get or a query answers): as `state`, but a record whose links are
  /// kept as keys (`unmadeLinks`) keeps them so. Its `links` must not be
  /// read (they may be empty).
  var shownState: RecordState {
    _read {
      if isFault || pendingLists || staleObject { source?.fill(self, makingLinks: false) }
      yield storedState
    }
  }
  /// The links of a record read whole for a get (not for a change), kept as
  /// its targets' keys, checked, until something looks at its links
  /// (`state`, `lazyState`, `lazyLink`: `GraphMemory.makeLinks`), so that
  /// a cold get makes no fault for each target it links to. Its committed
  /// object shows them already; `storedState.links` is empty meanwhile.
  /// One entry per relationship of its model, in `ModelType.relations` order.
  var unmadeLinks: ContiguousArray<GraphLoading.UnmadeLink>? = nil
  /// The committed state with its to-many lists as held: a list read
  /// lazily (`RecordList.unread`) holds only the targets added after the
  /// file's. For the import's paths that only append to lists (an inverse
  /// gaining a record) and look at attributes: they need not read a long
  /// list, so a list that grows by one costs the same at any length.
  var lazyState: RecordState {
    _read {
      if isFault || unmadeLinks != nil { source?.fill(self, lazily: true) }
      yield storedState
    }
  }
  /// The link of `property` in `lazyState`, read in place.
  func lazyLink(_ property: Int) -> Link {
    if isFault || unmadeLinks != nil { source?.fill(self, lazily: true) }
    return property < storedState.links.count ? storedState.links[property] : .absent
  }
  /// True when a to-many list of `storedState` holds targets of the file
  /// unread (`RecordList.unread`), and its committed object shows only the
  /// targets held: `state` reads them first.
  var pendingLists = false
  /// True when the committed object does not show the record's long
  /// to-many lists yet (a commit leaves them out,
  /// `GraphMemory.listShownAtCommit`): `state` writes them first.
  var staleObject = false
  /// The state, or a fault's placeholder.
  var storedState: RecordState
  /// True while the record is a fault: its state is read on first use.
  var isFault = false
  /// Where a fault is read from.
  weak var source: GraphMemory?
  /// False when the links into the record (`state.incoming`) are not read
  /// yet: a record read from a file learns them on demand
  /// (`GraphMemory.ensureIncoming`), by its key, from the other tables.
  var incomingKnown = true
  /// The call that last used the record (`GraphMemory.generation`).
  var lastUse = 0
  /// True once the record is deleted (or its context closed).
  var isDeleted = false
  /// True once the record left the context's cache (`GraphMemory.evict`):
  /// a handle of it finds the record again by its key.
  var isEvicted = false

  /// A record of the cache of serial `owner` (`GraphMemory.serial`).
  init?(key: RecordKey, keyRoot: Int, state: RecordState, owner: UInt64) {
    guard let json = key.makeJSON() else { return nil }
    self.key = key
    self.keyJSON = json
    self.keyRoot = keyRoot
    self.storedState = state
    recordTie = RecordTie(self, owner: owner)
  }

  /// The tie the record's committed objects hold (`RecordTie`), made with
  /// the record (the commit may tie objects on its helper thread, so it is
  /// not made on first use); cleared when the record is freed.
  private var recordTie: RecordTie? = nil

  /// Makes `object` this record's committed object, a stub's when `isStub`.
  func tie(_ object: ModelObject, isStub: Bool) {
    guard let recordTie else { return }
    object.tie(to: recordTie, key: key, isStub: isStub)
  }

  deinit {
    recordTie?.record = nil
    JValue.release(keyJSON)
  }

  /// Where the record is in messages about the graph: `/Model/key` (the key
  /// space's model) and `/property` when one is named.
  func pointer(_ schema: Schema, property: String = "") -> String {
    var path =
      "/" + JSONPointer.escape(schema.models[keyRoot].name) + "/" + JSONPointer.escape(key.description)
    if !property.isEmpty { path += "/" + JSONPointer.escape(property) }
    return path
  }

  /// Drops every link (breaking reference cycles between records).
  func clear() {
    storedState.links = RecordLinks()
    storedState.incoming = []
    unmadeLinks = nil
    isFault = false
    pendingLists = false
    staleObject = false
    isDeleted = true
  }

  /// Leaves the cache: drops every link (breaking reference cycles between
  /// records); the committed object stays for the handles that hold it.
  func evict() {
    storedState.links = RecordLinks()
    storedState.incoming = []
    unmadeLinks = nil
    isFault = false
    pendingLists = false
    staleObject = false
    isEvicted = true
  }
}

/// Where a link into a record comes from: a record and its property.
struct Incoming: Hashable {
  let record: GraphRecord
  let property: Int

  static func == (lhs: Incoming, rhs: Incoming) -> Bool {
    lhs.record === rhs.record && lhs.property == rhs.property
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(Identity(record))
    hasher.combine(property)
  }

  /// The record's address and the property through `Identity.mix` (see
  /// `Identity`: no SipHash for what the input cannot choose).
  func _rawHashValue(seed: Int) -> Int {
    let salt = UInt(bitPattern: property) &* 0x9e37_79b9_7f4a_7c15
    return Int(bitPattern: Identity.mix(Identity(record).address ^ salt ^ UInt(bitPattern: seed)))
  }
}

/// The records a to-many relationship holds, in order, without repeats.
///
/// A value type whose copies share their storage while they only grow: a
/// list is a length over a shared, append-only buffer, and appending to the
/// longest copy extends the buffer in place (the others keep their length
/// and never see the new element). A draft of a record with a list of
/// 100,000 posts that gains one post therefore copies nothing, and the
/// committed list and the draft share every element; removing an element,
/// or appending to a copy that is not the longest, copies first.
///
/// A list read lazily from a file (`unread` > 0) holds only the targets
/// added after the file's first `unread` ones, which are not read: it can
/// grow (an inverse that gains a record) without being read. Anything that
/// looks at the whole list reads them first (`GraphRecord.state`,
/// `GraphTransaction.wholeLinks`); `items`, `contains` and `sharedPrefix`
/// see the held targets only.
struct RecordList {
  /// The shared buffer: the elements, and the position of each in it once
  /// it holds `indexedFrom` or more (a short list is searched instead: most
  /// lists are short, and a dictionary each would cost more than it saves).
  private final class Storage {
    var items: ContiguousArray<GraphRecord> = []
    var positions: [Identity: Int] = [:]

    /// Indexes every element (the buffer reached `indexedFrom`).
    func index() {
      positions.reserveCapacity(items.count * 2)
      for (position, record) in items.enumerated() { positions[Identity(record)] = position }
    }
  }

  /// The length from which a buffer keeps the position of each element.
  private static let indexedFrom = 16

  private var storage = Storage()
  /// The number of elements of this list (a prefix of the buffer).
  private(set) var count = 0
  /// How many targets the file holds before the held ones, not read.
  private(set) var unread = 0

  init() {}

  /// A list of `unread` targets in the file, none read yet.
  init(unread: Int) { self.unread = unread }

  init<S: Sequence>(_ records: S) where S.Element == GraphRecord {
    for record in records { append(record) }
  }

  /// The records, in order.
  var items: ArraySlice<GraphRecord> { storage.items[0..<count] }

  func contains(_ record: GraphRecord) -> Bool {
    if storage.items.count < Self.indexedFrom {
      for position in 0..<count where storage.items[position] === record { return true }
      return false
    }
    guard let position = storage.positions[Identity(record)] else { return false }
    return position < count
  }

  /// Appends `record` unless it is there already.
  mutating func append(_ record: GraphRecord) {
    if contains(record) { return }
    if count != storage.items.count { detach() }
    storage.items.append(record)
    if storage.items.count == Self.indexedFrom {
      storage.index()
    } else if storage.items.count > Self.indexedFrom {
      storage.positions[Identity(record)] = count
    }
    count += 1
  }

  /// Removes `record` wherever it is.
  mutating func remove(_ record: GraphRecord) {
    guard contains(record) else { return }
    var kept = RecordList(items.filter { $0 !== record })
    kept.unread = unread
    self = kept
  }

  /// How many first elements this list and `other` have in common.
  func sharedPrefix(with other: RecordList) -> Int {
    if storage === other.storage { return min(count, other.count) }
    let a = items
    let b = other.items
    var same = 0
    while same < a.count && same < b.count && a[a.startIndex + same] === b[b.startIndex + same] { same += 1 }
    return same
  }

  /// Gives this list a buffer of its own (holding its elements only).
  private mutating func detach() {
    let copy = Storage()
    copy.items = ContiguousArray(items)
    if copy.items.count >= Self.indexedFrom { copy.index() }
    storage = copy
  }
}

/// The value of one relationship of a record.
enum Link {
  case absent
  case null
  case one(GraphRecord)
  case many(RecordList)

  /// True for a to-many list with targets of the file not read yet.
  var isPending: Bool {
    if case .many(let list) = self { return list.unread > 0 }
    return false
  }

  /// The records linked, in order.
  var records: ArraySlice<GraphRecord> {
    switch self {
    case .absent, .null: return []
    case .one(let record): return [record][...]
    case .many(let list): return list.items
    }
  }
}

/// A record's values: its model (a subtype where the input chose one), the
/// attribute slots, one link per relationship, and the links that point at
/// it.
struct RecordState {
  /// The record's model.
  var model: ModelType
  /// The slots. Committed states hold relationships as keys (what a record
  /// handle shows and the file stores); drafts ignore those slots and use `links`.
  var object: ModelObject
  /// One entry per property of `model` (`.absent` for non-relationships).
  var links: RecordLinks
  /// Every (record, property) whose link holds this record.
  var incoming: Set<Incoming>
  /// True for a record known only by its key so far.
  var isStub: Bool

  init(model: ModelType, object: ModelObject, isStub: Bool) {
    self.init(model: model, object: object, isStub: isStub, links: RecordLinks(model))
  }

  /// A state whose `links` (one per property of `model`) are given.
  init(model: ModelType, object: ModelObject, isStub: Bool, links: RecordLinks) {
    self.model = model
    self.object = object
    self.links = links
    self.incoming = []
    self.isStub = isStub
  }

  /// True when a to-many list holds targets of the file unread (`Link.isPending`).
  var hasPendingLists: Bool { links.contains { $0.isPending } }
}
