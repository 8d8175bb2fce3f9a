import Foundation
import Testing

/// docs/architecture.md, Rules: no Foundation in `Sources/Strata`,
/// `Sources/StrataGraph` or `Sources/StrataC` (the Codable bridge included); only
/// `Sources/StrataFoundation` may import it. Tests/c/check_ldd.sh checks the
/// built library; this checks the sources, so a SwiftPM-only build cannot
/// slip it in either.
@Test func onlyStrataFoundationImportsFoundation() throws {
  let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
  var offenders: [String] = []
  var scanned = 0
  for target in ["Strata", "StrataGraph", "StrataC", "StrataFoundation"] {
    let folder = sources.appendingPathComponent(target)
    let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
    for file in files where file.hasSuffix(".swift") {
      let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      scanned += 1
      let imports = text.split(separator: "\n").contains { line in
        let words = line.split(separator: " ")
        return words.count >= 2 && words[words.count - 2] == "import"
          && ["Foundation", "FoundationEssentials", "FoundationNetworking"].contains(
            String(words[words.count - 1]))
      }
      if imports && target != "StrataFoundation" { offenders.append("\(target)/\(file)") }
    }
  }
  #expect(scanned > 50)
  #expect(offenders.isEmpty, "Foundation imported by \(offenders)")
}
