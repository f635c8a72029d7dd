# SEC-14: the telnet CLI's error and completion lines overflow their buffers (upstream 4472a31d7,
# 2026-06-17). pjlib-util's cli_telnet.c, the pjsua app's --use-cli --cli-telnet-port front end,
# which asks for no password and listens on every address. Its command line holds up to
# PJ_CLI_MAX_CMDBUF (512) bytes, the peer's. send_err_arg builds "spaces up to the error, a caret,
# the message, the prompt, the line again" in 256 bytes on the stack: 300 spaces and an unknown
# word killed our pjsua app (SIGSEGV, before any login: there is none). send_ambi_arg puts the
# caret line, the hints and the line again in 1028 bytes (two peer-sized parts); handle_tab
# appends a completion to a line that may already fill its buffer. Ours: send_err_arg sends a line
# that would not fit as its parts, without the caret; send_ambi_arg sends the caret line before
# the hints, so one peer-sized part is in its buffer at a time; the completion stops where the
# line's buffer ends.
# Test: Tests/SwiftPJSUATests/Security/TelnetCLITests.swift (the pjsua app of this build).
SEC14_FILE="$SRC/pjlib-util/src/pjlib-util/cli_telnet.c"
if ! upstream_has SEC-14 "$SEC14_FILE" 'telnet_sess_send2(sess, SPACES, (int)chunk);'; then
    hunk SEC-14 "$SEC14_FILE" before '    /* Set the error pointer mark */' \
'    /* swift-pjsua: SEC-14, the caret'"'"'s offset and the line are the peer'"'"'s, up to
     * PJ_CLI_MAX_CMDBUF each: a line data_str cannot hold goes as its parts, without the caret */
    if ((pj_size_t)send_data.slen + len + 3 + (pj_size_t)msg->slen +
        (pj_size_t)fe->cfg.prompt_str.slen +
        (with_last_cmd ? pj_ansi_strlen((char *)sess->rcmd->rbuf) : 0) > sizeof(data_str))
    {
        pj_str_t last_cmd = pj_str((char *)sess->rcmd->rbuf);

        if (send_data.slen > 0)
            telnet_sess_send(sess, &send_data);
        telnet_sess_send(sess, msg);
        telnet_sess_send(sess, &fe->cfg.prompt_str);
        if (with_last_cmd)
            telnet_sess_send(sess, &last_cmd);
        return;
    }
'
    hunk SEC-14 "$SEC14_FILE" before '    /* Get the max length of the command name */' \
'    /* swift-pjsua: SEC-14, the caret line (its offset the peer'"'"'s) goes now, so that data[]
     * holds the hints and the line again (the peer'"'"'s too), not both peer-sized parts */
    telnet_sess_send(sess, &send_data);
    send_data.slen = 0;
'
    hunk SEC-14 "$SEC14_FILE" before '                pj_memcpy(&sess->rcmd->rbuf[len], info.hint[0].name.ptr,' \
'                /* swift-pjsua: SEC-14, the completion ends where the line'"'"'s buffer does */
                if ((pj_size_t)len + (pj_size_t)info.hint[0].name.slen >=
                    sizeof(sess->rcmd->rbuf))
                {
                    info.hint[0].name.slen = sizeof(sess->rcmd->rbuf) - 1 - len;
                }'
    applied SEC-14
fi
