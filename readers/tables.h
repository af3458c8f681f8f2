/*
** tables.h: the table catalog shared by readers and virtual tables.
**
** Each table has a fixed column list; readers fill a row as an array of
** TlVal indexed by these constants, and the vtab layer declares the same
** columns in the same order. Column meanings per format are in README.md.
** Appending a column means adding it here, in the vtab's schema string and
** in the README.
*/
#ifndef TL_TABLES_H
#define TL_TABLES_H

enum {
  TL_TAB_EVENTS,
  TL_TAB_TRACKS,
  TL_TAB_SYMBOLS,
  TL_TAB_EVENT_TYPES,
  TL_TAB_PACKETS,
  TL_TAB_PERF_FEATURES,
  TL_TAB_XRAY_FUNCTIONS,
  TL_TAB_CALLCHAINS,
  TL_TAB_XRAY_CALLS,
  TL_TAB_WARNINGS,
  TL_TAB_SCHED_SLICES,
  TL_TAB_THREAD_STATES,
  TL_TAB_TRACE_INFO,
  TL_TAB_CALLS,                   /* calls: the columns of xray_calls (TL_XC_*) */
  TL_TAB_SYSCALLS,
  TL_TAB_SCHED_THREADS,
  TL_TAB_SYSCALL_STATS,
  TL_TAB_CALL_STATS,              /* derived by the engine from calls' rows */
  TL_TAB_CALL_STACKS,             /* derived by the engine from calls' rows */
  TL_TAB_COUNT
};

/* events */
enum {
  TL_EV_TS, TL_EV_TS_RAW, TL_EV_CPU, TL_EV_PID, TL_EV_TID, TL_EV_TRACK,
  TL_EV_TYPE, TL_EV_NAME, TL_EV_VALUE, TL_EV_IP, TL_EV_TEXT, TL_EV_ARGS,
  TL_EV_CALLCHAIN, TL_EV_COMM, TL_EV_SYMBOL, TL_EV_DSO, TL_EV_SYMOFF, TL_EV_STACK,
  TL_EV_DSO_OFFSET, TL_EV_SRCLINE,
  TL_EV_NCOL
};

/* tracks: one row per thread (perf, XRay), stream (CTF), track (CPEL) */
enum {
  TL_TR_ID, TL_TR_KIND, TL_TR_NAME, TL_TR_PID, TL_TR_TID, TL_TR_CPU,
  TL_TR_FIRST_TS, TL_TR_LAST_TS, TL_TR_EVENTS, TL_TR_ARGS,
  TL_TR_NCOL
};

/* symbols */
enum {
  TL_SY_ID, TL_SY_ADDR, TL_SY_SIZE, TL_SY_NAME, TL_SY_MODULE, TL_SY_KIND,
  TL_SY_ARGS,
  TL_SY_NCOL
};

/* event_types */
enum {
  TL_ET_ID, TL_ET_NAME, TL_ET_STREAM, TL_ET_KIND, TL_ET_FORMAT, TL_ET_ARGS,
  TL_ET_NCOL
};

/* packets: the index the pushdown uses (filled from TlIndex by trace.c) */
enum {
  TL_PK_ID, TL_PK_STREAM, TL_PK_CPU, TL_PK_FILE, TL_PK_OFFSET, TL_PK_SIZE,
  TL_PK_CONTENT_SIZE, TL_PK_TS_BEGIN, TL_PK_TS_END, TL_PK_EVENTS,
  TL_PK_DISCARDED, TL_PK_SEQ, TL_PK_ARGS,
  TL_PK_NCOL
};

/* perf_features */
enum {
  TL_PF_ID, TL_PF_NAME, TL_PF_SIZE, TL_PF_VALUE,
  TL_PF_NCOL
};

/* xray_functions */
enum {
  TL_XF_FUNC_ID, TL_XF_ADDRESS, TL_XF_NAME, TL_XF_KINDS,
  TL_XF_ALWAYS_INSTRUMENT, TL_XF_SLEDS,
  TL_XF_NCOL
};

/* callchains: one row per frame of a perf sample's callchain */
enum {
  TL_CC_EVENT, TL_CC_TS, TL_CC_CPU, TL_CC_DEPTH, TL_CC_IP, TL_CC_CONTEXT,
  TL_CC_SYMBOL, TL_CC_DSO,
  TL_CC_SRCLINE, TL_CC_INLINED,
  TL_CC_NCOL
};

