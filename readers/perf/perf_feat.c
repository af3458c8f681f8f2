/*
** perf_feat.c: perf.data feature sections (the header's optional parts),
** rendered as perf report --header-only shows them.
**
**   struct perf_header_string { u32 len; char string[len]; }   NUL-padded
**   struct perf_header_string_list { u32 nr; struct perf_header_string strings[nr]; }
**   NRCPUS:      u32 nr_cpus_available, nr_cpus_online
**   TOTAL_MEM:   u64 kB
**   EVENT_DESC:  u32 nr, attr_size; nr x { attr; u32 nr_ids; string name; u64 ids[nr_ids]; }
**   SAMPLE_TIME: u64 first, last
**   CLOCKID:     u64
**   COMPRESSED:  u32 version, type, level, ratio, mmap_len
*/
#include "perf_int.h"

#include <stdlib.h>
#include <string.h>

static const char *const azFeat[] = {
  0, "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION", "ARCH",
  "NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC",
  "CPU_TOPOLOGY", "NUMA_TOPOLOGY", "BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC",
  "AUXTRACE", "STAT", "CACHE", "SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID",
  "DIR_FORMAT", "BPF_PROG_INFO", "BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS",
  "CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS"
};

const char *perf_feature_name(int id){
  if( id>0 && id<(int)(sizeof(azFeat)/sizeof(azFeat[0])) ) return azFeat[id];
  return 0;
}

/* A perf_header_string: the text (*pz, *pn bytes) up to its first NUL. */
static int read_string(TlBytes *b, const char **pz, size_t *pn){
  uint32_t len;
  const uint8_t *a;
  const uint8_t *zNul;
  if( tl_bytes_u32e(b, &len) || tl_bytes_ptr(b, len, &a) ) return -1;
  zNul = len ? memchr(a, 0, len) : 0;
  *pz = (const char*)a;
  *pn = zNul ? (size_t)(zNul - a) : len;
  return 0;
}

/* The payload of feature f as a window (copied at open, or from the file). */
static int feat_bytes(TlTrace *pTrace, const PerfData *p, const PerfFeat *f,
                      TlWin *pWin, TlBytes *pb, TlErr *pErr){
  if( f->aCopy ){
    *pb = tl_bytes(f->aCopy, (size_t)f->n, p->bo);
    return TL_OK;
  }
  (void)pTrace;
  return tl_win_get(pWin, f->iOff, (size_t)f->n, p->bo, pb, pErr);
}

