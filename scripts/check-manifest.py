#!/usr/bin/env python3
"""Checks Package.swift's iOS branch on Linux, where no Apple host can evaluate it.

The manifest declares swift-pjsip only when evaluated on an Apple host (Linux resolution stays
offline). SWIFTPJSUA_MANIFEST_AS_APPLE=1 makes `swift package dump-package` evaluate that branch
here without resolving anything; this script dumps both branches and checks what an iOS app
depends on: the dependency and its version, the PJSIP product and its platform condition, the
SDK linker settings, the platforms, the privacy manifest, and that every module the engine's
sources import is built on iOS as on Linux.

Prints one line per check and exits 1 if any fails. Usage: scripts/check-manifest.py [package dir]
"""
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)

SWIFT_PJSIP_URL = "https://github.com/laconicman/swift-pjsip"
SWIFT_PJSIP_FROM = "0.2.1"
# swift-pjsip's static libpjproject.a needs these from the iOS SDK (see Package.swift).
# UIKit, QuartzCore, CoreGraphics and Metal: pjproject's iOS video code (its renderer and
# capture) uses them, and pjproject's own iOS build links them; an app importing SwiftUI gets them
# anyway, a test bundle may not.
IOS_FRAMEWORKS = {"AVFoundation", "AudioToolbox", "CoreAudio", "CoreMedia", "CoreVideo",
                  "VideoToolbox", "MetalKit", "Network", "Security",
                  "UIKit", "QuartzCore", "CoreGraphics", "Metal"}
IOS_LIBRARIES = {"c++"}
KIT_FRAMEWORKS = {"CallKit", "PushKit", "AVFAudio", "Network"}
# Modules that come with the toolchain or the SDK, not from the package graph.
# (The Kit's Apple adapters import SDK frameworks; its linker settings are checked below.)
TOOLCHAIN_MODULES = {"Foundation", "FoundationEssentials", "Dispatch", "Synchronization", "os",
                     "Glibc", "Darwin", "Musl", "CallKit", "PushKit", "AVFAudio", "AVFoundation", "Network"}

failures = 0


def check(ok, what, detail=""):
    global failures
    print(("ok    " if ok else "FAIL  ") + what + ("" if ok or not detail else f": {detail}"))
    if not ok:
        failures += 1


