/*
** lnk_tp.h: the LTTng-UST tracepoint provider "lnk" of the debug-link
** test trace: one event with a counter.
*/
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER lnk

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lnk_tp.h"

#if !defined(LNK_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define LNK_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(lnk, hit,
    LTTNG_UST_TP_ARGS(int, i),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(int, i, i)
    )
)

#endif

#include <lttng/tracepoint-event.h>