int perf_feature_value(TlTrace *pTrace, const PerfData *p, const PerfFeat *f,
                       TlStr *pOut, TlErr *pErr){
  TlWin win;
  TlBytes b;
  int rc;
  const char *z;
  size_t n;
  uint32_t u32a, u32b;
  uint64_t u64a, u64b;
  tl_win_init(&win, pTrace->pSrc);
  rc = feat_bytes(pTrace, p, f, &win, &b, pErr);
  if( rc ){ tl_win_free(&win); return rc; }
  switch( f->id ){
    case PF_HOSTNAME: case PF_OSRELEASE: case PF_VERSION: case PF_ARCH:
    case PF_CPUDESC: case PF_CPUID:
      if( read_string(&b, &z, &n)==0 ) tl_str_append(pOut, z, n);
      break;
    case PF_NRCPUS:
      if( tl_bytes_u32e(&b, &u32a)==0 && tl_bytes_u32e(&b, &u32b)==0 ){
        tl_json_obj_begin(pOut);
        tl_json_key(pOut, "online"); tl_json_uint(pOut, u32b);
        tl_json_key(pOut, "avail"); tl_json_uint(pOut, u32a);
        tl_json_obj_end(pOut);
      }
      break;
    case PF_TOTAL_MEM:
      if( tl_bytes_u64e(&b, &u64a)==0 ) tl_str_appendf(pOut, "%llu kB", (unsigned long long)u64a);
      break;
    case PF_CMDLINE:
      if( tl_bytes_u32e(&b, &u32a)==0 ){
        uint32_t i;
        for(i=0; i<u32a; i++){
          if( read_string(&b, &z, &n) ) break;
          if( i ) tl_str_appendc(pOut, ' ');
          tl_str_append(pOut, z, n);
        }
      }
      break;
    case PF_EVENT_DESC:
      if( tl_bytes_u32e(&b, &u32a)==0 && tl_bytes_u32e(&b, &u32b)==0 ){
        uint32_t i;
        tl_json_arr_begin(pOut);
        for(i=0; i<u32a; i++){
          uint32_t nIds, k;
          if( tl_bytes_skip(&b, u32b) || tl_bytes_u32e(&b, &nIds)
           || read_string(&b, &z, &n) ) break;
          tl_json_obj_begin(pOut);
          tl_json_key(pOut, "name"); tl_json_str(pOut, z, n);
          tl_json_key(pOut, "ids");
          tl_json_arr_begin(pOut);
          for(k=0; k<nIds; k++){
            if( tl_bytes_u64e(&b, &u64a) ) break;
            tl_json_uint(pOut, u64a);
          }
          tl_json_arr_end(pOut);
          tl_json_obj_end(pOut);
        }
        tl_json_arr_end(pOut);
      }
      break;
    case PF_SAMPLE_TIME:
      if( tl_bytes_u64e(&b, &u64a)==0 && tl_bytes_u64e(&b, &u64b)==0 ){
        tl_json_obj_begin(pOut);
        tl_json_key(pOut, "first"); tl_json_uint(pOut, u64a);
        tl_json_key(pOut, "last"); tl_json_uint(pOut, u64b);
        tl_json_obj_end(pOut);
      }
      break;
    case PF_CLOCKID:
      if( tl_bytes_u64e(&b, &u64a)==0 ) tl_str_appendf(pOut, "%llu", (unsigned long long)u64a);
      break;
    case PF_COMPRESSED: {
      static const char *const azKey[] = { "version", "type", "level", "ratio", "mmap_len" };
      int i;
      tl_json_obj_begin(pOut);
      for(i=0; i<5; i++){
        if( tl_bytes_u32e(&b, &u32a) ) break;
        tl_json_key(pOut, azKey[i]);
        tl_json_uint(pOut, u32a);
      }
      tl_json_obj_end(pOut);
      break;
    }
    default:
      break;
  }
  tl_win_free(&win);
  return TL_OK;
}

/* Name the attrs from EVENT_DESC: each description lists its ids. */
int perf_event_desc_apply(TlTrace *pTrace, PerfData *p, const PerfFeat *f,
                          TlErr *pErr){
  TlWin win;
  TlBytes b;
  uint32_t nr, attrSize, i;
  int rc;
  tl_win_init(&win, pTrace->pSrc);
  rc = feat_bytes(pTrace, p, f, &win, &b, pErr);
  if( rc ){ tl_win_free(&win); return rc; }
  if( tl_bytes_u32e(&b, &nr) || tl_bytes_u32e(&b, &attrSize) ){
    tl_win_free(&win);
    return TL_OK;
  }
  for(i=0; i<nr; i++){
    uint32_t nIds, k;
    const char *z;
    size_t n;
    TlBytes attrBytes;
    PerfAttr desc;
    int iMatch = -1;
    if( tl_bytes_sub(&b, attrSize, &attrBytes) || tl_bytes_u32e(&b, &nIds)
     || read_string(&b, &z, &n) ) break;
    if( nIds > tl_bytes_left(&b)/8 ) break;
    for(k=0; k<nIds; k++){
      uint64_t id;
      const PerfAttr *a;
      tl_bytes_u64e(&b, &id);
      a = perf_attr_for_id(p, id);
      if( a && iMatch<0 ) iMatch = (int)(a - p->aAttr);
    }
    if( iMatch<0 && nIds==0 && (int)i<p->nAttr ) iMatch = (int)i;
    if( iMatch<0 && perf_attr_parse(&attrBytes, p->bo, &desc)==0 && (int)i<p->nAttr
     && p->aAttr[i].type==desc.type && p->aAttr[i].config==desc.config ){
      iMatch = (int)i;
    }
    if( iMatch>=0 ){
      PerfAttr *a = &p->aAttr[iMatch];
      char *zNew = tl_strndup(z, n);
      if( zNew==0 ){ tl_win_free(&win); return tl_err_set(pErr, TL_ENOMEM, f->iOff, "out of memory"); }
      free(a->zName);
      a->zName = zNew;
      a->bNameFromDesc = 1;
    }
  }
  tl_win_free(&win);
  return TL_OK;
}
