/// An object's identity as a dictionary or set key, hashed by a few
/// multiplications instead of SipHash.
///
/// The graph keeps its bookkeeping (drafts, incoming links, the records an
/// import saw) in dictionaries and sets keyed by record, a million lookups
/// for an import of 20,000 issues. `ObjectIdentifier` hashes through
/// `Hasher` (SipHash-1-3, about 90 instructions a key); an address cannot
/// be chosen by whoever writes the input, so the flooding SipHash guards
/// against does not apply, and a 64-bit mixer (murmur3's finalizer, over
/// the address and the table's seed) spreads addresses as well.
struct Identity: Hashable {
  /// The object's address.
  let address: UInt

  /// The identity of `object`.
  init(_ object: AnyObject) { address = UInt(bitPattern: ObjectIdentifier(object)) }

  static func == (lhs: Identity, rhs: Identity) -> Bool { lhs.address == rhs.address }

  func hash(into hasher: inout Hasher) { hasher.combine(address) }

  /// The hash the standard library's tables use: the address and `seed`
  /// through murmur3's 64-bit finalizer.
  func _rawHashValue(seed: Int) -> Int {
    Int(bitPattern: Self.mix(address ^ UInt(bitPattern: seed)))
  }

  /// murmur3's `fmix64`.
  @inline(__always)
  static func mix(_ value: UInt) -> UInt {
    var bits = value
    bits ^= bits >> 33
    bits &*= 0xff51_afd7_ed55_8ccd
    bits ^= bits >> 33
    bits &*= 0xc4ce_b9fe_1a85_ec53
    bits ^= bits >> 33
    return bits
  }
}
