import Glibc

/// What the byte parser builds of one JSON value: all of it, or only the
/// parts a model reads (see `PrunedParser`).
package indirect enum Want {
  /// The whole value (leaves, `json` values, transformer inputs, kept keys).
  case all
  /// An object: only the keys its `ObjectWant` lists (a non-object is built whole).
  case object(PlanRef)
  /// An array: every element, each as `Want` (a non-array is built whole).
  case elements(Want)
  /// An object: every key, each value as `Want` (a non-object is built whole).
  case values(Want)
  /// The records of a response: an array, each element as `.object`; an
  /// object, as `.object` (anything else is built whole).
  case records(PlanRef)
}

/// A reference to an `ObjectWant` that does not keep it alive: plans of
/// recursive models refer to themselves, so the `WantStore` of the schema's
/// `ParsePlans` owns every one of them.
package struct PlanRef {
  unowned(unsafe) let plan: ObjectWant

  /// A reference to `plan` (owned by its schema's `WantStore`).
  package init(plan: ObjectWant) { self.plan = plan }
}

/// Owns the `ObjectWant`s of one schema's plans.
final class WantStore {
  private(set) var all: [ObjectWant] = []

  /// A new, empty object want owned by this store.
  func make() -> ObjectWant {
    let want = ObjectWant()
    all.append(want)
    return want
  }

  /// Seals every want made so far (their lookup form; see `ObjectWant.seal`).
  func sealAll() {
    for want in all where !want.sealed { want.seal() }
  }
}

