#!/usr/bin/env bash
# Builds and installs pjproject (PJSIP) for swift-pjsua on Debian/Ubuntu.
#
# This is the one place that knows how PJSIP is obtained and built. Debian ships no
# pjproject package, but its `asterisk` source package (suite sid) carries upstream
# pjproject as the component tarball `asterisk_<v>.orig-Xpjproject.tar.xz`. The tree
# is DFSG-cleaned (bundled codecs removed), so we link Debian's own libraries instead.
#
#   scripts/install-pjproject.sh            install if missing (idempotent)
#   PJPROJECT_SRC=<dir|tarball> scripts/... build from this source instead of Debian's
#   PJPROJECT_PREFIX=/usr/local             where to install (default /usr/local)
#   PJPROJECT_FORCE=1                       rebuild even if a matching build is installed
#   PJPROJECT_VIDEO=0                       build audio-only (no video libraries installed)
#   PJPROJECT_PROFILE=ios                   the iOS profile: swift-pjsip 0.2.1's limits, codecs and
#                                           switches (pjproject-config_site-ios.h), in its own
#                                           prefix (default /opt/pjproject-ios, never /usr/local)
#   PJPROJECT_PROFILE=asan                  the Linux configuration built by the Swift toolchain's clang
#                                           with AddressSanitizer (and UBSan's bounds and null checks),
#                                           in /opt/pjproject-asan: make test's ASan pass links it, so a
#                                           memory error inside PJSIP fails the suite; and with
#                                           libFuzzer's coverage (-fsanitize=fuzzer-no-link) for Fuzz/
#   PJPROJECT_PATCHES=all|kl|none           which of our patches go in: all (the default), kl (all
#                                           but the security advisories' sec-*.sh: the library an
#                                           advisory's test must fail on) or none (the tarball as it
#                                           is, as an app's binary of pjproject lacks our fixes); other
#                                           than all, never into /usr/local
set -euo pipefail

step() { printf '==> %s\n' "$*"; }
die() { printf 'install-pjproject: error: %s\n' "$*" >&2; exit 1; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROFILE="${PJPROJECT_PROFILE:-linux}"
case "$PROFILE" in
    linux) CONFIG_SITE="$HERE/pjproject-config_site.h"; default_prefix=/usr/local; work_name=swift-pjsua-pjproject ;;
    # The iOS profile is a second installation beside the Linux one, which running processes
    # (and every other build here) load from /usr/local: it gets its own prefix, work directory
    # (the Linux build's is wiped at each build) and stamp (under its prefix), and never touches
    # the system's linker cache or /usr/local's pkg-config directory.
    ios) CONFIG_SITE="$HERE/pjproject-config_site-ios.h"; default_prefix=/opt/pjproject-ios; work_name=swift-pjsua-pjproject-ios ;;
    asan) CONFIG_SITE="$HERE/pjproject-config_site.h"; default_prefix=/opt/pjproject-asan; work_name=swift-pjsua-pjproject-asan ;;
    *) die "PJPROJECT_PROFILE must be linux, ios or asan, not '$PROFILE'" ;;
