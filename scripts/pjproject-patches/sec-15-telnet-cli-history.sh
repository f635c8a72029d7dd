# SEC-15: the telnet CLI's history recall overflows its buffer (upstream 628b71638, 2026-06-17).
# handle_up_down (pjlib-util cli_telnet.c, the pjsua app's telnet CLI, no login) redraws the line
# on Up or Down as: backspaces over the cursor's offset, blanks and backspaces over the line shown,
# then the history entry, all in PJ_CLI_MAX_CMDBUF (512) bytes on the stack. Each part is the
# peer's and up to 511 bytes: a long command sent, a long line typed, then ESC [ A killed our pjsua
# app (SIGSEGV). The buffer now holds the four: the cursor (<= the line's length, recv_buf_insert
# keeps it under PJ_CLI_MAX_CMDBUF, SEC-14 after a completion), the line twice, the entry (the
# history keeps at most PJ_CLI_MAX_CMDBUF bytes of a line, insert_history): under 4 * 512.
# Test: Tests/SwiftPJSUATests/Security/TelnetCLITests.swift (the pjsua app of this build).
SEC15_FILE="$SRC/pjlib-util/src/pjlib-util/cli_telnet.c"
if ! upstream_has SEC-15 "$SEC15_FILE" 'char str[PJ_CLI_MAX_CMDBUF * 4];'; then
    hunk SEC-15 "$SEC15_FILE" replace '        char str[PJ_CLI_MAX_CMDBUF];' \
'        char str[PJ_CLI_MAX_CMDBUF * 4];  /* swift-pjsua: SEC-15, cursor, line twice, entry */'
    applied SEC-15
fi
