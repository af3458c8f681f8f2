/*
** span_tp.h: the LTTng-UST tracepoint provider "tlspan" of the spans trace:
** events that open and close spans (*_begin/*_end, *_entry/*_exit) and
** one that does neither.
*/
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tlspan

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./span_tp.h"

#if !defined(SPAN_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define SPAN_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(tlspan, req_begin,
    LTTNG_UST_TP_ARGS(int, id),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, id, id))
)
LTTNG_UST_TRACEPOINT_EVENT(tlspan, req_end,
    LTTNG_UST_TP_ARGS(int, id),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, id, id))
)
LTTNG_UST_TRACEPOINT_EVENT(tlspan, step_entry,
    LTTNG_UST_TP_ARGS(int, n),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, n, n))
)
LTTNG_UST_TRACEPOINT_EVENT(tlspan, step_exit,
    LTTNG_UST_TP_ARGS(int, n),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, n, n))
)
LTTNG_UST_TRACEPOINT_EVENT(tlspan, note,
    LTTNG_UST_TP_ARGS(int, n),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, n, n))
)

#endif /* SPAN_TP_H */

#include <lttng/tracepoint-event.h>