esac
PREFIX="${PJPROJECT_PREFIX:-$default_prefix}"
case "$PREFIX" in /*) ;; *) die "PJPROJECT_PREFIX must be an absolute path, not '$PREFIX'" ;; esac
PREFIX="${PREFIX%/}"
OUR_PATCHES="${PJPROJECT_PATCHES:-all}"
case "$OUR_PATCHES" in all|kl|none) ;; *) die "PJPROJECT_PATCHES must be all, kl or none, not '$OUR_PATCHES'" ;; esac
if [ "$PROFILE" != linux ] || [ "$OUR_PATCHES" != all ]; then
    case "$PREFIX" in
        ""|/usr|/usr/local|/usr/local/*|/usr/lib*|/lib*) die "the $PROFILE profile installs beside the Linux build, never into '$PREFIX' (use a prefix under /opt)" ;;
    esac
fi
MIN_VERSION="2.15"
STAMP_DIR="$PREFIX/share/swift-pjsua"
STAMP="$STAMP_DIR/pjproject.stamp"
WORK="${PJPROJECT_WORK:-${TMPDIR:-/tmp}/$work_name}"
LOG="$WORK/build.log"
PCDIR="$PREFIX/lib/pkgconfig"
# pkg-config that finds this prefix's pjproject first (the system's libraries stay visible).
pc() { PKG_CONFIG_PATH="$PCDIR${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" pkg-config "$@"; }

BUILD_DEPS=(build-essential pkg-config xz-utils libssl-dev libopus-dev libbcg729-dev libsrtp2-dev
    libgsm1-dev libspeex-dev libspeexdsp-dev libasound2-dev libsamplerate0-dev uuid-dev)
# Video (PJMEDIA_HAS_VIDEO, as in the iOS binary): H.264 through OpenH264, VP8/VP9 through
# libvpx, colour conversion through libyuv, SDL 2 rendering, V4L2 capture, and FFmpeg (KL-7):
# libavcodec's H.263-1998 codec and libswscale's converter where libyuv has no conversion.
VIDEO_DEPS=(libopenh264-dev libvpx-dev libyuv-dev libsdl2-dev libv4l-dev
    libavcodec-dev libavformat-dev libswscale-dev libavutil-dev libavdevice-dev)

VIDEO="${PJPROJECT_VIDEO:-1}"
case "$VIDEO" in 0|1) ;; *) die "PJPROJECT_VIDEO must be 0 or 1, not '$VIDEO'" ;; esac
if [ "$VIDEO" = 1 ]; then BUILD_DEPS+=("${VIDEO_DEPS[@]}"); fi

# The configuration this script builds: a change to it (or to config_site.h, or the video choice)
# forces a rebuild. Computed once, from absolute paths, before the build changes directory.
# The security patches (scripts/pjproject-patches/, one file per advisory) are part of it.
PATCH_DIR="$HERE/pjproject-patches"
CONFIG_ID=$( (cat "$HERE/$(basename "${BASH_SOURCE[0]}")" "$CONFIG_SITE" "$HERE/pjproject-patch-lib.sh" "$PATCH_DIR"/*.sh; echo "video=$VIDEO profile=$PROFILE patches=$OUR_PATCHES") | sha256sum | cut -c1-16)

version_ge() { # version_ge A B: A >= B
    [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

already_installed() {
    [ -f "$STAMP" ] || return 1
    [ -x "$PREFIX/bin/pjsua" ] || return 1
    [ -f "$PCDIR/libpjproject.pc" ] && [ -f "$PCDIR/swift-pjsua-pjproject.pc" ] || return 1
    pc --exists libpjproject swift-pjsua-pjproject 2>/dev/null || return 1
    grep -qx "config=$CONFIG_ID" "$STAMP" || return 1
    version_ge "$(pc --modversion libpjproject)" "$MIN_VERSION"
}

# One install of a work directory at a time: a second one (two make targets that both depend on
# deps, run at once) waits for the first and then finds its build installed, instead of unpacking
# over the tree the first is building.
mkdir -p "$(dirname "$WORK")"
exec 9>"$WORK.lock"
flock 9

if [ "${PJPROJECT_FORCE:-0}" != 1 ] && already_installed; then
    step "pjproject $(pc --modversion libpjproject) ($PROFILE profile) already installed in $PREFIX (config $CONFIG_ID); nothing to do"
    exit 0
fi

mkdir -p "$WORK"
: > "$LOG"
trap 'rc=$?; if [ $rc -ne 0 ]; then printf "\ninstall-pjproject: failed (exit %d). Last lines of %s:\n" $rc "$LOG" >&2; tail -n 40 "$LOG" >&2; fi' EXIT

missing=()
for p in "${BUILD_DEPS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    step "installing build dependencies: ${missing[*]} (log: $LOG)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >>"$LOG" 2>&1 \
        || { as_root apt-get update >>"$LOG" 2>&1 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >>"$LOG" 2>&1; } \
        || die "apt-get could not install the build dependencies"
fi

SRC_ROOT="$WORK/src"
rm -rf "$SRC_ROOT"; mkdir -p "$SRC_ROOT"

if [ -n "${PJPROJECT_SRC:-}" ]; then
    if [ -d "$PJPROJECT_SRC" ]; then
        step "copying pjproject source from $PJPROJECT_SRC"
        cp -a "$PJPROJECT_SRC" "$SRC_ROOT/pjproject"
    elif [ -f "$PJPROJECT_SRC" ]; then
        step "unpacking $PJPROJECT_SRC"
        tar -xf "$PJPROJECT_SRC" -C "$SRC_ROOT" >>"$LOG" 2>&1 || die "cannot unpack $PJPROJECT_SRC"
    else
        die "PJPROJECT_SRC=$PJPROJECT_SRC is neither a directory nor a file"
    fi
else
    APT="$WORK/apt"
    mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/dl"
    mirror=$(bash "$HERE/debian-mirror.sh")
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main" >"$APT/sources.list"
    aptopts=(-o "Dir::Etc::SourceList=$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
             -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache" -o APT::Sandbox::User=root)
    step "fetching the index of Debian sid sources (private apt configuration; log: $LOG)"
    apt-get "${aptopts[@]}" update >>"$LOG" 2>&1 || die "apt-get update of Debian sid sources failed"
    step "downloading the asterisk source package (it carries pjproject)"
    (cd "$APT/dl" && apt-get "${aptopts[@]}" source --download-only asterisk) >>"$LOG" 2>&1 \
        || die "apt-get source --download-only asterisk failed"
    tarball=$(ls "$APT"/dl/asterisk_*.orig-Xpjproject.tar.* 2>/dev/null | head -n1 || true)
    [ -n "$tarball" ] || die "the asterisk source package has no orig-Xpjproject tarball; set PJPROJECT_SRC"
    step "unpacking $(basename "$tarball")"
    tar -xf "$tarball" -C "$SRC_ROOT" >>"$LOG" 2>&1 || die "cannot unpack $tarball"
fi

SRC=$(dirname "$(find "$SRC_ROOT" -maxdepth 2 -name version.mak -print -quit)")
[ -f "$SRC/version.mak" ] && [ -f "$SRC/pjsip/include/pjsua-lib/pjsua.h" ] || die "no pjproject tree (pjsip/include/pjsua-lib/pjsua.h, version.mak) in the source"
major=$(sed -n 's/^export PJ_VERSION_MAJOR *:= *//p' "$SRC/version.mak")
minor=$(sed -n 's/^export PJ_VERSION_MINOR *:= *//p' "$SRC/version.mak")
VERSION="$major.$minor"
version_ge "$VERSION" "$MIN_VERSION" || die "pjproject $VERSION is too old (need >= $MIN_VERSION)"
step "pjproject $VERSION source at $SRC"

