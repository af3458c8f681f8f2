/*
** perf.c: the perf.data reader's entry points: the probe, the record type
** names, and the reader definition. The rest, by concern:
**   perf_open.c     header, attributes, features, then the index walk
**   perf_index.c    the walk over the records that builds the chunk index
**   perf_threads.c  the thread list (tracks), built on first use
**   perf_scan.c     events and callchains scans
**   perf_count.c    counted events (count(*) and its filters), per chunk
**   perf_tally.c    callchains tallied per chunk (the engine's grouping)
**   perf_rows.c     args JSON, metadata tables' rows
**   perf_walk.c     record walking (COMPRESSED containers unpacked)
**   perf_decode.c   attrs and samples;  perf_feat.c  features
** Shared: perf_int.h (the format) and perf_scan.h (the reader's state).
*/
#include "perf_scan.h"


static const char *const azKernelType[PERF_KERNEL_MAX] = {
  0, "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE", "FORK", "READ",
  "SAMPLE", "MMAP2", "AUX", "ITRACE_START", "LOST_SAMPLES", "SWITCH",
  "SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL", "BPF_EVENT", "CGROUP",
  "TEXT_POKE", "AUX_OUTPUT_HW_ID"
};
static const char *const azUserType[PERF_USER_MAX - PERF_HEADER_ATTR] = {
  "ATTR", "EVENT_TYPE", "TRACING_DATA", "BUILD_ID", "FINISHED_ROUND",
  "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP",
  "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV",
  "FEATURE", "COMPRESSED", "FINISHED_INIT", "COMPRESSED2"
};

const char *tl_perf_type_name(uint32_t type){
  if( type<PERF_KERNEL_MAX ) return azKernelType[type];
  if( type>=PERF_HEADER_ATTR && type<PERF_USER_MAX ) return azUserType[type - PERF_HEADER_ATTR];
  return 0;
}

static void perfClose(void *pData){ perf_data_free((PerfData*)pData); }

static const TlErr *perfScanErr(TlScan *s){ return &s->err; }

/* A directory's files are the streams of a scan of events in ts order. */
static int perfStreams(const TlTrace *pTrace, int iTable, const TlFilter *f){
  const PerfData *p = pTrace->pData;
  (void)f;
  return iTable==TL_TAB_EVENTS && p->nPart>1 ? p->nPart : 0;
}

static const char *const perfOptions[] = { "symfs", "kallsyms", "buildid_dir", 0 };

const TlReaderDef tl_perf_reader = {
  .zName      = "perf",
  .azOptions  = perfOptions,
  .mOrdered   = 1u<<TL_TAB_EVENTS,
  .xProbe     = perf_probe,
  .xOpen      = perf_open,
  .xClose     = perfClose,
  .xScanOpen  = perf_scan_open,
  .xScanNext  = perf_scan_next,
  .xScanClose = perf_scan_close,
  .xScanErr   = perfScanErr,
  .xScanRowid = perf_scan_rowid,
  .xScanValue = perf_scan_value,
  .mCount     = 1u<<TL_TAB_EVENTS,
  .xCountCols = perf_count_cols,
  .xCountOpen = perf_count_open,
  .xCountClose = perf_count_close,
  .xPacketCount = perf_packet_count,
  .xPacketCountBytes = perf_packet_count_bytes,
  .xPacketValue = perf_packet_value,
  .xInfo      = perf_info,
  .mTally     = 1u<<TL_TAB_CALLCHAINS | 1u<<TL_TAB_EVENTS,
  .xTallyCols = perf_tally_cols,
  .xTallyOpen = perf_tally_open,
  .xTallyPacket = perf_tally_packet,
  .xTallyClose = perf_tally_close,
  .xStreams   = perfStreams,
};
