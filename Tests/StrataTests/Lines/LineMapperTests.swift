import Strata
import Testing

/// `LineMapper` over a byte source reads into one 256 KiB buffer, the
/// unfinished line moved to its front after each read: lines shorter than,
/// as long as, and longer than the buffer, one past the limit, and a last
/// line without its newline, read in pieces of several sizes.
@Test func linesLongerThanTheReadBuffer() throws {
  let schema = try Schema(
    parsing: #"{"strata": 1, "models": {"S": {"properties": {"s": {"type": "string"}}}}}"#)
  let sizes = [1, 300_000, 2, 262_100, 262_144, 700_000, 3, 140_000, 5]
  var bytes: [UInt8] = []
  for (index, size) in sizes.enumerated() {
    if index > 0 { bytes.append(0x0A) }
    bytes += Array(#"{"s": ""#.utf8) + [UInt8](repeating: UInt8(ascii: "a") + UInt8(index), count: size)
    bytes += Array(#""}"#.utf8)
  }
  for piece in [4096, 100_000, 1 << 20] {
    var offset = 0
    let mapper = try schema.mapLines("S", maxLineLength: 600_000) { buffer in
      let count = min(piece, buffer.count, bytes.count - offset)
      bytes.withUnsafeBytes { source in
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + count]))
      }
      offset += count
      return count
    }
    var seen: [Int] = []
    var failed: [Int] = []
    for result in mapper {
      switch result {
      case .success(let model):
        if case .string(let text)? = model["s"] { seen.append(text.utf8.count) }
      case .failure(let error):
        failed.append(error.line)
        #expect(error.errors.first?.code == .syntax)
      }
    }
    #expect(seen == sizes.enumerated().filter { $0.offset != 5 }.map(\.element), "pieces of \(piece)")
    #expect(failed == [6], "pieces of \(piece)")
  }
}
