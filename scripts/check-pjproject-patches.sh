#!/usr/bin/env bash
# check-pjproject-patches.sh TREE...: applies our fixes (install-pjproject.sh's own and
# scripts/pjproject-patches/) to a copy of each pjproject TREE (a directory or a tarball) and
# prints, per tree, what each patch did: applied, recognised as upstream's fix already there, or
# refused because the code changed shape. For the day Debian's
# pjproject moves (a 2.18 tree must say "upstream" or apply, never fail) and for patch review.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rc=0
for tree in "$@"; do
    work=$(mktemp -d)
    if [ -d "$tree" ]; then cp -a "$tree" "$work/src"; else mkdir "$work/src"; tar -xf "$tree" -C "$work/src"; fi
    SRC=$(dirname "$(find "$work/src" -maxdepth 3 -name version.mak -print -quit)")
    if (
        set -euo pipefail
        step() { printf '    %s\n' "$*"; }
        die() { printf '    refused: %s\n' "$*" >&2; exit 1; }
        # The installer's own fixes and its patch loop: the lines between its two markers, run
        # as the installer runs them (OUR_PATCHES=all), on the copy.
        OUR_PATCHES=all
        PATCH_DIR="$HERE/pjproject-patches"
        region=$(sed -n '/^# Our fixes, unless PJPROJECT_PATCHES=none/,/^fi  # our fixes$/p' "$HERE/install-pjproject.sh")
        [ -n "$region" ] || die "install-pjproject.sh has no '# Our fixes' region"
        eval "$region"
        printf '%s: %s\n' "$tree" "${PATCHES[*]}"
    ); then :; else rc=1; printf '%s: FAILED\n' "$tree"; fi
    rm -rf "$work"
done
exit $rc
