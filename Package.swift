// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Strata",
  products: [
    .library(name: "Strata", targets: ["Strata"]),
    .library(name: "strata", type: .dynamic, targets: ["StrataC"]),
    .executable(name: "strata-cli", targets: ["strata-cli"]),
  ],
  targets: [
    .systemLibrary(
      name: "CJansson",
      pkgConfig: "jansson",
      providers: [.apt(["libjansson-dev"])]
    ),
    .target(name: "Strata", dependencies: ["CJansson"]),
    .target(name: "StrataC", dependencies: ["Strata", "CJansson"]),
    // The command parses its arguments by hand: the package has no dependencies, so an app that
    // depends on the Strata library resolves nothing (and builds offline).
    .executableTarget(name: "strata-cli", dependencies: ["Strata"]),
    .executableTarget(name: "swift-example", dependencies: ["Strata"], path: "examples/swift"),
    .testTarget(name: "StrataTests", dependencies: ["Strata", "CJansson"]),
  ],
  swiftLanguageModes: [.v6]
)
