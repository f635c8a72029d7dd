# SEC-6: a multipart body without parts moved the printer's cursor past the buffer (upstream
# 568be8ec2, 2026-08-03, GHSA-pjx6-7vrm-3w6f). sip_multipart.c multipart_print_body answers an
# empty part list with PJ_EINVAL (positive, through a PJ_ASSERT_RETURN: an abort with assertions
# on), and sip_msg.c pjsip_msg_print takes any non-negative result as the length printed and
# advances past it. A received multipart body of only its closing delimiter parses to no parts.
# Two guards in one hunk each: the printer says -1 for no parts, and the message printer refuses a
# body length beyond the room it gave.
SEC6_MSG="$SRC/pjsip/src/pjsip/sip_msg.c"
SEC6_MP="$SRC/pjsip/src/pjsip/sip_multipart.c"
if ! upstream_has SEC-6 "$SEC6_MSG" 'if (len < 0 || len > end - p) {'; then
    hunk SEC-6 "$SEC6_MSG" after '        len = (*msg->body->print_body)(msg->body, p, end-p);' \
'        if (len > end - p) len = -1;  /* swift-pjsua: SEC-6, never past the room given */'
    hunk SEC-6 "$SEC6_MP" replace '    PJ_ASSERT_RETURN(m_data && !pj_list_empty(&m_data->part_head), PJ_EINVAL);' \
'    if (!m_data || pj_list_empty(&m_data->part_head))  /* swift-pjsua: SEC-6 */
        return -1;'
    applied SEC-6
fi