def dump(as_apple):
    env = dict(os.environ)
    env.pop("SWIFTPJSUA_MANIFEST_AS_APPLE", None)
    if as_apple:
        env["SWIFTPJSUA_MANIFEST_AS_APPLE"] = "1"
    out = subprocess.run(["swift", "package", "--package-path", str(ROOT), "dump-package"],
                         env=env, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        sys.exit(f"check-manifest: swift package dump-package failed (apple={as_apple})")
    return json.loads(out.stdout)


def target(manifest, name):
    return next((t for t in manifest["targets"] if t["name"] == name), None)


def dependencies(t):
    """(kind, name, package, platforms or None) for each dependency of a target."""
    result = []
    for dep in t["dependencies"]:
        if "byName" in dep:
            name, condition = dep["byName"]
            result.append(("target", name, None, condition and condition.get("platformNames")))
        elif "target" in dep:
            name, condition = dep["target"]
            result.append(("target", name, None, condition and condition.get("platformNames")))
        elif "product" in dep:
            name, package, _, condition = dep["product"]
            result.append(("product", name, package, condition and condition.get("platformNames")))
    return result


def linker(t):
    """{(kind, value): platforms} of a target's linker settings."""
    result = {}
    for s in t.get("settings", []):
        if s.get("tool") != "linker":
            continue
        kind, value = next(iter(s["kind"].items()))
        platforms = (s.get("condition") or {}).get("platformNames")
        result[(kind, value["_0"])] = platforms
    return result


def imported_modules(folder):
    modules = set()
    for path in (ROOT / "Sources" / folder).rglob("*.swift"):
        for line in path.read_text().splitlines():
            m = re.match(r"\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:\w+\s+)?([A-Za-z_]\w*)", line)
            if m and not line.lstrip().startswith("//"):
                modules.add(m.group(1))
    return modules


linux = dump(as_apple=False)
apple = dump(as_apple=True)

# Linux resolves offline.
check(linux["dependencies"] == [], "Linux: no package dependency (resolution needs no network)",
      str(linux["dependencies"]))
check(target(linux, "PJSIP") is not None and target(linux, "PJSIP")["type"] == "system",
      "Linux: PJSIP is a system library (pkg-config)")

# The dependency and its version.
deps = apple["dependencies"]
source = deps[0]["sourceControl"][0] if len(deps) == 1 and "sourceControl" in deps[0] else None
url = source and source["location"].get("remote", [{}])[0].get("urlString")
check(url == SWIFT_PJSIP_URL, f"Apple: one dependency, {SWIFT_PJSIP_URL}", str(deps))
requirement = source and source["requirement"].get("range", [{}])[0]
# Up to the next minor, not the next major: swift-pjsip bumps its minor whenever the binary
# changes (0.2.0 was withdrawn: its headers showed Swift other limits than the binary was built
# with, and pjsua_conf_port_info was 136 bytes against 1104), and `from:` would take any 0.x
# binary whose struct layouts the engine was never compiled against.
major, minor = (int(part) for part in SWIFT_PJSIP_FROM.split(".")[:2])
check(bool(requirement) and requirement.get("lowerBound") == SWIFT_PJSIP_FROM
      and requirement.get("upperBound") == f"{major}.{minor + 1}.0",
      f'Apple: swift-pjsip .upToNextMinor(from: "{SWIFT_PJSIP_FROM}") (a new minor is a new binary)', str(requirement))

# Platforms that are true: iOS 17, nothing else (no macOS slice, no tested macOS path).
platforms = [(p["platformName"], p["version"]) for p in apple["platforms"]]
check(platforms == [("ios", "17.0")], "Apple: platforms are exactly iOS 17", str(platforms))
check(target(apple, "PJSIP") is None, "Apple: no system-library PJSIP target (the product serves iOS)")

# Every module the engine (and the Kit) imports on Linux is built on iOS too.
for folder in ("SwiftPJSUA", "SwiftPJSUAKit"):
    lt, at = target(linux, folder), target(apple, folder)
    check(at is not None, f"Apple: target {folder} exists")
    if at is None or lt is None:
        continue
    linux_deps = {name: platforms for _, name, _, platforms in dependencies(lt)}
    apple_deps = {name: (kind, package, platforms) for kind, name, package, platforms in dependencies(at)}
    for module in sorted(imported_modules(folder) - TOOLCHAIN_MODULES):
        if module == "PJSIP":
            kind, package, plats = apple_deps.get("PJSIP", (None, None, None))
            check(kind == "product" and package == "swift-pjsip" and plats == ["ios"],
                  f"Apple: {folder} imports PJSIP: swift-pjsip's PJSIP product, for iOS only",
                  str(apple_deps.get("PJSIP")))
            check(target(linux, "PJSIP") is not None and "PJSIP" in linux_deps and linux_deps["PJSIP"] is None,
                  f"Linux: {folder} imports PJSIP: the system library, unconditionally")
            continue
        kind, package, plats = apple_deps.get(module, (None, None, None))
        check(kind == "target" and plats is None and target(apple, module) is not None,
              f"Apple: {folder} imports {module}: built on every platform (no condition)",
              str(apple_deps.get(module)))
        check(module in linux_deps and linux_deps[module] is None,
              f"Linux: {folder} imports {module}: a dependency on Linux too")
        # A C target the engine imports must itself reach pjproject's headers on iOS.
        ct = target(apple, module)
        if ct is not None and module.startswith("C"):
            cdeps = {name: (kind, package, plats) for kind, name, package, plats in dependencies(ct)}
            check(cdeps.get("PJSIP") == ("product", "swift-pjsip", ["ios"]),
                  f"Apple: C target {module} is built against swift-pjsip's headers on iOS", str(cdeps))

# Linker settings the static library needs, for iOS only.
engine_linker = linker(target(apple, "SwiftPJSUA"))
wanted = {("linkedFramework", f) for f in IOS_FRAMEWORKS} | {("linkedLibrary", l) for l in IOS_LIBRARIES}
missing = sorted(f"{k}:{v}" for k, v in wanted if engine_linker.get((k, v)) != ["ios"])
extra = sorted(f"{k}:{v}" for (k, v), p in engine_linker.items() if (k, v) not in wanted or p != ["ios"])
check(not missing and not extra, "Apple: SwiftPJSUA links the SDK frameworks and libc++ that swift-pjsip needs, for iOS only",
      f"missing {missing}, unexpected {extra}")
kit_linker = linker(target(apple, "SwiftPJSUAKit"))
kit_wanted = {("linkedFramework", f) for f in KIT_FRAMEWORKS}
check(all(kit_linker.get(k) == ["ios"] for k in kit_wanted) and set(kit_linker) == kit_wanted,
      "Apple: SwiftPJSUAKit links CallKit, PushKit, AVFAudio and Network, for iOS only", str(kit_linker))
check(linker(target(linux, "SwiftPJSUA")) == engine_linker, "Linux and Apple branches declare the same linker settings")

# The privacy manifest ships with the engine.
resources = [r["path"] for r in target(apple, "SwiftPJSUA").get("resources", [])]
check("PrivacyInfo.xcprivacy" in resources, "Apple: SwiftPJSUA carries PrivacyInfo.xcprivacy as a resource", str(resources))
check((ROOT / "Sources/SwiftPJSUA/PrivacyInfo.xcprivacy").is_file(), "the privacy manifest file exists")

# The engine's Swift sources are the same on every platform: what differs lives in C
# (CPJSUASupport), and the Linux module shim only selects pjproject's configuration.
engine_sources = sorted((ROOT / "Sources" / "SwiftPJSUA").rglob("*.swift"))
conditional = [f"{p.relative_to(ROOT)}:{i}" for p in engine_sources
               for i, line in enumerate(p.read_text().splitlines(), 1)
               if re.match(r"\s*#(if|elseif)\b", line) and "//" not in line]
check(not conditional, "the engine's Swift sources compile the same on every platform (no #if without a // why)",
      ", ".join(conditional))
pthread_types = [f"{p.relative_to(ROOT)}:{i}" for p in engine_sources
                 for i, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"\bpthread_t\b", line)]
check(not pthread_types, "no pthread_t in the engine's Swift (a pointer on Darwin, an integer on Linux)",
      ", ".join(pthread_types))
shim = (ROOT / "Sources/PJSIP/shim.h").read_text()
shim_code = re.sub(r"/\*.*?\*/", "", shim, flags=re.S)
declarations = [line.strip() for line in shim_code.splitlines()
                if line.strip() and not line.strip().startswith("#")]
check(not declarations, "the Linux PJSIP shim declares nothing (swift-pjsip's module has only pjproject's headers)",
      "; ".join(declarations))

print(f"check-manifest: {'all checks passed' if failures == 0 else f'{failures} check(s) failed'}")
sys.exit(1 if failures else 0)