/* xray_calls, calls: one row per matched function entry/exit */
enum {
  TL_XC_ID, TL_XC_TID, TL_XC_PID, TL_XC_CPU, TL_XC_FUNC_ID, TL_XC_NAME,
  TL_XC_TS, TL_XC_DUR, TL_XC_DEPTH, TL_XC_PARENT,
  TL_XC_STACK,
  TL_XC_NCOL
};

/* trace_warnings: what was skipped or cut short (filled by trace.c) */
enum {
  TL_TW_ID, TL_TW_FILE, TL_TW_OFFSET, TL_TW_MESSAGE,
  TL_TW_NCOL
};

/* sched_slices: one row per period a thread ran on a CPU (model_sched.h) */
enum {
  TL_SS_TS, TL_SS_DUR, TL_SS_CPU, TL_SS_TID, TL_SS_PID, TL_SS_COMM, TL_SS_PRIO,
  TL_SS_END_STATE, TL_SS_TS_END, TL_SS_WAIT_TIME, TL_SS_SCHED_DELAY, TL_SS_RUNTIME,
  TL_SS_NCOL
};

/* thread_states: one row per interval of a thread's state (model_sched.h) */
enum {
  TL_TS_TS, TL_TS_DUR, TL_TS_TID, TL_TS_PID, TL_TS_COMM, TL_TS_STATE, TL_TS_CPU,
  TL_TS_WAKER_TID, TL_TS_IO_WAIT, TL_TS_TS_END, TL_TS_WAKEUP, TL_TS_RUNTIME,
  TL_TS_NCOL
};

/* syscalls: one row per system call, its entry and exit (model_sched.h) */
enum {
  TL_SC_TS, TL_SC_DUR, TL_SC_TID, TL_SC_PID, TL_SC_COMM, TL_SC_CPU, TL_SC_NR,
  TL_SC_NAME, TL_SC_RET, TL_SC_TS_END,
  TL_SC_NCOL
};

/* sched_threads: one row per thread, its waits and runs (model_sched.h) */
enum {
  TL_ST_TID, TL_ST_PID, TL_ST_COMM, TL_ST_SWITCHES, TL_ST_DELAY, TL_ST_MAX_DELAY,
  TL_ST_MAX_DELAY_TS, TL_ST_RUNTIME, TL_ST_SLICES, TL_ST_RUN_TIME, TL_ST_MIN_RUN,
  TL_ST_MAX_RUN, TL_ST_WAIT_TIME,
  TL_ST_NCOL
};

/* syscall_stats: one row per thread and system call (model_sched.h) */
enum {
  TL_SX_TID, TL_SX_PID, TL_SX_COMM, TL_SX_NR, TL_SX_NAME, TL_SX_EVENTS, TL_SX_CALLS,
  TL_SX_ERRORS, TL_SX_TOTAL_DUR, TL_SX_MIN_DUR, TL_SX_MAX_DUR, TL_SX_AVG_DUR,
  TL_SX_STDDEV_DUR,
  TL_SX_NCOL
};

/* call_stats: one row per function, its calls summed (src/model/callstats.h) */
enum {
  TL_CS_FUNC_ID, TL_CS_NAME, TL_CS_CALLS, TL_CS_TOTAL_DUR, TL_CS_MIN_DUR, TL_CS_MED_DUR,
  TL_CS_P90_DUR, TL_CS_P99_DUR, TL_CS_MAX_DUR,
  TL_CS_NCOL
};

/* call_stacks: one row per thread and call stack (src/model/stackstats.h) */
enum {
  TL_CK_TID, TL_CK_FUNC_ID, TL_CK_NAME, TL_CK_STACK, TL_CK_DEPTH, TL_CK_CALLS,
  TL_CK_OPEN_CALLS, TL_CK_TOTAL_DUR, TL_CK_MIN_DUR, TL_CK_MAX_DUR,
  TL_CK_NCOL
};

/* trace_info: what a trace says about itself (TlReaderDef.xInfo) */
enum {
  TL_TI_ID, TL_TI_TRACE, TL_TI_KEY, TL_TI_VALUE, TL_TI_SOURCE,
  TL_TI_NCOL
};

#define TL_MAX_NCOL 24

#endif /* TL_TABLES_H */
