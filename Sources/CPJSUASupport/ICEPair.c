/* See include/CPJSUASupport.h: the chosen ICE pair of a media transport. Swift cannot read
 * pjmedia_ice_transport_info.comp, an array of an anonymous struct. */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include "CPJSUASupport.h"

int cpjsua_ice_chosen_pair(const void *ice_info, int32_t *local_type, int32_t *remote_type,
                           char *local_address, char *remote_address, int32_t address_capacity)
{
    const pjmedia_ice_transport_info *ice = (const pjmedia_ice_transport_info *)ice_info;
    if (ice->sess_state != PJ_ICE_STRANS_STATE_RUNNING || ice->comp_cnt == 0 || address_capacity < 2)
        return 0;
    *local_type = (int32_t)ice->comp[0].lcand_type;
    *remote_type = (int32_t)ice->comp[0].rcand_type;
    local_address[0] = remote_address[0] = '\0';
    if (pj_sockaddr_has_addr(&ice->comp[0].lcand_addr))
        pj_sockaddr_print(&ice->comp[0].lcand_addr, local_address, address_capacity, 3);
    if (pj_sockaddr_has_addr(&ice->comp[0].rcand_addr))
        pj_sockaddr_print(&ice->comp[0].rcand_addr, remote_address, address_capacity, 3);
    return 1;
}
