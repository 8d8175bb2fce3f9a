// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Strata",
  products: [
    // `import Strata` maps JSON onto models; `import StrataGraph` adds the object graph
    // (contexts, imports, queries) kept in SQLite.
    .library(name: "Strata", targets: ["Strata", "StrataGraph"]),
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
    .target(name: "Strata", dependencies: ["CJansson"]),
    // The object graph (Sources/StrataGraph), built on the mapping engine: Strata does not know it.
    .target(name: "StrataGraph", dependencies: ["Strata", "CJansson", "CSQLite"]),
    .target(name: "StrataC", dependencies: ["Strata", "StrataGraph", "CJansson"]),
    .target(name: "StrataFoundation", dependencies: ["Strata"]),
    // The command parses its arguments by hand: the package has no dependencies, so an app that
    // depends on the Strata library resolves nothing (and builds offline).
    .executableTarget(name: "strata-cli", dependencies: ["Strata", "StrataGraph"]),
    .executableTarget(name: "swift-example", dependencies: ["StrataGraph"], path: "examples/swift"),
    // The child process of the graph store's crash test (Tests/StrataTests/Graph): it writes
    // through GraphStore and is killed with SIGKILL in the middle of the transaction.
    .executableTarget(
      name: "graph-crash-helper", dependencies: ["StrataGraph"], path: "Tests/graph-crash-helper"),
    .testTarget(
      name: "StrataTests", dependencies: ["Strata", "StrataGraph", "StrataFoundation", "CJansson", "CSQLite"]),
  ],
  swiftLanguageModes: [.v6]
)