cp "$CONFIG_SITE" "$SRC/pjlib/include/pj/config_site.h"
# The DFSG tree lacks bdimad_dev.c (a proprietary-SDK audio backend); drop its object.
sed -i 's/ bdimad_dev\.o//' "$SRC/pjmedia/build/Makefile"
# Our fixes, unless PJPROJECT_PATCHES=none (up to the configure step below).
if [ "$OUR_PATCHES" != none ]; then

# pjproject #5119 (fixed upstream after 2.17): over TCP one read can carry several TURN packets,
# and one of them can end the TURN session; the next one then reached a NULL session (SIGSEGV in
# pj_turn_session_on_rx_pkt2, seen in our TURN-over-TCP test). Stop at a session that is gone.
TURN_SOCK="$SRC/pjnath/src/pjnath/turn_sock.c"
if grep -q 'turn_sock->is_shutting_down = PJ_TRUE;' "$TURN_SOCK"; then
    step "#5119: this pjproject already carries upstream's fix (turn_sock.c, #5139)"
elif ! grep -q "swift-pjsua: #5119" "$TURN_SOCK"; then
    grep -q '^            pj_turn_session_on_rx_pkt(turn_sock->sess, data,  size, &parsed_len);$' "$TURN_SOCK" \
        || die "turn_sock.c changed: review the #5119 guard"
    sed -i 's|^            pj_turn_session_on_rx_pkt(turn_sock->sess, data,  size, &parsed_len);$|            if (turn_sock->sess == NULL) { *remainder = 0; break; }  /* swift-pjsua: #5119 */\n&|' "$TURN_SOCK"
fi

# pjproject #2617/#4935 (KL-25): when every ioqueue key is taken (closed sockets' keys linger
# PJ_IOQUEUE_KEY_FREE_DELAY before reuse, so a fast enough call rate takes them all), registering a
# socket hits a pj_assert that aborts the process, although the next line handles it (PJ_ETOOMANY:
# pjsua then refuses the call). An INVITE flood could kill the engine; drop the assert, keep the check.
# The select ioqueue (the iOS profile's, with 64 keys: a few calls' RTP/RTCP and connections) has
# the same assert; both files are patched whichever the build compiles.
for IOQUEUE in "$SRC/pjlib/src/pj/ioqueue_epoll.c" "$SRC/pjlib/src/pj/ioqueue_select.c"; do
    if ! grep -q "swift-pjsua: #2617" "$IOQUEUE"; then
        grep -q '^    pj_assert(!pj_list_empty(&ioqueue->free_list));$' "$IOQUEUE" \
            || die "$(basename "$IOQUEUE") changed: review the #2617 change"
        sed -i 's|^    pj_assert(!pj_list_empty(&ioqueue->free_list));$|    /* swift-pjsua: #2617, out of keys is handled below (PJ_ETOOMANY), not asserted */|' "$IOQUEUE"
    fi
done

# KL-42: closing a socket sets its ioqueue key to NULL (pj_activesock_close, the SIP and media UDP
# transports' destroy and restart), and every sender reads that key without the closer's lock
# (stun_sock's and turn_sock's send paths, transport_udp's RTP/RTCP send after a started check, the
# SIP UDP transport after an is_paused check), so a packet sent by one thread as another closes the
# socket reaches pj_ioqueue_send[to](NULL, ...), whose argument assert aborts the process (seen
# once in make test's ASan pass, under load). A key that is closing already fails the send with
# PJ_ECANCELLED a few lines below; a key already gone now fails it the same way. The other
# arguments keep their assert (a caller's bug, not a race).
IOQUEUE_ABS="$SRC/pjlib/src/pj/ioqueue_common_abs.c"
if ! grep -q "swift-pjsua: KL-42" "$IOQUEUE_ABS"; then
    [ "$(grep -c '^    PJ_ASSERT_RETURN(key && op_key && data && length, PJ_EINVAL);$' "$IOQUEUE_ABS")" = 2 ] \
        || die "ioqueue_common_abs.c changed: review the KL-42 send on a closed key"
    sed -i 's|^    PJ_ASSERT_RETURN(key && op_key && data && length, PJ_EINVAL);$|    if (key == NULL)  /* swift-pjsua: KL-42, the socket was closed by another thread */\n        return PJ_ECANCELLED;\n&|' "$IOQUEUE_ABS"
fi

# KL-43: pjsua_handle_ip_change's listener restart (pjsua_core.c restart_listener) binds the new
# socket to the old port on every address (pj_sockaddr_init with a NULL host), whatever address the
# transport was bound to: an engine bound to 127.0.0.1 (or to one interface) was reachable on all
# of them after its first IP change. A transport bound to an address restarts on that address; one
# bound to every address still does (the case the restart is for: the new interface's address).
PJSUA_CORE="$SRC/pjsip/src/pjsua-lib/pjsua_core.c"
if ! grep -q "swift-pjsua: KL-43" "$PJSUA_CORE"; then
    [ "$(grep -c '^                            pj_sockaddr_get_port(&tp_info.local_addr) : 0);$' "$PJSUA_CORE")" = 1 ] \
        || die "pjsua_core.c changed: review the KL-43 listener restart address"
    sed -i 's|^                            pj_sockaddr_get_port(&tp_info.local_addr) : 0);$|&\n    if ((saf==PJ_AF_INET \|\| saf==PJ_AF_INET6) \&\& pj_sockaddr_has_addr(\&tp_info.local_addr))\n        pj_sockaddr_cp(\&bind_addr, \&tp_info.local_addr);  /* swift-pjsua: KL-43, keep the bound address */|' "$PJSUA_CORE"
fi