/// The keys of an object that a model reads, and how much of each value.
package final class ObjectWant: @unchecked Sendable {
  /// True when every key is built (`unknownKeys: keep` or `reject`).
  var keepAll = false
  /// True for the plan of a model with a primary key (a graph's record),
  /// whose objects a parse may share (`InternTable`).
  var keyed = false
  /// The wanted keys (UTF-8 bytes) and the part of each value to build.
  var keys: [[UInt8]] = []
  var wants: [Want] = []

  /// The lookup form of `keys`, made by `seal()` once the plan is complete:
  /// each key's length and first four bytes packed in one word
  /// (`signatures`), its bytes in `flat` from `starts[i]`. Plain memory, so
  /// that a lookup retains nothing.
  private var signatures = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
  private var starts = UnsafeMutablePointer<Int>.allocate(capacity: 1)
  private var flat = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
  private var count = 0
  /// Open addressing over the signatures: slot -> position + 1 (0: empty);
  /// `shift` keeps the top bits of the hashed signature as the slot.
  private var table = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
  private var tableMask = 0
  private var shift: UInt64 = 63
  private var sealedWants: ContiguousArray<Want> = []
  private(set) var sealed = false

  deinit {
    signatures.deallocate()
    starts.deallocate()
    flat.deallocate()
    table.deallocate()
  }

  /// Builds the lookup form (once; plans are shared by threads only after).
  func seal() {
    if sealed { return }
    sealed = true
    let total = keys.reduce(0) { $0 + $1.count }
    signatures.deallocate()
    starts.deallocate()
    flat.deallocate()
    signatures = .allocate(capacity: max(keys.count, 1))
    starts = .allocate(capacity: max(keys.count, 1))
    flat = .allocate(capacity: max(total, 1))
    var offset = 0
    for (position, key) in keys.enumerated() {
      key.withUnsafeBufferPointer { bytes in
        signatures[position] = Self.signature(bytes)
        if let source = bytes.baseAddress { (flat + offset).update(from: source, count: bytes.count) }
      }
      starts[position] = offset
      offset += key.count
      sealedWants.append(wants[position])
    }
    count = keys.count
    var bits: UInt64 = 3
    while (1 << bits) < keys.count * 4 { bits += 1 }
    shift = 64 - bits
    tableMask = (1 << Int(bits)) - 1
    table.deallocate()
    table = .allocate(capacity: tableMask + 1)
    table.initialize(repeating: 0, count: tableMask + 1)
    for position in 0..<count {
      var slot = Self.slot(signatures[position], shift)
      while table[slot] != 0 { slot = (slot + 1) & tableMask }
      table[slot] = Int32(truncatingIfNeeded: position + 1)
    }
  }

  /// The first table slot of a signature.
  @inline(__always) private static func slot(_ signature: UInt64, _ shift: UInt64) -> Int {
    Int(truncatingIfNeeded: (signature &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  /// A key's length and its first four bytes in one word.
  @inline(__always) static func signature(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var word = UInt64(truncatingIfNeeded: key.count) << 32
    if key.count >= 4, let start = key.baseAddress {
      return word | UInt64(UInt32(littleEndian: UnsafeRawPointer(start).loadUnaligned(as: UInt32.self)))
    }
    let count = min(key.count, 4)
    var shift: UInt64 = 0
    for index in 0..<count {
      word |= UInt64(key[index]) << shift
      shift += 8
    }
    return word
  }

  /// The part of the value at `key` to build, or nil to skip it.
  @inline(__always) func want(_ key: UnsafeBufferPointer<UInt8>) -> Want? {
    guard let position = find(key) else { return keepAll ? .all : nil }
    return sealedWants[position]
  }

  /// The position of `key` among the wanted keys (after `seal()`), or nil.
  @inline(__always) func find(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
    guard count > 0 else { return nil }
    let signature = Self.signature(key)
    var slot = Self.slot(signature, shift)
    while true {
      let entry = Int(table[slot])
      if entry == 0 { return nil }
      let position = entry - 1
      if signatures[position] == signature {
        if key.count <= 4 { return position }
        guard let right = key.baseAddress else { return nil }
        if memcmp(flat + starts[position] + 4, right + 4, key.count - 4) == 0 { return position }
      }
      slot = (slot + 1) & tableMask
    }
  }

  /// Adds the key path `keys` with `want` for the value at its end.
  func insert(_ path: ArraySlice<Key>, _ want: Want, _ store: WantStore) {
    guard let first = path.first else { return }
    let bytes = first.bytes.map { UInt8(bitPattern: $0) }
    let value: Want
    if path.count == 1 {
      value = want
    } else {
      let inner = store.make()
      inner.insert(path.dropFirst(), want, store)
      value = .object(PlanRef(plan: inner))
    }
    if let position = keys.firstIndex(of: bytes) {
      wants[position] = Want.merge(wants[position], value, depth: 0, store)
    } else {
      keys.append(bytes)
      wants.append(value)
    }
  }
}

extension Want {
  /// Both wants at once: the union of what each builds. Deep merges of
  /// recursive models stop at `.all` (always correct, only less pruned).
  static func merge(_ a: Want, _ b: Want, depth: Int, _ store: WantStore) -> Want {
    if depth > 8 { return .all }
    switch (a, b) {
    case (.all, _), (_, .all): return .all
    case (.object(let xRef), .object(let yRef)):
      let x = xRef.plan
      let y = yRef.plan
      if x === y { return a }
      let merged = store.make()
      merged.keepAll = x.keepAll || y.keepAll
      for source in [x, y] {
        for (position, key) in source.keys.enumerated() {
          if let existing = merged.keys.firstIndex(of: key) {
            merged.wants[existing] = merge(
              merged.wants[existing], source.wants[position], depth: depth + 1, store)
          } else {
            merged.keys.append(key)
            merged.wants.append(source.wants[position])
          }
        }
      }
      return .object(PlanRef(plan: merged))
    case (.records(let x), .records(let y)) where x.plan === y.plan: return a
    case (.elements(let x), .elements(let y)): return .elements(merge(x, y, depth: depth + 1, store))
    case (.values(let x), .values(let y)): return .values(merge(x, y, depth: depth + 1, store))
    default: return .all
    }
  }
}

/// The parse plans of one schema: per model, the `ObjectWant` of its
/// objects, made on first use and kept (thread-safe).
package final class ParsePlans: @unchecked Sendable {
  private var mutex = pthread_mutex_t()
  private var plans: [Int: ObjectWant] = [:]
  /// The direct plans of every model (by model index), made on first use.
  private var directs: ContiguousArray<DirectPlan?>? = nil
  /// Owns every object want of these plans.
  private let store = WantStore()

  init() { pthread_mutex_init(&mutex, nil) }
  deinit { pthread_mutex_destroy(&mutex) }

  /// The plan of model `type` of `schema`.
  package func plan(_ type: ModelType, in schema: Schema) -> ObjectWant {
    pthread_mutex_lock(&mutex)
    defer { pthread_mutex_unlock(&mutex) }
    if let plan = plans[type.index] { return plan }
    var builder = PlanBuilder(schema: schema, memo: plans, store: store)
    let plan = builder.model(type.index)
    plans = builder.memo
    store.sealAll()
    return plan
  }

  /// The direct plan of every model of `schema`, by model index (nil for
  /// models mapped from a jansson object; see `DirectPlan`).
  func directPlans(in schema: Schema) -> ContiguousArray<DirectPlan?> {
    pthread_mutex_lock(&mutex)
    if let directs {
      pthread_mutex_unlock(&mutex)
      return directs
    }
    pthread_mutex_unlock(&mutex)
    var wants: [ObjectWant] = []
    for type in schema.models { wants.append(plan(type, in: schema)) }
    pthread_mutex_lock(&mutex)
    defer { pthread_mutex_unlock(&mutex) }
    if let directs { return directs }
    var made = ContiguousArray<DirectPlan?>()
    for (index, type) in schema.models.enumerated() { made.append(DirectPlan.make(type, want: wants[index])) }
    directs = made
    return made
  }
}

/// Builds the wants of models from their properties, locations and subtypes.
private struct PlanBuilder {
  let schema: Schema
  var memo: [Int: ObjectWant]
  let store: WantStore
  /// Models being built, one inside another (a chain of nested models).
  var nesting = 0
  /// The lowest stack address the recursion may reach on this thread.
  let stackLimit = StackGuard.limit()
  /// Past this many nested models, a model's values are built whole (`.all`:
  /// always correct, only not pruned) rather than recursing further.
  static let maxNesting = 200

  mutating func model(_ index: Int) -> ObjectWant {
    if let done = memo[index] { return done }
    let plan = store.make()
    memo[index] = plan
    plan.keyed = !schema.models[index].primaryKey.isEmpty
    // A class cluster reads the keys of every model it can choose.
    var models = [index]
    var seen: Set<Int> = [index]
    var next = 0
    while next < models.count {
      let type = schema.models[models[next]]
      next += 1
      if type.unknownKeys != .ignore { plan.keepAll = true }
      switch type.cluster {
      case .key(let key, let table)?:
        plan.insert([key][...], .all, store)
        for target in table.values.sorted() where target < schema.models.count && seen.insert(target).inserted
        {
          models.append(target)
        }
      case .rules(let rules)?:
        for rule in rules {
          plan.insert([rule.has][...], .all, store)
          if rule.model < schema.models.count && seen.insert(rule.model).inserted {
            models.append(rule.model)
          }
        }
      case nil: break
      }
      for property in type.properties {
        let value: Want =
          (property.rules?.transforms.isEmpty ?? true) ? want(property.type) : .all
        switch property.location {
        case .none: break
        case .path(let keys): plan.insert(keys[...], value, store)
        case .multi(let paths): for path in paths { plan.insert(path.keys[...], .all, store) }
        case .pluck(let array, let element):
          var elementWant: Want = .all
          if case .array(let inner) = property.type.unwrapped,
            (property.rules?.transforms.isEmpty ?? true)
          {
            elementWant = want(inner)
          }
          let perElement = store.make()
          perElement.insert(element[...], elementWant, store)
          plan.insert(array[...], .elements(.object(PlanRef(plan: perElement))), store)
        }
      }
    }
    return plan
  }

  mutating func want(_ type: TypeRef) -> Want {
    switch type {
    case .model(let index):
      guard index < schema.models.count else { return .all }
      if let done = memo[index] { return .object(PlanRef(plan: done)) }
      guard nesting < Self.maxNesting, StackGuard.hasRoom(stackLimit) else { return .all }
      nesting += 1
      defer { nesting -= 1 }
      return .object(PlanRef(plan: model(index)))
    case .array(let element): return element.isLeafy ? .all : .elements(want(element))
    case .dict(let element): return element.isLeafy ? .all : .values(want(element))
    case .optional(let inner): return want(inner)
    case .string, .int, .double, .bool, .url, .json, .date: return .all
    }
  }
}
