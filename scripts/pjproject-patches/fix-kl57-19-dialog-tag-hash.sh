# KL-57.19: a dialog whose local tag hashes to 0 aborted the process (upstream 2e13f0835, #5132
# for #5100, 2026-08-03, not an advisory; after our base). pjsip_ua_register_dlg asserts
# `local.tag_hval != 0`, as if 0 meant "not computed"; pj_hash_calc_tolower of a tag can be 0, and
# our local tags are random UUIDs (pj_create_unique_string over libuuid), so about one dialog in
# 2^32 (every call, subscription or REFER dialog, UAC or UAS) hit a PJ_ASSERT_RETURN, which aborts
# our builds (they do not define NDEBUG); upstream saw it happen. A peer cannot pick our tag: the
# UAC and UAS dialogs make theirs (the UAS refuses a request with a To tag), a forked dialog copies
# the first one, and the remote tag is not asserted.
# The check is now that the tag is there. A zero hash keeps the dialog findable by its tag: the
# hash table takes a stored or given hash of 0 as "compute it" (find_entry), and computing it
# gives 0 again, the same value every lookup by the tag (with no hash given) computes; unregister
# and the fork path pass the same cached 0.
# Test: Security/UpstreamFixTests (DialogTagHashTests runs Tests/Peers/probes/dialog_tag_hash.c,
# which gives a UAC and a UAS dialog a local tag that hashes to 0).
KL57_19_FILE="$SRC/pjsip/src/pjsip/sip_ua_layer.c"
if ! upstream_has KL-57.19 "$KL57_19_FILE" 'PJ_ASSERT_RETURN(dlg->local.info && dlg->local.info->tag.slen, PJ_EBUG);'; then
    hunk KL-57.19 "$KL57_19_FILE" replace '    PJ_ASSERT_RETURN(dlg->local.info && dlg->local.info->tag.slen &&' \
'    /* swift-pjsua: KL-57.19, a tag may hash to 0, a hash like any other:
     * the table computes 0 for it whenever it is given 0 or none.
     */
    PJ_ASSERT_RETURN(dlg->local.info &&'
    hunk KL-57.19 "$KL57_19_FILE" replace '                     dlg->local.tag_hval != 0, PJ_EBUG);' \
'                     dlg->local.info->tag.slen, PJ_EBUG);'
    applied KL-57.19
fi
