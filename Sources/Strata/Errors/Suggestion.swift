/// The nearest known name to a misspelt one, for "did you mean" hints in
/// error messages (unknown types, models, properties and keys).
///
/// Distance is the optimal-string-alignment form of Damerau-Levenshtein
/// (insertions, deletions, substitutions and swaps of two neighbours each
/// cost 1), compared without regard to ASCII case. A name is suggested when
/// its distance is at most a third of the longer name's length (at least 1,
/// at most 3); the nearest wins, ties go to the name that sorts first, so
/// the hint never depends on hash order.
package enum Suggestion {
  /// The candidate nearest to `name`, or nil when none is near enough.
  package static func nearest<S: Sequence>(to name: String, among candidates: S) -> String?
  where S.Element == String {
    let target = Array(name.lowercased().utf8)
    guard !target.isEmpty, target.count <= 256 else { return nil }
    var best: (distance: Int, name: String)? = nil
    for candidate in candidates where candidate != name {
      let other = Array(candidate.lowercased().utf8)
      guard !other.isEmpty, other.count <= 256 else { continue }
      let limit = min(3, max(1, max(target.count, other.count) / 3))
      guard abs(target.count - other.count) <= limit else { continue }
      let distance = Suggestion.distance(target, other)
      guard distance <= limit else { continue }
      if let current = best,
        current.distance < distance || (current.distance == distance && current.name <= candidate)
      {
        continue
      }
      best = (distance, candidate)
    }
    return best?.name
  }

  /// " (did you mean 'X'?)" for the nearest candidate, or "" when none is near.
  package static func hint<S: Sequence>(for name: String, among candidates: S) -> String
  where S.Element == String {
    guard let nearest = nearest(to: name, among: candidates) else { return "" }
    return " (did you mean '\(nearest)'?)"
  }

  /// " (did you mean 'X'?)" for the nearest candidate, or " (expected a, b, c)"
  /// listing them all when none is near: for closed vocabularies such as schema keys.
  package static func hintOrList(for name: String, among candidates: [String]) -> String {
    let near = hint(for: name, among: candidates)
    return near.isEmpty ? " (expected \(candidates.joined(separator: ", ")))" : near
  }

  /// The optimal-string-alignment distance between two byte strings.
  static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    let width = b.count + 1
    var previous2 = [Int](repeating: 0, count: width)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: width)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
          value = min(value, previous2[j - 2] + 1)
        }
        current[j] = value
      }
      (previous2, previous, current) = (previous, current, previous2)
    }
    return previous[b.count]
  }
}