# pjproject #5126 (fixed upstream by #5127, after 2.17): ICE's two STUN send paths read
# comp->stun[].sock without the ICE transport's lock while media teardown sets it to NULL, so an
# RTP packet or connectivity check in flight at hang-up reaches pj_stun_sock_sendto(NULL), whose
# argument assert aborts the process (seen once in our ICE-across-a-namespace test, on a media
# clock thread). The TURN branch next to each already has this guard (#1316); add it to both.
# Upstream's fix (#5127, fa4e71dde) reads the socket into a local `stun_sock` first.
ICE_STRANS="$SRC/pjnath/src/pjnath/ice_strans.c"
if grep -q 'status = pj_stun_sock_sendto(stun_sock, NULL,' "$ICE_STRANS"; then
    step "#5126: this pjproject already carries upstream's fix (ice_strans.c)"
elif ! grep -q "swift-pjsua: #5126" "$ICE_STRANS"; then
    [ "$(grep -c 'status = pj_stun_sock_sendto(comp->stun\[tp_idx\].sock, NULL,' "$ICE_STRANS")" = 2 ] \
        || die "ice_strans.c changed: review the #5126 guard"
    sed -i 's|^\( *\)status = pj_stun_sock_sendto(comp->stun\[tp_idx\].sock, NULL,|\1if (comp->stun[tp_idx].sock == NULL) { status = PJ_EINVALIDOP; goto on_return; }  /* swift-pjsua: #5126 */\n&|' "$ICE_STRANS"
fi

# KL-45: pjsua keeps each call medium's remote "a=mid" (trickle ICE matches the SDP fragments of
# incoming INFOs by it) as a pointer into the SDP it came from (pjsua_media.c: the offer, which
# on an incoming call is parsed in the INVITE's receive buffer, or a local SDP in the invite
# session's provisional pool), and keeps it for the whole call. The next large packet on the same
# transport reuses or frees that buffer, so the trickle INFOs that follow compared against freed
# memory (AddressSanitizer: heap-use-after-free in pjsua_call_on_tsx_state_changed, in our
# trickle-ICE-across-a-namespace test, 3 runs of 3), or against whatever the buffer held by then
# (the candidates not applied). Copy it into the call's dialog pool, which lives as long as the call.
PJSUA_MEDIA="$SRC/pjsip/src/pjsua-lib/pjsua_media.c"
if ! grep -q "swift-pjsua: KL-45" "$PJSUA_MEDIA"; then
    [ "$(grep -c '^ *call_med->rem_mid = a->value;$' "$PJSUA_MEDIA")" = 2 ] \
        || die "pjsua_media.c changed: review the KL-45 a=mid copy"
    sed -i 's|^\( *\)call_med->rem_mid = a->value;$|\1if (call->inv \|\| call->async_call.dlg) pj_strdup(call->inv ? call->inv->dlg->pool : call->async_call.dlg->pool, \&call_med->rem_mid, \&a->value);  /* swift-pjsua: KL-45 */|' "$PJSUA_MEDIA"
fi

# KL-48 (pjproject #5057, fixed upstream after 2.17): pjmedia_conf_remove_port removes a port whose
# add is still queued (is_new) at once, on the caller's thread, after releasing the bridge's mutex,
# without marking the port as being removed. In that window a connect from another thread (our
# executor wiring a call's audio while the SIP worker's media update stops the stream it just
# started) passed the checks and queued a CONNECT on the dying slot; the clock thread ran it, and
# the slot was freed under it: the worker failed op_disconnect_ports' transmitter_cnt assertion and
# the clock thread dereferenced the freed slot in get_frame (seen once, in make test's ASan pass).
# A second remove in the window likewise queued a REMOVE that the clock thread ran concurrently.
# Mark the port removing before the mutex is released, as the queued removal does, so that both are
# refused. The parallel backend (conf_thread.c, built but not selected) has the same path.
for CONF in "$SRC/pjmedia/src/pjmedia/conference.c" "$SRC/pjmedia/src/pjmedia/conf_thread.c"; do
    if grep -q 'Mark the port as removing before releasing the mutex' "$CONF"; then
        step "KL-48: this pjproject already carries upstream's fix ($(basename "$CONF"), #5057/#5064)"
    elif ! grep -q "swift-pjsua: KL-48" "$CONF"; then
        [ "$(grep -c '^            /\* Release mutex to avoid deadlock \*/$' "$CONF")" = 1 ] \
            && grep -q '^        if (found) {$' "$CONF" \
            || die "$(basename "$CONF") changed: review the KL-48 synchronous removal"
        sed -i 's|^            /\* Release mutex to avoid deadlock \*/$|            conf_port->removing = PJ_TRUE;  /* swift-pjsua: KL-48, refuse connects and removes in the window */\n&|' "$CONF"
    fi
done

# KL-46: with randomize_port, pjsua draws an account's first RTP port at random in its range once,
# then walks up one pair per failed bind and fails the call after 100 (RTP_RETRY): any walk that
# reached a block of 100 or more pairs another process holds failed a call, however large the free
# rest of the range (seen in make test, beside a leftover process holding 200 ports). After a
# failed bind a randomized range now draws a new pair instead, so a call fails only when 100 draws
# all meet held pairs. An explicit range (no randomize_port) keeps walking from its start.
if ! grep -q "swift-pjsua: KL-46" "$PJSUA_MEDIA"; then
    [ "$(grep -c '^    for (i=0; i<RTP_RETRY; ++i, acc->next_rtp_port += 2) {$' "$PJSUA_MEDIA")" = 1 ] \
        || die "pjsua_media.c changed: review the KL-46 new draw after a failed bind"
    sed -i 's|^    for (i=0; i<RTP_RETRY; ++i, acc->next_rtp_port += 2) {$|&\n        if (i > 0 \&\& cfg->randomize_port \&\& cfg->port != 0 \&\& cfg->port_range != 0)  /* swift-pjsua: KL-46 */\n            acc->next_rtp_port = (pj_uint16_t)(cfg->port + ((pj_rand() % cfg->port_range) / 2) * 2);|' "$PJSUA_MEDIA"
