// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Strata",
  products: [
    .library(name: "Strata", targets: ["Strata"]),
    .library(name: "strata", type: .dynamic, targets: ["StrataC"]),
    .executable(name: "strata-cli", targets: ["strata-cli"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
  ],
  targets: [
    .systemLibrary(
      name: "CJansson",
      pkgConfig: "jansson",
      providers: [.apt(["libjansson-dev"])]
    ),
    .target(name: "Strata", dependencies: ["CJansson"]),
    .target(name: "StrataC", dependencies: ["Strata", "CJansson"]),
    .executableTarget(
      name: "strata-cli",
      dependencies: [
        "Strata",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(name: "swift-example", dependencies: ["Strata"], path: "examples/swift"),
    .testTarget(name: "StrataTests", dependencies: ["Strata", "CJansson"]),
  ],
  swiftLanguageModes: [.v6]
)
