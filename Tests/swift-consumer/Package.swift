// swift-tools-version:6.0
// A user's app, as far as the Strata package can tell: a separate package that
// depends on the repository by path and uses only its public API
// (scripts/check-swift-consumer builds and runs it).
import PackageDescription

// The package identity of a path dependency is the last component of its
// folder, whatever the checkout is called (strata, main, a CI clone).
let strata = Context.packageDirectory.split(separator: "/").dropLast(2).last.map(String.init) ?? "strata"

let package = Package(
  name: "swift-consumer",
  dependencies: [.package(path: "../..")],
  targets: [
    .executableTarget(
      name: "swift-consumer",
      dependencies: [
        .product(name: "Strata", package: strata),
        .product(name: "StrataFoundation", package: strata),
      ])
  ],
  swiftLanguageModes: [.v6]
)
