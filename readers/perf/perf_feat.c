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

#include <stdio.h>
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

/* nr caps { string name, string value } as a JSON object; 0 or -1. */
static int pmu_caps_json(TlBytes *b, uint32_t nr, TlStr *pOut){
  uint32_t i;
  tl_json_obj_begin(pOut);
  for(i=0; i<nr; i++){
    const char *z, *zV;
    size_t n, nV;
    char zKey[128];
    if( read_string(b, &z, &n) || read_string(b, &zV, &nV) ) return -1;
    snprintf(zKey, sizeof(zKey), "%.*s", (int)n, z);
    tl_json_key(pOut, zKey); tl_json_str(pOut, zV, nV);
  }
  tl_json_obj_end(pOut);
  return 0;
}

/* A byte count as perf prints sizes ("24G": divided by 1024 while over 1024 twice). */
static void unit_number(TlStr *pOut, uint64_t n){
  static const char aUnit[] = "BKMG";
  int i = 0;
  while( n/1024 > 1 && i<3 ){ n /= 1024; i++; }
  tl_str_appendf(pOut, "%llu%c", (unsigned long long)n, aUnit[i]);
}

/*
** MEM_TOPOLOGY: u64 version, u64 block size, u64 nr, nr x { u64 node, u64
** size, a bitmap: u64 bits, then the words }. As JSON: the block size and
** per node its size (set blocks x block size, in perf's units) and the
** blocks as ranges, as `perf report --header-only -I` prints them.
*/
static void mem_topology_json(TlBytes *b, TlStr *pOut){
  uint64_t version, bsize, nr, i;
  if( tl_bytes_u64e(b, &version) || tl_bytes_u64e(b, &bsize) || tl_bytes_u64e(b, &nr) ) return;
  tl_json_obj_begin(pOut);
  tl_json_key(pOut, "block_size"); tl_json_uint(pOut, bsize);
  tl_json_key(pOut, "nodes");
  tl_json_arr_begin(pOut);
  for(i=0; i<nr && tl_bytes_left(b)>=24; i++){
    uint64_t node, size, nBits, nWords, k, nSet = 0, w;
    int64_t iRunStart = -1;
    TlStr map;
    if( tl_bytes_u64e(b, &node) || tl_bytes_u64e(b, &size) || tl_bytes_u64e(b, &nBits) ) break;
    nWords = (nBits + 63) / 64;
    if( nWords > tl_bytes_left(b)/8 ) break;
    tl_str_init(&map);
    tl_str_append(&map, "", 0);
    for(k=0, w=0; k<=nBits; k++){
      int bit = 0;
      if( k<nBits ){
        if( k%64==0 && tl_bytes_u64e(b, &w) ) break;
        bit = (int)((w >> (k%64)) & 1);
      }
      if( bit ){
        nSet++;
        if( iRunStart<0 ) iRunStart = (int64_t)k;
      }else if( iRunStart>=0 ){
        if( map.n ) tl_str_appendc(&map, ',');
        if( (uint64_t)iRunStart==k-1 ) tl_str_appendf(&map, "%lld", (long long)iRunStart);
        else tl_str_appendf(&map, "%lld-%llu", (long long)iRunStart, (unsigned long long)(k-1));
        iRunStart = -1;
      }
    }
    tl_json_obj_begin(pOut);
    tl_json_key(pOut, "node"); tl_json_uint(pOut, node);
    tl_json_key(pOut, "size");
    {
      TlStr u;
      tl_str_init(&u);
      unit_number(&u, nSet * bsize);
      tl_json_str(pOut, u.z ? u.z : "", u.n);
      tl_str_free(&u);
    }
    tl_json_key(pOut, "blocks"); tl_json_str(pOut, map.z ? map.z : "", map.n);
    tl_json_obj_end(pOut);
    tl_str_free(&map);
    (void)size;
  }
  tl_json_arr_end(pOut);
  tl_json_obj_end(pOut);
}

