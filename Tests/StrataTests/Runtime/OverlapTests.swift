import Strata
import Testing

/// `Overlap.run`: every item a producer sends is given to the consumer or
/// to `drop`, exactly once and in order, whether the consumer takes all,
/// stops early, or the producer ends early; the producer's answer comes back.
@Test(arguments: [(0, 0), (1, 1), (7, 3), (40, 1), (40, 2), (40, 5), (200, 8)])
func everyBatchSentIsConsumedOrDroppedOnce(batches: Int, depth: Int) {
  for stopAt in [-1, 0, 1, batches / 2, batches - 1] {
    var consumed: [Int] = []
    var dropped: [Int] = []
    let answer = Overlap.run(
      depth: depth,
      produce: { (channel: Overlap.Channel<Int>) -> Int in
        var count = 0
        for batch in 0..<batches {
          let items = Array(batch * 3..<batch * 3 + 3)
          guard channel.send(items) else { break }
          count += 1
        }
        return count
      },
      consume: { batch in
        consumed += batch
        return consumed.count / 3 - 1 != stopAt
      },
      drop: { batch in dropped += batch })
    let sent = answer ?? -1
    let handed = consumed + dropped
    #expect(handed == Array(0..<sent * 3), "batches \(batches), depth \(depth), stop at \(stopAt)")
    #expect(Set(handed).count == handed.count, "an item given twice")
    if stopAt < 0 || stopAt >= batches { #expect(sent == batches && dropped.isEmpty) }
  }
}
