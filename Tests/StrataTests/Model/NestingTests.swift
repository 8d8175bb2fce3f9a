import CJansson
import Testing

@testable import Strata

/// A random JSON value of at most `depth` levels: scalars, and arrays and
/// objects whose members are often all scalars (the flat containers
/// `Nesting.exceeds` answers without walking).
private func randomValue(_ random: inout SeededRandom, depth: Int) -> JPtr {
  let kind = depth == 0 ? 0 : random.below(3)
  switch kind {
  case 0:
    return random.below(2) == 0 ? json_integer(Int64(random.below(100))) : json_string("x")
  case 1:
    guard let array = json_array() else { return json_null() }
    let flat = random.below(2) == 0
    for _ in 0..<random.below(4) {
      _ = json_array_append_new(
        array, flat ? json_integer(1) : randomValue(&random, depth: depth - 1))
    }
    return array
  default:
    guard let object = json_object() else { return json_null() }
    let flat = random.below(2) == 0
    for index in 0..<random.below(4) {
      _ = json_object_set_new(
        object, "k\(index)", flat ? json_null() : randomValue(&random, depth: depth - 1))
    }
    return object
  }
}

/// The nesting of `value` by recursion: 0 for a scalar, one more than the
/// deepest member for an array or object.
private func nesting(_ value: JPtr) -> Int {
  var deepest = 0
  if JValue.isArray(value) {
    for index in 0..<json_array_size(value) {
      deepest = max(deepest, nesting(json_array_get(value, index)))
    }
    return deepest + 1
  }
  if JValue.isObject(value) {
    var iterator = json_object_iter(value)
    while let at = iterator {
      deepest = max(deepest, nesting(json_object_iter_value(at)))
      iterator = json_object_iter_next(value, at)
    }
    return deepest + 1
  }
  return 0
}

@Test func nestingExceedsAgreesWithTheDepthByRecursion() {
  var random = SeededRandom(seed: 28)
  for _ in 0..<2000 {
    let value = randomValue(&random, depth: 1 + random.below(5))
    defer { json_decref(value) }
    let depth = nesting(value)
    for limit in 0...7 {
      #expect(Nesting.exceeds(value, limit) == (depth > limit), "limit \(limit), depth \(depth)")
    }
  }
}