fi

# KL-28: pjmedia's vpx.c opens the VP8/VP9 encoder with a fixed `cfg.g_threads = 4`. Measured on
# the 2-core machine (pjsua-bench video, 640x480 VP8 at 15 fps): with 4 threads the encoding clock
# thread took a whole core and the call sent 0-1 pictures a second, both ways, at any load and
# with the pjsua app as well; with 1 thread the same call ran at 15 fps for ~90 ms of CPU a second.
# Use half the online cores (at least 1, at most pjproject's 4).
VPX="$SRC/pjmedia/src/pjmedia-codec/vpx.c"
if ! grep -q "swift-pjsua: KL-28" "$VPX"; then
    grep -q '^    cfg.g_threads = 4;$' "$VPX" || die "vpx.c changed: review the KL-28 g_threads change"
    sed -i 's|^    cfg.g_threads = 4;$|    cfg.g_threads = (unsigned)PJ_MAX(1, PJ_MIN(4, sysconf(_SC_NPROCESSORS_ONLN) / 2));  /* swift-pjsua: KL-28 */|' "$VPX"
    sed -i 's|^#include <pj/math.h>$|&\n#include <unistd.h>  /* swift-pjsua: KL-28, sysconf */|' "$VPX"
fi

# KL-31: the transaction layer finds a message's transaction by its CSeq method and Via branch
# (sip_transaction.c, mod_tsx_layer_on_rx_request/_response), never by its request-line method,
# and keys ACK like INVITE. So an `OPTIONS` (or any non-INVITE) carrying `CSeq: n INVITE` and the
# branch of an INVITE transaction in the Confirmed state (the seconds after the ACK of a non-2xx
# answer) reached tsx_on_state_confirmed, whose pj_assert wants an ACK or an INVITE: two UDP
# datagrams from anyone aborted the process. Such a request is invalid (RFC 3261 8.1.1.5: the CSeq
# method MUST match the request's; RFC 4475 3.1.2.16/17 answer it with 400). Likewise a response
# whose CSeq method is ACK (an ACK has no response) was taken as the INVITE's: its 200 confirmed the
# call without the dialog noting a 2xx, so a later 200 with another To tag re-targeted the dialog.
# The endpoint answers such a request 400 (an ACK gets no answer), drops such a response, and no
# module (the transaction layer included) sees either.
SIP_ENDPOINT="$SRC/pjsip/src/pjsip/sip_endpoint.c"
if ! grep -q "swift-pjsua: KL-31" "$SIP_ENDPOINT"; then
    [ "$(grep -c '^    pjsip_process_rdata_param_default(&proc_prm);$' "$SIP_ENDPOINT")" = 1 ] \
        && grep -q '^static void endpt_on_rx_msg( pjsip_endpoint \*endpt,$' "$SIP_ENDPOINT" \
        || die "sip_endpoint.c changed: review the KL-31 CSeq method check"
    cseq_check=$(cat <<'C'
    /* swift-pjsua: KL-31, transactions are found by CSeq method: a request whose CSeq method is
     * not its own is answered 400 and dropped, a response whose CSeq method is ACK is dropped */
    if (msg->type == PJSIP_REQUEST_MSG ?
            pjsip_method_cmp(&msg->line.req.method, &rdata->msg_info.cseq->method) != 0 :
            rdata->msg_info.cseq->method.id == PJSIP_ACK_METHOD)
    {
        pj_str_t reason = pj_str("CSeq Method Does Not Match");
        PJ_LOG(3, (THIS_FILE, "Dropping %s from %s:%d: its CSeq method is %.*s",
                   pjsip_rx_data_get_info(rdata), rdata->pkt_info.src_name,
                   rdata->pkt_info.src_port,
                   (int)rdata->msg_info.cseq->method.name.slen,
                   rdata->msg_info.cseq->method.name.ptr));
        if (msg->type == PJSIP_REQUEST_MSG &&
            msg->line.req.method.id != PJSIP_ACK_METHOD)
        {
            pjsip_endpt_respond_stateless(endpt, rdata, PJSIP_SC_BAD_REQUEST,
                                          &reason, NULL, NULL);
        }
        pj_log_pop_indent();
        return;
    }
C
)
    awk -v block="$cseq_check" '/^    pjsip_process_rdata_param_default\(&proc_prm\);$/ { print block; print "" } { print }' \
        "$SIP_ENDPOINT" > "$SIP_ENDPOINT.new" && mv "$SIP_ENDPOINT.new" "$SIP_ENDPOINT"
fi

