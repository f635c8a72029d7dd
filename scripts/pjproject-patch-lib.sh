# The helpers of the security patches in scripts/pjproject-patches/ (sourced by install-pjproject.sh
# and check-pjproject-patches.sh, which define `step` and `die` and set SRC and PATCHES=()).
# hunk ID FILE before|after|replace ANCHOR TEXT: puts TEXT before or after the line ANCHOR, or in
# its place; ANCHOR is a whole line, compared as a fixed string, and must occur exactly once.
hunk() {
    local id=$1 file=$2 mode=$3 anchor=$4 text=$5
    [ "$(grep -cxF -- "$anchor" "$file")" = 1 ] \
        || die "$(basename "$file") changed: review the $id patch (its anchor line is not there once)"
    ANCHOR="$anchor" TEXT="$text" MODE="$mode" awk '
        $0 == ENVIRON["ANCHOR"] {
            if (ENVIRON["MODE"] == "after") print
            print ENVIRON["TEXT"]
            if (ENVIRON["MODE"] == "before") print
            next
        }
        { print }' "$file" > "$file.new" && mv "$file.new" "$file"
    grep -q "swift-pjsua: $id" "$file" || die "the $id patch does not name itself in $(basename "$file")"
}
# upstream_has ID FILE STRING: true (and recorded) when FILE already holds upstream's fix.
upstream_has() {
    if grep -qF -- "$3" "$2"; then
        PATCHES+=("$1=upstream")
        step "$1: this pjproject already carries upstream's fix ($(basename "$2"))"
        return 0
    fi
    return 1
}
applied() { PATCHES+=("$1"); }
