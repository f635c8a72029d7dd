# SEC-13: the HTTP client's response buffer grown once where more was needed (upstream 8d5956afa,
# 2026-06-17). pjlib-util's http_client.c (http_on_data_read) sizes the body buffer from the
# server's Content-Length and, when a read would overflow it, doubles it once: a server that sends
# more than twice what it announced (or any body after "Content-Length: 0", where the double of 0
# is 0) had the rest copied past the buffer (a heap overflow). When one doubling would not hold the
# read, the buffer is grown to hold all of it first; the doubling below then has nothing to do.
# Not reachable in our builds: nothing calls pj_http_req (not pjsua-lib, not the engine, not
# CPJSUASupport: grep pj_http_req_create); the patch is for an app that links pjlib-util and does.
SEC13_FILE="$SRC/pjlib-util/src/pjlib-util/http_client.c"
if ! upstream_has SEC-13 "$SEC13_FILE" 'new_size = INITIAL_DATA_BUF_SIZE;'; then
    hunk SEC-13 "$SEC13_FILE" before '        /* If the size of data received exceeds its current size,' \
'        /* swift-pjsua: SEC-13, a read that one doubling would not hold: grow to all of it */
        if (hreq->tcp_state.current_read_size + size > (hreq->response.size << 1)) {
            pj_size_t need = hreq->tcp_state.current_read_size + size;
            void *olddata = hreq->response.data;

            hreq->response.data = pj_pool_alloc(hreq->pool, need);
            pj_memcpy(hreq->response.data, olddata,
                      hreq->tcp_state.current_read_size);
            hreq->response.size = need;
        }
'
    applied SEC-13
fi
