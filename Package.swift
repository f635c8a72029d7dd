// swift-tools-version:6.0
import PackageDescription

// The C module `PJSIP` comes from two places, and sources write `import PJSIP` in both cases:
// - Apple hosts: the `PJSIP` product of swift-pjsip (an iOS/macOS xcframework of pjproject 2.17).
// - Linux: a system library found through pkg-config (`libpjproject`), which
//   `scripts/install-pjproject.sh` builds from Debian's source archive.
// The Apple dependency is declared only when the manifest is evaluated on an Apple host, so that
// package resolution on Linux never needs the network.
#if canImport(Darwin)
let pjsipPackages: [Package.Dependency] = [
    .package(url: "https://github.com/laconicman/swift-pjsip", from: "0.2.1"),
]
let pjsipTargets: [Target] = []
let pjsip: Target.Dependency = .product(name: "PJSIP", package: "swift-pjsip")
#else
let pjsipPackages: [Package.Dependency] = []
let pjsipTargets: [Target] = [
    .systemLibrary(
        name: "PJSIP",
        path: "Sources/PJSIP",
        pkgConfig: "libpjproject",
        providers: [.apt(["(built by scripts/install-pjproject.sh)"])]
    ),
]
let pjsip: Target.Dependency = "PJSIP"
#endif

let package = Package(
    name: "swift-pjsua",
    platforms: [.iOS(.v17), .macOS(.v14)],
    products: [
        .library(name: "SwiftPJSUA", targets: ["SwiftPJSUA"]),
        .library(name: "SwiftPJSUAKit", targets: ["SwiftPJSUAKit"]),
        .executable(name: "softphone", targets: ["softphone"]),
        .executable(name: "pjsua-bench", targets: ["pjsua-bench"]),
    ],
    dependencies: pjsipPackages,
    targets: pjsipTargets + [
        .target(name: "SwiftPJSUA", dependencies: [pjsip]),
        .target(name: "SwiftPJSUAKit", dependencies: ["SwiftPJSUA"]),
        .executableTarget(name: "softphone", dependencies: ["SwiftPJSUA"]),
        // Benchmarks: the Swift engine against a plain-C loop over the same library and against
        // the reference pjsua app (`make bench`).
        .target(name: "CPJSUABaseline", dependencies: [pjsip], path: "Benchmarks/CPJSUABaseline"),
        .executableTarget(name: "pjsua-bench", dependencies: ["SwiftPJSUA", "CPJSUABaseline", "PJSUATestSupport"],
                         path: "Benchmarks/pjsua-bench"),
        // Shared by the test targets (which all run in one process, one pjsua engine at a time)
        // and the benchmarks: engine turns, peer processes, free ports.
        .target(name: "PJSUATestSupport", dependencies: ["SwiftPJSUA"], path: "Tests/PJSUATestSupport"),
        .testTarget(name: "SwiftPJSUATests", dependencies: ["SwiftPJSUA", "PJSUATestSupport"]),
        .testTarget(name: "SwiftPJSUAKitTests", dependencies: ["SwiftPJSUAKit", "SwiftPJSUA", "PJSUATestSupport"]),
        .testTarget(name: "softphoneTests", dependencies: ["softphone"]),
    ],
    swiftLanguageModes: [.v6]
)