int perf_feature_value(TlTrace *pTrace, const PerfData *p, const PerfFeat *f,
                       TlStr *pOut, TlErr *pErr){
  TlWin win;
  TlBytes b;
  int rc;
  const char *z;
  size_t n;
  uint32_t u32a, u32b, n32;
  uint64_t u64a, u64b, u64c;
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
    case PF_PMU_MAPPINGS:
      /* as perf prints it: "software = 1, uprobe = 8, ..." */
      if( tl_bytes_u32e(&b, &u32a)==0 ){
        uint32_t i;
        for(i=0; i<u32a; i++){
          if( tl_bytes_u32e(&b, &u32b) || read_string(&b, &z, &n) ) break;
          tl_str_appendf(pOut, "%s%.*s = %u", i ? ", " : "", (int)n, z, u32b);
        }
      }
      break;
    case PF_GROUP_DESC:
      if( tl_bytes_u32e(&b, &u32a)==0 ){
        uint32_t i, iLeader, nMembers;
        tl_json_arr_begin(pOut);
        for(i=0; i<u32a; i++){
          if( read_string(&b, &z, &n) || tl_bytes_u32e(&b, &iLeader) || tl_bytes_u32e(&b, &nMembers) ) break;
          tl_json_obj_begin(pOut);
          tl_json_key(pOut, "name"); tl_json_str(pOut, z, n);
          tl_json_key(pOut, "leader"); tl_json_uint(pOut, iLeader);
          tl_json_key(pOut, "members"); tl_json_uint(pOut, nMembers);
          tl_json_obj_end(pOut);
        }
        tl_json_arr_end(pOut);
      }
      break;
    case PF_CPU_TOPOLOGY: {
      static const char *const azList[] = { "sibling_sockets", "sibling_threads" };
      int k;
      tl_json_obj_begin(pOut);
      for(k=0; k<2; k++){
        uint32_t i;
        if( tl_bytes_u32e(&b, &u32a) ) break;
        tl_json_key(pOut, azList[k]);
        tl_json_arr_begin(pOut);
        for(i=0; i<u32a; i++){
          if( read_string(&b, &z, &n) ) break;
          tl_json_str(pOut, z, n);
        }
        tl_json_arr_end(pOut);
      }
      tl_json_obj_end(pOut);
      break;
    }
    case PF_NUMA_TOPOLOGY:
      if( tl_bytes_u32e(&b, &u32a)==0 ){
        uint32_t i;
        tl_json_arr_begin(pOut);
        for(i=0; i<u32a; i++){
          if( tl_bytes_u32e(&b, &u32b) || tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b)
           || read_string(&b, &z, &n) ) break;
          tl_json_obj_begin(pOut);
          tl_json_key(pOut, "node"); tl_json_uint(pOut, u32b);
          tl_json_key(pOut, "mem_total_kb"); tl_json_uint(pOut, u64a);
          tl_json_key(pOut, "mem_free_kb"); tl_json_uint(pOut, u64b);
          tl_json_key(pOut, "cpus"); tl_json_str(pOut, z, n);
          tl_json_obj_end(pOut);
        }
        tl_json_arr_end(pOut);
      }
      break;
    case PF_CACHE:
      if( tl_bytes_u32e(&b, &u32a)==0 && tl_bytes_u32e(&b, &u32b)==0 ){
        uint32_t i;
        tl_json_arr_begin(pOut);
        for(i=0; i<u32b; i++){
          uint32_t lvl, line, sets, ways;
          const char *zT, *zS, *zM;
          size_t nT, nS, nM;
          if( tl_bytes_u32e(&b, &lvl) || tl_bytes_u32e(&b, &line) || tl_bytes_u32e(&b, &sets)
           || tl_bytes_u32e(&b, &ways) || read_string(&b, &zT, &nT) || read_string(&b, &zS, &nS)
           || read_string(&b, &zM, &nM) ) break;
          tl_json_obj_begin(pOut);
          tl_json_key(pOut, "level"); tl_json_uint(pOut, lvl);
          tl_json_key(pOut, "type"); tl_json_str(pOut, zT, nT);
          tl_json_key(pOut, "size"); tl_json_str(pOut, zS, nS);
          tl_json_key(pOut, "line_size"); tl_json_uint(pOut, line);
          tl_json_key(pOut, "sets"); tl_json_uint(pOut, sets);
          tl_json_key(pOut, "ways"); tl_json_uint(pOut, ways);
          tl_json_key(pOut, "cpus"); tl_json_str(pOut, zM, nM);
          tl_json_obj_end(pOut);
        }
        tl_json_arr_end(pOut);
      }
      break;
    case PF_HYBRID_TOPOLOGY:
      if( tl_bytes_u32e(&b, &u32a)==0 ){
        uint32_t i;
        tl_json_arr_begin(pOut);
        for(i=0; i<u32a; i++){
          const char *zC;
          size_t nC;
          if( read_string(&b, &z, &n) || read_string(&b, &zC, &nC) ) break;
          tl_json_obj_begin(pOut);
          tl_json_key(pOut, "pmu"); tl_json_str(pOut, z, n);
          tl_json_key(pOut, "cpus"); tl_json_str(pOut, zC, nC);
          tl_json_obj_end(pOut);
        }
        tl_json_arr_end(pOut);
      }
      break;
    case PF_CPU_PMU_CAPS:
      /* u32 nr, nr x { string name, string value } */
      if( tl_bytes_u32e(&b, &u32a)==0 ) pmu_caps_json(&b, u32a, pOut);
      break;
    case PF_PMU_CAPS:
      /* u32 nr_pmu, then per PMU: u32 nr, its caps, string pmu name */
      if( tl_bytes_u32e(&b, &u32a)==0 ){
        uint32_t i;
        tl_json_obj_begin(pOut);
        for(i=0; i<u32a; i++){
          TlStr caps;
          char zKey[128];
          if( tl_bytes_u32e(&b, &u32b) ) break;
          tl_str_init(&caps);
          if( pmu_caps_json(&b, u32b, &caps) || read_string(&b, &z, &n) ){
            tl_str_free(&caps);
            break;
          }
          snprintf(zKey, sizeof(zKey), "%.*s", (int)n, z);
          tl_json_key(pOut, zKey);
          tl_json_raw(pOut, caps.z ? caps.z : "{}", caps.z ? caps.n : 2);
          tl_str_free(&caps);
        }
        tl_json_obj_end(pOut);
      }
      break;
    case PF_MEM_TOPOLOGY:
      mem_topology_json(&b, pOut);
      break;
    case PF_BPF_PROG_INFO:
      /* u32 count, then variable-size bpf_prog_info records: the count */
      if( tl_bytes_u32e(&b, &u32a)==0 ){
        tl_json_obj_begin(pOut);
        tl_json_key(pOut, "programs"); tl_json_uint(pOut, u32a);
        tl_json_obj_end(pOut);
      }
      break;
    case PF_BPF_BTF:
      /* u32 count, count x { u32 id, u32 size, size bytes } */
      if( tl_bytes_u32e(&b, &u32a)==0 ){
        uint32_t i;
        tl_json_arr_begin(pOut);
        for(i=0; i<u32a; i++){
          if( tl_bytes_u32e(&b, &u32b) || tl_bytes_u32e(&b, &n32) || tl_bytes_skip(&b, n32) ) break;
          tl_json_obj_begin(pOut);
          tl_json_key(pOut, "id"); tl_json_uint(pOut, u32b);
          tl_json_key(pOut, "size"); tl_json_uint(pOut, n32);
          tl_json_obj_end(pOut);
        }
        tl_json_arr_end(pOut);
      }
      break;
    case PF_AUXTRACE:
      /* u64 count, count x { u64 offset, u64 size } of the AUXTRACE records */
      if( tl_bytes_u64e(&b, &u64a)==0 ){
        uint64_t i;
        tl_json_arr_begin(pOut);
        for(i=0; i<u64a && tl_bytes_left(&b)>=16; i++){
          if( tl_bytes_u64e(&b, &u64b) || tl_bytes_u64e(&b, &u64c) ) break;
          tl_json_obj_begin(pOut);
          tl_json_key(pOut, "offset"); tl_json_uint(pOut, u64b);
          tl_json_key(pOut, "size"); tl_json_uint(pOut, u64c);
          tl_json_obj_end(pOut);
        }
        tl_json_arr_end(pOut);
      }
      break;
    case PF_STAT:
      tl_str_appendz(pOut, "contains stat data");
      break;
    case PF_CLOCK_DATA:
      if( tl_bytes_u32e(&b, &u32a)==0 && tl_bytes_u32e(&b, &u32b)==0
       && tl_bytes_u64e(&b, &u64a)==0 && tl_bytes_u64e(&b, &u64b)==0 ){
        tl_json_obj_begin(pOut);
        tl_json_key(pOut, "version"); tl_json_uint(pOut, u32a);
        tl_json_key(pOut, "clockid"); tl_json_uint(pOut, u32b);
        tl_json_key(pOut, "wall_clock_ns"); tl_json_uint(pOut, u64a);
        tl_json_key(pOut, "clockid_ns"); tl_json_uint(pOut, u64b);
        tl_json_obj_end(pOut);
      }
      break;
    case PF_DIR_FORMAT:
      if( tl_bytes_u64e(&b, &u64a)==0 ) tl_str_appendf(pOut, "%llu", (unsigned long long)u64a);
      break;
    case PF_BRANCH_STACK:
      tl_str_appendz(pOut, "contains samples with branch stack");
      break;
    case PF_BUILD_ID: {
      /* build_id_event records: header, pid, build_id[24], filename */
      tl_json_arr_begin(pOut);
      while( tl_bytes_left(&b)>=8 ){
        uint16_t misc, size;
        uint32_t type;
        int32_t pid;
        TlBytes e;
        const uint8_t *aId;
        size_t iStart = b.i;
        if( tl_bytes_u32e(&b, &type) || tl_bytes_u16e(&b, &misc) || tl_bytes_u16e(&b, &size)
         || size<8+4+24 || b.i - 8 != iStart ) break;
        b.i = iStart;
        if( tl_bytes_sub(&b, size, &e) ) break;
        tl_bytes_skip(&e, 8);
        tl_bytes_u32e(&e, &u32a);
        pid = (int32_t)u32a;
        tl_bytes_ptr(&e, 24, &aId);        /* 20 bytes, size, 3 reserved */
        z = (const char*)e.a + e.i;
        n = tl_bytes_left(&e);
        {
          const char *zNul = n ? memchr(z, 0, n) : 0;
          if( zNul ) n = (size_t)(zNul - z);
        }
        tl_json_obj_begin(pOut);
        tl_json_key(pOut, "pid"); tl_json_int(pOut, pid);
        tl_json_key(pOut, "build_id"); tl_json_hex(pOut, aId, (misc & 0x8000) && aId[20] ? aId[20] : 20);
        tl_json_key(pOut, "filename"); tl_json_str(pOut, z, n);
        tl_json_obj_end(pOut);
      }
      tl_json_arr_end(pOut);
      break;
    }
    case PF_TRACING_DATA: {
      const uint8_t *a;
      if( tl_bytes_ptr(&b, 10, &a)==0 && memcmp(a, "\027\010Dtracing", 10)==0
       && tl_bytes_cstr(&b, &z, &n)==0 ){
        tl_json_obj_begin(pOut);
        tl_json_key(pOut, "version"); tl_json_str(pOut, z, n);
        tl_json_key(pOut, "tracepoint_formats"); tl_json_uint(pOut, (uint64_t)p->nTp);
        tl_json_obj_end(pOut);
      }
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
