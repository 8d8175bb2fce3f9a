// swift-tools-version:6.0
// The Swift peer of the Strata benchmark: JSONDecoder with Codable structs of
// the same shape as Benchmarks/schema.json. Foundation is allowed here (it is
// not part of libstrata). Build with `swift build -c release`.
import PackageDescription

let package = Package(
  name: "codable-bench",
  targets: [
    .executableTarget(name: "codable-bench")
  ],
  swiftLanguageModes: [.v6]
)
