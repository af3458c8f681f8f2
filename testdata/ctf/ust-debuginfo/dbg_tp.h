/*
** dbg_tp.h: the LTTng-UST tracepoint provider "dbg" of the debug-info
** test trace: one event with a counter.
*/
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER dbg

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./dbg_tp.h"

#if !defined(DBG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define DBG_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(dbg, hit,
    LTTNG_UST_TP_ARGS(int, i),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(int, i, i)
    )
)

#endif

#include <lttng/tracepoint-event.h>
