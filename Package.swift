// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Strata",
  products: [
    .library(name: "Strata", targets: ["Strata"]),
    // Opt-in: `Date` and `URL` for the Codable bridge. The only target that imports Foundation
    // (Strata and libstrata stay free of it); CMake does not build it.
    .library(name: "StrataFoundation", targets: ["StrataFoundation"]),
    // The C library as SwiftPM builds it (libStrataC.so); scripts/build makes the shipped
    // libstrata.so with CMake.
    .library(name: "StrataC", type: .dynamic, targets: ["StrataC"]),
    // The `strata` command (its sources are in Sources/strata-cli).
    .executable(name: "strata", targets: ["strata-cli"]),
  ],
  targets: [
    .systemLibrary(
      name: "CJansson",
      pkgConfig: "jansson",
      providers: [.apt(["libjansson-dev"])]
    ),
    // The object graph's storage (Sources/Strata/Graph/Store): the system's libsqlite3.
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    .target(name: "Strata", dependencies: ["CJansson", "CSQLite"]),
    .target(name: "StrataC", dependencies: ["Strata", "CJansson"]),
    .target(name: "StrataFoundation", dependencies: ["Strata"]),
    // The command parses its arguments by hand: the package has no dependencies, so an app that
    // depends on the Strata library resolves nothing (and builds offline).
    .executableTarget(name: "strata-cli", dependencies: ["Strata"]),
    .executableTarget(name: "swift-example", dependencies: ["Strata"], path: "examples/swift"),
    // The child process of the graph store's crash test (Tests/StrataTests/Graph): it writes
    // through GraphStore and is killed with SIGKILL in the middle of the transaction.
    .executableTarget(name: "graph-crash-helper", dependencies: ["Strata"], path: "Tests/graph-crash-helper"),
    .testTarget(name: "StrataTests", dependencies: ["Strata", "StrataFoundation", "CJansson", "CSQLite"]),
  ],
  swiftLanguageModes: [.v6]
)
