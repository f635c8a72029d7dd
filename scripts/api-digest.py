#!/usr/bin/env python3
"""The public API of a Swift module as stable, sorted text, from the symbol graphs of a build.

`swift package dump-symbol-graph --skip-synthesized-members` writes one JSON file per module
(`SwiftPJSUA.symbols.json`) and one per module it extends (`SwiftPJSUA@Swift.symbols.json`).
This reduces them to one line per public declaration, `Path.to.symbol: declaration`, plus one
line per conformance, `Path.to.Type: conforms to Protocol`, sorted, without doc comments or
source locations: a change of spelling is a one-line diff.

Usage:
  api-digest.py SYMBOLGRAPH_DIR --write DIR MODULE...   rewrite DIR/MODULE.txt
  api-digest.py SYMBOLGRAPH_DIR --check DIR MODULE...   compare with DIR/MODULE.txt; exit 1 with the diff
"""
import difflib
import glob
import json
import os
import sys

# Conformances every type gets from the compiler; listing them would only add noise.
IMPLICIT = {"Swift.Copyable", "Swift.Escapable", "Swift.SendableMetatype", "Swift.BitwiseCopyable"}


def constraint(c):
    """One generic constraint as Swift spells it: `T : P` or `T == U`."""
    return f"{c['lhs']} {'==' if c['kind'] == 'sameType' else ':'} {c['rhs']}"


def text(fragments):
    return " ".join("".join(fragment["spelling"] for fragment in fragments).split())


def digest(directory, module):
    files = sorted(glob.glob(os.path.join(directory, f"{module}.symbols.json"))
                   + glob.glob(os.path.join(directory, f"{module}@*.symbols.json")))
    if not files:
        sys.exit(f"api-digest: no symbol graph for {module} in {directory}")
    graphs = []
    for path in files:
        with open(path, encoding="utf-8") as handle:
            graphs.append(json.load(handle))
    lines = set()
    # Every name a relationship may point at: this module's symbols, and the external types its
    # extensions extend (e.g. PJSUA, which the Kit extends).
    names = {}
    for graph in graphs:
        for relation in graph["relationships"]:
            if relation.get("targetFallback"):
                names.setdefault(relation["target"], relation["targetFallback"])
    public = set()
    # The constraints a generic type declares on its own parameters: the symbol graph repeats
    # them on every member of every extension of the type, where they say nothing new (only a
    # constraint an extension adds, `extension T where ...`, is worth printing).
    declared = {}
    for graph in graphs:
        for symbol in graph["symbols"]:
            generics = symbol.get("swiftGenerics", {})
            if generics.get("parameters"):
                declared[".".join(symbol["pathComponents"])] = {
                    constraint(c) for c in generics.get("constraints", [])}
    for graph in graphs:
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open") or symbol.get("spi"):
                continue
            name = ".".join(symbol["pathComponents"])
            extension = symbol.get("swiftExtension", {})
            owner = declared.get(".".join(symbol["pathComponents"][:-1]), set())
            constraints = [constraint(c) for c in extension.get("constraints", []) if constraint(c) not in owner]
            if extension.get("extendedModule", module) != module:
                name = f"{extension['extendedModule']}.{name}"
            names[symbol["identifier"]["precise"]] = name
            public.add(symbol["identifier"]["precise"])
            where = f" (where {', '.join(constraints)})" if constraints else ""
            lines.add(f"{name}: {text(symbol['declarationFragments'])}{where}")
    own = {symbol["identifier"]["precise"] for graph in graphs for symbol in graph["symbols"]}
    for graph in graphs:
        for relation in graph["relationships"]:
            source = relation["source"]
            # A public symbol of ours, or an external type one of our extensions conforms.
            if relation["kind"] != "conformsTo" or source not in names or (source in own and source not in public):
                continue
            target = relation.get("targetFallback") or names.get(relation["target"], relation["target"])
            if target not in IMPLICIT:
                lines.add(f"{names[source]}: conforms to {target}")
    return sorted(lines)


def main(arguments):
    if len(arguments) < 4 or arguments[1] not in ("--write", "--check"):
        sys.exit(__doc__)
    directory, mode, baseline, modules = arguments[0], arguments[1], arguments[2], arguments[3:]
    failed = False
    for module in modules:
        current = [f"# The public API of {module}: `make api-baseline` writes it, `make api-check` compares.\n"]
        current += [line + "\n" for line in digest(directory, module)]
        path = os.path.join(baseline, f"{module}.txt")
        if mode == "--write":
            os.makedirs(baseline, exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.writelines(current)
            print(f"api-digest: wrote {path} ({len(current) - 1} lines)")
            continue
        try:
            with open(path, encoding="utf-8") as handle:
                recorded = handle.readlines()
        except FileNotFoundError:
            recorded = []
        if recorded != current:
            failed = True
            sys.stdout.writelines(difflib.unified_diff(recorded, current, f"{path} (checked in)", f"{module} (this build)"))
    if failed:
        print("api-check: the public API differs from the baseline above. If the change is meant, run "
              "`make api-baseline` and commit api/ with it.", file=sys.stderr)
        return 1
    if mode == "--check":
        print(f"api-check: {', '.join(modules)} match {baseline}/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