# KL-33: pjmedia's video conference bridge (vid_conf.c, pjmedia_vid_conf_create) creates its
# clock without PJMEDIA_CLOCK_NO_HIGHEST_PRIO, so clock_thread.c raises its thread to the highest
# priority: SCHED_RR 99 when the process is root (an unprivileged process cannot, and goes on),
# as pjsua's null audio device did before KL-26. That thread pulls every video port and, through
# the streams, encodes: past a core, video would starve SIP. The other video clocks (vid_port.c,
# the colour-bar device) already ask for normal priority; this one does too.
VID_CONF="$SRC/pjmedia/src/pjmedia/vid_conf.c"
if ! grep -q "swift-pjsua: KL-33" "$VID_CONF"; then
    grep -q '^    status = pjmedia_clock_create2(pool, &clock_param, 0, &on_clock_tick,$' "$VID_CONF" \
        || die "vid_conf.c changed: review the KL-33 clock priority"
    sed -i 's|^    status = pjmedia_clock_create2(pool, &clock_param, 0, &on_clock_tick,$|    status = pjmedia_clock_create2(pool, \&clock_param, PJMEDIA_CLOCK_NO_HIGHEST_PRIO, \&on_clock_tick,  /* swift-pjsua: KL-33 */|' "$VID_CONF"
fi

# KL-34: DTLS-SRTP's ssl_flush_wbio (transport_srtp_dtls.c) drains OpenSSL's write BIO, a memory
# BIO and so a byte stream in which every datagram OpenSSL wrote (at most PJMEDIA_MAX_MTU each) is
# glued to the next, with one `BIO_read(..., ds->buf[idx], sizeof(ds->buf))`: sizeof(ds->buf) is
# both channels' buffers (2 x 1500), so up to 3000 bytes went into a 1500-byte slot (overrunning
# it) and on as one datagram to transport_udp's send_rtp, whose PJ_ASSERT_RETURN(size <=
# PJMEDIA_MAX_MTU) aborts. The BIO holds more than one datagram when a flight and a retransmission
# (the 4 Hz clock's DTLSv1_handle_timeout, racing the receive path between their unlock and flush)
# or a flight past the MTU meet: the pjsua app aborted so in about 1 of 25 DTLS calls under load.
# Drain it a datagram at a time: whole DTLS records (13-byte header, length in bytes 11-12) up to
# the slot's size, until it is empty.
DTLS="$SRC/pjmedia/src/pjmedia/transport_srtp_dtls.c"
if ! grep -q "swift-pjsua: KL-34" "$DTLS"; then
    grep -q '^        len = BIO_read(ds->ossl_wbio\[idx\], ds->buf\[idx\], sizeof(ds->buf));$' "$DTLS" \
        && [ "$(grep -c '^    if (BIO_ctrl_pending(ds->ossl_wbio\[idx\]) > 0) {$' "$DTLS")" = 1 ] \
        && [ "$(grep -c '^/\* Flush write BIO \*/$' "$DTLS")" = 1 ] \
        || die "transport_srtp_dtls.c changed: review the KL-34 write BIO drain"
    one_datagram=$(cat <<'C'
/* swift-pjsua: KL-34, move into buf (cap bytes: one datagram) the whole DTLS records at the head
 * of the write BIO that fit, never more. A record no datagram can carry (not written by OpenSSL,
 * whose records fit its MTU) empties the BIO. Returns the bytes moved, 0 once the BIO is empty. */
static pj_size_t swift_pjsua_dtls_datagram(BIO *wbio, char *buf, pj_size_t cap)
{
    char *data = NULL;
    long avail = BIO_get_mem_data(wbio, &data);
    long take = 0;

    while (data && take + 13 <= avail) {
        long record = 13 + ((long)(unsigned char)data[take + 11] << 8) +
                      (long)(unsigned char)data[take + 12];
        if (take + record > avail || take + record > (long)cap)
            break;
        take += record;
    }
    if (take == 0 || BIO_read(wbio, buf, (int)take) != (int)take) {
        (void)BIO_reset(wbio);
        return 0;
    }
    return (pj_size_t)take;
}

C
)
    awk -v block="$one_datagram" '/^\/\* Flush write BIO \*\/$/ { print block; print "" } { print }' "$DTLS" > "$DTLS.new" \
        && mv "$DTLS.new" "$DTLS"
    sed -i -e 's|^    if (BIO_ctrl_pending(ds->ossl_wbio\[idx\]) > 0) {$|    while (ds->ossl_wbio[idx] \&\& BIO_ctrl_pending(ds->ossl_wbio[idx]) > 0) {  /* swift-pjsua: KL-34 */|' \
        -e 's|^        len = BIO_read(ds->ossl_wbio\[idx\], ds->buf\[idx\], sizeof(ds->buf));$|        len = swift_pjsua_dtls_datagram(ds->ossl_wbio[idx], ds->buf[idx], sizeof(ds->buf[idx]));|' "$DTLS"
fi

