// swift-tools-version:6.0
import PackageDescription

// Where the C module `PJSIP` (pjproject's C API) comes from; sources write `import PJSIP` on both:
// - iOS: the `PJSIP` product of swift-pjsip, a static libpjproject.a in an xcframework
//   (pjproject 2.17, video on, PJSUA_MAX_CALLS 8). It carries no linker settings (a binary
//   target cannot), so SwiftPJSUA declares the system frameworks it needs.
// - Linux: a system library found through pkg-config (`swift-pjsua-pjproject`, written by
//   `scripts/install-pjproject.sh`, which builds pjproject from Debian's source archive).
// - macOS: not supported (swift-pjsip has no macOS slice, and the pkg-config path is untested on
//   a Mac), so not declared.
// Everything Swift cannot import from either module's headers lives in CPJSUASupport, one C
// target built on every platform against that platform's headers.
//
// The swift-pjsip dependency is declared only when the manifest is evaluated on an Apple host,
// so that resolution on Linux never needs the network. SWIFTPJSUA_MANIFEST_AS_APPLE=1 evaluates
// the Apple branch on Linux: `make manifest-check` dumps it (nothing is resolved) and checks it.
let appleBranch: Bool = {
    #if canImport(Darwin)
    return true
    #else
    return Context.environment["SWIFTPJSUA_MANIFEST_AS_APPLE"] == "1"
    #endif
}()

let pjsipPackages: [Package.Dependency]
let pjsipTargets: [Target]
let pjsip: Target.Dependency
if appleBranch {
    // Up to the next minor: swift-pjsip bumps its minor whenever the binary changes (0.2.0 was
    // withdrawn for a header/binary mismatch); scripts/check-manifest.py enforces it.
    pjsipPackages = [.package(url: "https://github.com/laconicman/swift-pjsip", .upToNextMinor(from: "0.2.1"))]
    pjsipTargets = []
    pjsip = .product(name: "PJSIP", package: "swift-pjsip", condition: .when(platforms: [.iOS]))
} else {
    pjsipPackages = []
    pjsipTargets = [
        .systemLibrary(
            name: "PJSIP",
            path: "Sources/PJSIP",
            pkgConfig: "swift-pjsua-pjproject",
            providers: [.apt(["(built by scripts/install-pjproject.sh)"])]
        ),
    ]
    pjsip = "PJSIP"
}

// What swift-pjsip's static libpjproject.a needs from the SDK (its README): audio units and
// sessions, video capture/encode/render (video is built in), Network.framework TLS, and libc++
// (pjproject's C++ parts). UIKit, QuartzCore, CoreGraphics and Metal: pjproject's iOS video
// renderer and capture use them (pjproject's own iOS build links them); an app that imports
// SwiftUI gets them anyway, a test bundle may not.
let pjsipLinkerSettings: [LinkerSetting] = [
    "AVFoundation", "AudioToolbox", "CoreAudio", "CoreMedia", "CoreVideo", "VideoToolbox",
    "MetalKit", "Network", "Security", "UIKit", "QuartzCore", "CoreGraphics", "Metal",
].map { .linkedFramework($0, .when(platforms: [.iOS])) } + [.linkedLibrary("c++", .when(platforms: [.iOS]))]

let package = Package(
    name: "swift-pjsua",
    platforms: [.iOS(.v17)],
    products: [
        .library(name: "SwiftPJSUA", targets: ["SwiftPJSUA"]),
        .library(name: "SwiftPJSUAKit", targets: ["SwiftPJSUAKit"]),
        .library(name: "SwiftPJSUAStreams", targets: ["SwiftPJSUAStreams"]),
        .executable(name: "softphone", targets: ["softphone"]),
        .executable(name: "pjsua-bench", targets: ["pjsua-bench"]),
        .executable(name: "stream-echo-agent", targets: ["stream-echo-agent"]),
    ],
    dependencies: pjsipPackages,
    targets: pjsipTargets + [
        .target(name: "CPJSUASupport", dependencies: [pjsip]),
        .target(
            name: "SwiftPJSUA",
            dependencies: [pjsip, "CPJSUASupport"],
            resources: [.copy("PrivacyInfo.xcprivacy")],
            linkerSettings: pjsipLinkerSettings
        ),
        // The voice-agent bridge, its own product: a call's audio to a WebSocket agent (Twilio
        // Media Streams, OpenAI Realtime). Its C half (the WebSocket client, the link, the media
        // tap and pace) plugs into the engine through the engine's MediaHooks SPI, only in an
        // engine started with media streams enabled; an app that imports only SwiftPJSUA links
        // none of it.
        .target(name: "CPJSUAStreams", dependencies: [pjsip, "CPJSUASupport"]),
        .target(name: "SwiftPJSUAStreams", dependencies: ["SwiftPJSUA", "CPJSUAStreams", "CPJSUASupport", pjsip]),
        .target(
            name: "SwiftPJSUAKit",
            dependencies: ["SwiftPJSUA"],
            linkerSettings: ["CallKit", "PushKit", "AVFAudio", "Network"].map { .linkedFramework($0, .when(platforms: [.iOS])) }
        ),
        .executableTarget(name: "softphone", dependencies: ["SwiftPJSUA", "SwiftPJSUAStreams"]),
        // Examples: small programs built on the public API (`swift run echo-bot`).
        .executableTarget(name: "echo-bot", dependencies: ["SwiftPJSUA"], path: "Examples/EchoBot"),
        // Benchmarks: the Swift engine against a plain-C loop over the same library and against
        // the reference pjsua app (`make bench`).
        .target(name: "CPJSUABaseline", dependencies: [pjsip], path: "Benchmarks/CPJSUABaseline"),
        .executableTarget(name: "pjsua-bench", dependencies: ["SwiftPJSUA", "SwiftPJSUAStreams", "CPJSUABaseline", "PJSUATestSupport"],
                         path: "Benchmarks/pjsua-bench"),
        // The WebSocket agent `pjsua-bench stream` streams calls to: plain C and epoll, so that
        // the agent is not what limits the streams measured (the Python one falls behind first).
        .executableTarget(name: "stream-echo-agent", path: "Benchmarks/StreamEchoAgent"),
        // Shared by the test targets (which all run in one process, one pjsua engine at a time)
        // and the benchmarks: engine turns, peer processes, free ports.
        .target(name: "PJSUATestSupport", dependencies: ["SwiftPJSUA"], path: "Tests/PJSUATestSupport"),
        // The engine's suites and the voice-agent bridge's (Streams/), which run on the same engine
        // turns: one test process, one pjsua engine at a time.
        .testTarget(name: "SwiftPJSUATests",
                    dependencies: ["SwiftPJSUA", "CPJSUASupport", "SwiftPJSUAStreams", "CPJSUAStreams", "PJSUATestSupport"]),
        .testTarget(name: "SwiftPJSUAKitTests", dependencies: ["SwiftPJSUAKit", "SwiftPJSUA", "PJSUATestSupport"]),
        .testTarget(name: "softphoneTests", dependencies: ["softphone"]),
    ],
    swiftLanguageModes: [.v6]
)
