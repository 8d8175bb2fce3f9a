/// What the byte parser builds of an API response: the keys down to the
/// records, each record as its model's plan says, and the keys down to the
/// metadata, as its model's plan says; everything else in the response is
/// skipped. Graph imports and `Schema.mapResponseBytes` read text with it.
package struct ResponsePlan {
  /// Owns the objects on the way down (the models' plans are the schema's).
  private let store = WantStore()
  /// The want of the whole response.
  let want: Want

  /// The plan for the records of `type` at `root` (no keys: the whole
  /// response) and, when given, the metadata of model `meta.type` at `meta.keys`.
  package init(
    schema: Schema, records type: ModelType, root: [Key], meta: (keys: [Key], type: ModelType)? = nil
  ) {
    let records = Want.records(PlanRef(plan: schema.parsePlans.plan(type, in: schema)))
    var top = Self.down(root, to: records, store)
    if let meta {
      let metadata = Want.object(PlanRef(plan: schema.parsePlans.plan(meta.type, in: schema)))
      top = Want.merge(top, Self.down(meta.keys, to: metadata, store), depth: 0, store)
    }
    store.sealAll()
    want = top
  }

  /// `want` at the end of the keys `keys` from the top.
  private static func down(_ keys: [Key], to want: Want, _ store: WantStore) -> Want {
    guard !keys.isEmpty else { return want }
    let top = store.make()
    top.insert(keys[...], want, store)
    return .object(PlanRef(plan: top))
  }

  /// Parses `bytes` as the plan says: nil when the parser gave up (the
  /// caller then parses with jansson).
  package func parse(_ bytes: UnsafeBufferPointer<UInt8>, markers: NumberMarkers? = nil) -> JPtr? {
    withExtendedLifetime(store) { PrunedParser.parse(bytes, want, markers: markers) }
  }
}