# swift-pjsua: KL-37. pjmedia_srtp_init_lib (every pjsua_init with SRTP in the build) makes the
# DTLS-SRTP certificate, an RSA-2048 key (0.2-0.7 s of CPU here), and pjmedia_srtp_deinit_lib frees
# it: every engine start paid it, DTLS used or not (most of a start's ~0.4 s; every restart of a
# bot, every test). Make it once per process at the first DTLS-SRTP transport (dtls_create, under
# OpenSSL's run-once, so two threads creating media at once make one), and keep it until exit.
if ! grep -q "swift-pjsua: KL-37" "$DTLS"; then
    [ "$(grep -c '^    if (!dtls_cert) {$' "$DTLS")" = 1 ] \
        && [ "$(grep -c '^    if (dtls_cert) {$' "$DTLS")" = 1 ] \
        && [ "$(grep -c '^/\* Create DTLS-SRTP keying instance \*/$' "$DTLS")" = 1 ] \
        && [ "$(grep -c '^    pool = pj_pool_create(srtp->pool->factory, "dtls%p",$' "$DTLS")" = 1 ] \
        || die "transport_srtp_dtls.c changed: review the KL-37 certificate at first use"
    first_use=$(cat <<'C'
/* swift-pjsua: KL-37, the certificate is made once per process, at the first DTLS-SRTP
 * transport, and kept until exit (dtls_init no longer makes it, dtls_deinit no longer frees it). */
static CRYPTO_ONCE swift_pjsua_dtls_cert_once = CRYPTO_ONCE_STATIC_INIT;
static pj_status_t swift_pjsua_dtls_cert_status = PJ_EUNKNOWN;

static void swift_pjsua_dtls_make_cert(void)
{
    swift_pjsua_dtls_cert_status = ssl_generate_cert(&dtls_cert, &dtls_priv_key);
    if (swift_pjsua_dtls_cert_status != PJ_SUCCESS) {
        pj_perror(4, "DTLS-SRTP", swift_pjsua_dtls_cert_status,
                  "Failed generating DTLS certificate");
    }
}

static pj_status_t swift_pjsua_dtls_cert(void)
{
    if (!CRYPTO_THREAD_run_once(&swift_pjsua_dtls_cert_once, &swift_pjsua_dtls_make_cert))
        return PJ_EUNKNOWN;
    return swift_pjsua_dtls_cert_status;
}

C
)
    awk -v block="$first_use" '/^\/\* Create DTLS-SRTP keying instance \*\/$/ { print block } { print }' "$DTLS" > "$DTLS.new" \
        && mv "$DTLS.new" "$DTLS"
    sed -i -e 's|^    if (!dtls_cert) {$|    if (0) {  /* swift-pjsua: KL-37, made at first use (swift_pjsua_dtls_cert) */|' \
        -e 's|^    if (dtls_cert) {$|    if (0) {  /* swift-pjsua: KL-37, kept until the process exits */|' \
        -e 's|^    pool = pj_pool_create(srtp->pool->factory, "dtls%p",$|    status = swift_pjsua_dtls_cert();  /* swift-pjsua: KL-37 */\n    if (status != PJ_SUCCESS)\n        return status;\n\n&|' "$DTLS"
fi

# The patches in scripts/pjproject-patches/: the fixes of pjproject's security advisories after
# 2.17 (sec-*.sh, docs/SECURITY.md lists them) and other fixes written the same way (fix-*.sh,
# each named by its KNOWN-LIMITS entry): one file each, sourced in name order with $SRC set. Each applies its one guarded hunk, or recognises that
# the tree already has upstream's fix (a newer pjproject) and says so, or stops the build when the
# code it patches changed shape (a hunk is never applied blind). PATCHES records what was applied.
PATCHES=()
# shellcheck source=pjproject-patch-lib.sh
. "$HERE/pjproject-patch-lib.sh"  # hunk, upstream_has, applied
for patch in "$PATCH_DIR"/*.sh; do
    case "$OUR_PATCHES:$(basename "$patch")" in kl:sec-*) continue ;; esac
    # A patch file that does not parse, or that neither applies nor recognises upstream's fix
    # (a quote closed early inside a hunk's text can leave a file that parses and does nothing),
    # stops the build: a fix is never left out without a word.
    bash -n "$patch" || die "$(basename "$patch") is not valid shell"
    recorded=${#PATCHES[@]}
    # shellcheck source=/dev/null
    . "$patch"
    [ "${#PATCHES[@]}" -gt "$recorded" ] || die "$(basename "$patch") neither applied its fix nor recognised upstream's"
done

fi  # our fixes

cd "$SRC"
step "configuring (log: $LOG)"
# --with-external-*: the DFSG tree has no bundled GSM/Speex/SRTP/libyuv, so Debian's are linked.
# Video is on by default (as in the iOS binary, so that "calls are audio-only unless asked" is
# tested on a library that can do video): OpenH264, libvpx, libyuv, SDL, V4L2, FFmpeg (KL-7).
# iLBC/G.722.1 are dropped (their sources are not in the DFSG tree); libwebrtc (AEC) likewise.
if [ "$VIDEO" = 1 ]; then
    video_flags=(--with-external-yuv)
else
    video_flags=(--disable-video --disable-libyuv)
    sed -i 's/^#define PJMEDIA_HAS_VIDEO .*/#define PJMEDIA_HAS_VIDEO        0/' pjlib/include/pj/config_site.h
fi
if [ "$PROFILE" = ios ]; then
    # swift-pjsip 0.2.1's feature set (pjproject-config_site-ios.h says what stands in for what):
    # the select ioqueue (no --enable-epoll), codecs PCMU, PCMA, G.722 and G.729 through Debian's
    # bcg729 only (iLBC's source is not in the DFSG tree), no Speex AEC, H.264 (OpenH264) as the
    # only video codec; FFmpeg stays for its colour converter (its codecs are off in config_site).
    profile_flags=(--with-external-srtp --enable-libsamplerate
                   --disable-opus --disable-gsm-codec --disable-speex-codec --disable-speex-aec
                   --disable-l16-codec --disable-vpx)
else
    profile_flags=(--enable-epoll --with-external-gsm --with-external-speex --with-external-srtp
                   --enable-libsamplerate)
fi
build_env=(CFLAGS="-O2 -fPIC")
if [ "$PROFILE" = asan ]; then
    # The Swift toolchain's clang, so that the instrumented libraries use the AddressSanitizer
    # runtime the Swift test binary (swift build --sanitize=address) carries: the libraries are
    # linked without one and take the executable's. UBSan's bounds and null checks (an index past a
    # fixed array, as SEC-1 and SEC-2 wrote) stop the process like an ASan report; the rest of UBSan
    # is left out, as pjproject's C has arithmetic it reports without a memory error.
    clang="$(dirname "$(readlink -f "$(command -v swift)")")/clang"
    [ -x "$clang" ] || die "the asan profile needs the Swift toolchain's clang ($clang)"
    sanitize="-fsanitize=address,bounds,null -fno-sanitize-recover=all"
    # libFuzzer's coverage instrumentation (no libFuzzer linked: the fuzzers of Fuzz/ link it, and
    # any other binary gets the coverage callbacks' weak no-op defaults from the sanitizer runtime),
    # so the fuzzers see PJSIP's edges, not only their own. Compile flags only: -fsanitize=fuzzer-no-link
    # adds nothing at link time.
    coverage="-fsanitize=fuzzer-no-link"
    build_env=(CC="$clang" CXX="$clang++" CFLAGS="-O1 -g -fPIC -fno-omit-frame-pointer $sanitize $coverage"
               CXXFLAGS="-O1 -g -fPIC -fno-omit-frame-pointer $sanitize $coverage" LDFLAGS="$sanitize")
fi
env "${build_env[@]}" ./configure --prefix="$PREFIX" \
    --enable-shared "${profile_flags[@]}" \
    "${video_flags[@]}" \
    --disable-ilbc-codec --disable-g7221-codec --disable-libwebrtc \
    >>"$LOG" 2>&1 || die "configure failed"
if [ "$PROFILE" = ios ]; then
    # configure finds bcg729 by itself (libbcg729-dev); without it config_site's PJMEDIA_HAS_BCG729
    # would fail only at link time, so say so here.
    grep -q '^#define PJMEDIA_HAS_BCG729 1' pjmedia/include/pjmedia-codec/config_auto.h \
        || die "configure did not find bcg729 (libbcg729-dev), which the iOS profile needs for G.729"
fi
step "building with $(nproc) jobs (about a minute on 2 cores)"
make dep >>"$LOG" 2>&1 || die "make dep failed"
make -j"$(nproc)" >>"$LOG" 2>&1 || die "make failed"
step "installing into $PREFIX"
# pjproject's install copies its libraries over the installed ones in place (cp -f), which
# rewrites the pages of every running process that has them mapped (a test peer, a bot): they
# crash. So it installs into a staging directory, and each file is then renamed into the prefix:
# a running process keeps its old copy, a new one loads the new copy, none sees half of one.
STAGE="$WORK/stage"
rm -rf "$STAGE"
make install DESTDIR="$STAGE" >>"$LOG" 2>&1 || die "make install failed"
[ -d "$STAGE$PREFIX" ] || die "make install wrote nothing under $STAGE$PREFIX"
(cd "$STAGE$PREFIX" && find . \( -type f -o -type l \) -print) | while read -r file; do
    as_root mkdir -p "$PREFIX/$(dirname "$file")"
    as_root mv -f "$STAGE$PREFIX/$file" "$PREFIX/$file" || die "cannot move $file into $PREFIX"
done
rm -rf "$STAGE"
app=$(ls pjsip-apps/bin/pjsua-* 2>/dev/null | head -n1 || true)
[ -n "$app" ] || die "the reference pjsua application was not built"
as_root install -D -m 0755 "$app" "$PREFIX/bin/pjsua"  # -D: a fresh prefix has no bin/
# The linker cache is the system's: only the Linux build (in a system prefix) belongs in it. The
# iOS profile's libraries are found through rpath or LD_LIBRARY_PATH (make test-ios-profile).
if [ "$PROFILE" = linux ]; then as_root ldconfig; fi
as_root mkdir -p "$STAMP_DIR"
printf 'version=%s\nconfig=%s\nours=%s\npatches=%s\n' "$VERSION" "$CONFIG_ID" "$OUR_PATCHES" "${PATCHES[*]:-}" | as_root tee "$STAMP" >/dev/null
[ -f "$PCDIR/libpjproject.pc" ] && pc --exists libpjproject || die "libpjproject.pc is not in $PCDIR after install"
# SwiftPM refuses -D flags from pkg-config ("prohibited flag(s)", a warning on every build); the
# module's shim.h defines what they did (PJ_AUTOCONF, endianness). So the Swift module reads a .pc
# of its own with only the include path, and only the C libraries: libpjproject's Libs start with
# -lpjsua2, pjproject's C++ API, which the Swift module never calls; linked anyway, it loaded
# libpjsua2 (and its static constructors and destructors) into every binary. libstdc++ stays in
# Libs.private: a static link still needs it for OpenH264 (C++).
pcdir="$PCDIR"  # this prefix's, never another installation's that pkg-config might find first
grep -q '^Libs:.* -lpjsua2 ' "$pcdir/libpjproject.pc" || die "libpjproject.pc's Libs changed: review the -lpjsua2 removal"
sed -e 's/^Name:.*/Name: swift-pjsua-pjproject/' \
    -e 's/^Description:.*/Description: pjproject for the swift-pjsua Swift module (no -D flags, no C++ API)/' \
    -e '/^Cflags:/s/ -D[^ ]*//g' -e '/^Libs:/s/ -lpjsua2 / /' "$pcdir/libpjproject.pc" | as_root tee "$pcdir/swift-pjsua-pjproject.pc" >/dev/null
step "pjproject $VERSION ($PROFILE profile) installed in $PREFIX (pjsua app: $PREFIX/bin/pjsua)"
