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
**   BUILD_ID:    build_id_event records: header, pid, build_id[24], filename
**
** One table row per feature id gives its name and its renderer. A renderer
** reads the payload with the byte cursor; a read that fails (a payload cut
** short or damaged) ends what it renders: the value shows what came before.
*/
#include "perf_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- build ids --------------------------------------------------------- */

/*
** The next build_id_event of a list (the BUILD_ID feature): 1 with its
** misc and the bytes after its 8-byte header, 0 at the end of the list or
** at an entry that runs past it.
*/
int perf_buildid_list_next(TlBytes *pList, uint16_t *pMisc, TlBytes *pBody){
  uint32_t type;
  uint16_t size;
  size_t iStart = pList->i;
  if( tl_bytes_left(pList)<8 ) return 0;
  if( tl_bytes_u32e(pList, &type) || tl_bytes_u16e(pList, pMisc) || tl_bytes_u16e(pList, &size)
   || size<8 ) return 0;
  pList->i = iStart;
  if( tl_bytes_sub(pList, size, pBody) || tl_bytes_skip(pBody, 8) ) return 0;
  return 1;
}

/*
** One build_id_event's body (as HEADER_BUILD_ID records carry it): pid,
** build_id[20] with its size in byte 20 when misc has 0x8000, 3 reserved,
** the file name up to its NUL. 0, or -1 when the body is too short.
*/
int perf_buildid_parse(uint16_t misc, TlBytes body, PerfBuildId *pOut){
  uint32_t pid;
  const uint8_t *aName;
  const char *zNul;
  size_t n;
  if( tl_bytes_u32e(&body, &pid) || tl_bytes_ptr(&body, 24, &pOut->aId) ) return -1;
  n = tl_bytes_left(&body);
  if( tl_bytes_ptr(&body, n, &aName) ) return -1;
  pOut->pid = (int32_t)pid;
  pOut->nId = (misc & 0x8000) && pOut->aId[20] && pOut->aId[20]<=20 ? pOut->aId[20] : 20;
  pOut->zName = (const char*)aName;
  zNul = n ? memchr(aName, 0, n) : 0;
  pOut->nName = zNul ? (size_t)(zNul - pOut->zName) : n;
  return 0;
}

/* ---- renderers, one per feature (or kind of feature) ---------------------- */

typedef void (*FeatRender)(const PerfData*, TlBytes*, TlStr*);

/* HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID: one string */
static void feat_string(const PerfData *p, TlBytes *b, TlStr *pOut){
  const char *z;
  size_t n;
  (void)p;
  if( read_string(b, &z, &n)==0 ) tl_str_append(pOut, z, n);
}

/* CLOCKID, DIR_FORMAT: one u64 */
static void feat_u64(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint64_t v;
  (void)p;
  if( tl_bytes_u64e(b, &v)==0 ) tl_str_appendf(pOut, "%llu", (unsigned long long)v);
}

static void feat_total_mem(const PerfData *p, TlBytes *b, TlStr *pOut){
  size_t n0 = pOut->n;
  feat_u64(p, b, pOut);
  if( pOut->n>n0 ) tl_str_appendz(pOut, " kB");
}

/* the words of the command line, as one line */
static void feat_cmdline(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint32_t nr, i;
  (void)p;
  if( tl_bytes_u32e(b, &nr) ) return;
  for(i=0; i<nr; i++){
    const char *z;
    size_t n;
    if( read_string(b, &z, &n) ) break;
    if( i ) tl_str_appendc(pOut, ' ');
    tl_str_append(pOut, z, n);
  }
}

static void feat_event_desc(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint32_t nr, attrSize, i;
  (void)p;
  if( tl_bytes_u32e(b, &nr) || tl_bytes_u32e(b, &attrSize) ) return;
  tl_json_arr_begin(pOut);
  for(i=0; i<nr; i++){
    uint32_t nIds, k;
    const char *z;
    size_t n;
    if( tl_bytes_skip(b, attrSize) || tl_bytes_u32e(b, &nIds) || read_string(b, &z, &n) ) break;
    tl_json_obj_begin(pOut);
    tl_json_key(pOut, "name"); tl_json_str(pOut, z, n);
    tl_json_key(pOut, "ids");
    tl_json_arr_begin(pOut);
    for(k=0; k<nIds; k++){
      uint64_t id;
      if( tl_bytes_u64e(b, &id) ) break;
      tl_json_uint(pOut, id);
    }
    tl_json_arr_end(pOut);
    tl_json_obj_end(pOut);
  }
  tl_json_arr_end(pOut);
}

/* as perf prints it: "software = 1, uprobe = 8, ..." */
static void feat_pmu_mappings(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint32_t nr, i;
  (void)p;
  if( tl_bytes_u32e(b, &nr) ) return;
  for(i=0; i<nr; i++){
    uint32_t type;
    const char *z;
    size_t n;
    if( tl_bytes_u32e(b, &type) || read_string(b, &z, &n) ) break;
    tl_str_appendf(pOut, "%s%.*s = %u", i ? ", " : "", (int)n, z, type);
  }
}

static void feat_group_desc(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint32_t nr, i;
  (void)p;
  if( tl_bytes_u32e(b, &nr) ) return;
  tl_json_arr_begin(pOut);
  for(i=0; i<nr; i++){
    uint32_t iLeader, nMembers;
    const char *z;
    size_t n;
    if( read_string(b, &z, &n) || tl_bytes_u32e(b, &iLeader) || tl_bytes_u32e(b, &nMembers) ) break;
    tl_json_obj_begin(pOut);
    tl_json_key(pOut, "name"); tl_json_str(pOut, z, n);
    tl_json_key(pOut, "leader"); tl_json_uint(pOut, iLeader);
    tl_json_key(pOut, "members"); tl_json_uint(pOut, nMembers);
    tl_json_obj_end(pOut);
  }
  tl_json_arr_end(pOut);
}

static void feat_cpu_topology(const PerfData *p, TlBytes *b, TlStr *pOut){
  static const char *const azList[] = { "sibling_sockets", "sibling_threads" };
  int k;
  (void)p;
  tl_json_obj_begin(pOut);
  for(k=0; k<2; k++){
    uint32_t nr, i;
    if( tl_bytes_u32e(b, &nr) ) break;
    tl_json_key(pOut, azList[k]);
    tl_json_arr_begin(pOut);
    for(i=0; i<nr; i++){
      const char *z;
      size_t n;
      if( read_string(b, &z, &n) ) break;
      tl_json_str(pOut, z, n);
    }
    tl_json_arr_end(pOut);
  }
  tl_json_obj_end(pOut);
}

static void feat_numa_topology(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint32_t nr, i;
  (void)p;
  if( tl_bytes_u32e(b, &nr) ) return;
  tl_json_arr_begin(pOut);
  for(i=0; i<nr; i++){
    uint32_t node;
    uint64_t total, nFree;
    const char *z;
    size_t n;
    if( tl_bytes_u32e(b, &node) || tl_bytes_u64e(b, &total) || tl_bytes_u64e(b, &nFree)
     || read_string(b, &z, &n) ) break;
    tl_json_obj_begin(pOut);
    tl_json_key(pOut, "node"); tl_json_uint(pOut, node);
    tl_json_key(pOut, "mem_total_kb"); tl_json_uint(pOut, total);
    tl_json_key(pOut, "mem_free_kb"); tl_json_uint(pOut, nFree);
    tl_json_key(pOut, "cpus"); tl_json_str(pOut, z, n);
    tl_json_obj_end(pOut);
  }
  tl_json_arr_end(pOut);
}

static void feat_cache(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint32_t version, nr, i;
  (void)p;
  if( tl_bytes_u32e(b, &version) || tl_bytes_u32e(b, &nr) ) return;
  tl_json_arr_begin(pOut);
  for(i=0; i<nr; i++){
    uint32_t lvl, line, sets, ways;
    const char *zT, *zS, *zM;
    size_t nT, nS, nM;
    if( tl_bytes_u32e(b, &lvl) || tl_bytes_u32e(b, &line) || tl_bytes_u32e(b, &sets)
     || tl_bytes_u32e(b, &ways) || read_string(b, &zT, &nT) || read_string(b, &zS, &nS)
     || read_string(b, &zM, &nM) ) break;
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

static void feat_hybrid_topology(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint32_t nr, i;
  (void)p;
  if( tl_bytes_u32e(b, &nr) ) return;
  tl_json_arr_begin(pOut);
  for(i=0; i<nr; i++){
    const char *z, *zC;
    size_t n, nC;
    if( read_string(b, &z, &n) || read_string(b, &zC, &nC) ) break;
    tl_json_obj_begin(pOut);
    tl_json_key(pOut, "pmu"); tl_json_str(pOut, z, n);
    tl_json_key(pOut, "cpus"); tl_json_str(pOut, zC, nC);
    tl_json_obj_end(pOut);
  }
  tl_json_arr_end(pOut);
}

/* u32 nr, nr x { string name, string value } */
static void feat_cpu_pmu_caps(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint32_t nr;
  (void)p;
  if( tl_bytes_u32e(b, &nr)==0 ) pmu_caps_json(b, nr, pOut);
}

/* u32 nr_pmu, then per PMU: u32 nr, its caps, string pmu name */
static void feat_pmu_caps(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint32_t nPmu, i;
  (void)p;
  if( tl_bytes_u32e(b, &nPmu) ) return;
  tl_json_obj_begin(pOut);
  for(i=0; i<nPmu; i++){
    TlStr caps;
    char zKey[128];
    uint32_t nr;
    const char *z;
    size_t n;
    if( tl_bytes_u32e(b, &nr) ) break;
    tl_str_init(&caps);
    if( pmu_caps_json(b, nr, &caps) || read_string(b, &z, &n) ){
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

static void feat_mem_topology(const PerfData *p, TlBytes *b, TlStr *pOut){
  (void)p;
  mem_topology_json(b, pOut);
}

/* u32 count, count x { u32 id, u32 size, size bytes } */
static void feat_bpf_btf(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint32_t nr, i;
  (void)p;
  if( tl_bytes_u32e(b, &nr) ) return;
  tl_json_arr_begin(pOut);
  for(i=0; i<nr; i++){
    uint32_t id, size;
    if( tl_bytes_u32e(b, &id) || tl_bytes_u32e(b, &size) || tl_bytes_skip(b, size) ) break;
    tl_json_obj_begin(pOut);
    tl_json_key(pOut, "id"); tl_json_uint(pOut, id);
    tl_json_key(pOut, "size"); tl_json_uint(pOut, size);
    tl_json_obj_end(pOut);
  }
  tl_json_arr_end(pOut);
}

/* u64 count, count x { u64 offset, u64 size } of the AUXTRACE records */
static void feat_auxtrace(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint64_t nr, i;
  (void)p;
  if( tl_bytes_u64e(b, &nr) ) return;
  tl_json_arr_begin(pOut);
  for(i=0; i<nr && tl_bytes_left(b)>=16; i++){
    uint64_t off, size;
    if( tl_bytes_u64e(b, &off) || tl_bytes_u64e(b, &size) ) break;
    tl_json_obj_begin(pOut);
    tl_json_key(pOut, "offset"); tl_json_uint(pOut, off);
    tl_json_key(pOut, "size"); tl_json_uint(pOut, size);
    tl_json_obj_end(pOut);
  }
  tl_json_arr_end(pOut);
}

static void feat_build_id(const PerfData *p, TlBytes *b, TlStr *pOut){
  uint16_t misc;
  TlBytes body;
  (void)p;
  tl_json_arr_begin(pOut);
  while( perf_buildid_list_next(b, &misc, &body) ){
    PerfBuildId e;
    if( perf_buildid_parse(misc, body, &e) ) break;
    tl_json_obj_begin(pOut);
    tl_json_key(pOut, "pid"); tl_json_int(pOut, e.pid);
    tl_json_key(pOut, "build_id"); tl_json_hex(pOut, e.aId, e.nId);
    tl_json_key(pOut, "filename"); tl_json_str(pOut, e.zName, e.nName);
    tl_json_obj_end(pOut);
  }
  tl_json_arr_end(pOut);
}

static void feat_tracing_data(const PerfData *p, TlBytes *b, TlStr *pOut){
  const uint8_t *a;
  const char *z;
  size_t n;
  if( tl_bytes_ptr(b, 10, &a) || memcmp(a, "\027\010Dtracing", 10) || tl_bytes_cstr(b, &z, &n) ) return;
  tl_json_obj_begin(pOut);
  tl_json_key(pOut, "version"); tl_json_str(pOut, z, n);
  tl_json_key(pOut, "tracepoint_formats"); tl_json_uint(pOut, (uint64_t)p->nTp);
  tl_json_obj_end(pOut);
}

/* ---- features of fixed fields, rendered from their table row -------------- */

/* A u32 or u64 field of a fixed layout, and where its key goes in the JSON. */
typedef struct FeatField FeatField;
struct FeatField {
  const char *zKey;
  uint8_t nByte;                  /* 4 or 8 */
  uint8_t iPrint;                 /* its place in the object */
};
#define FEAT_MAX_FIELD 5

static const FeatField aNrcpus[] = {
  { "avail", 4, 1 }, { "online", 4, 0 }
};
static const FeatField aSampleTime[] = {
  { "first", 8, 0 }, { "last", 8, 1 }
};
static const FeatField aClockData[] = {
  { "version", 4, 0 }, { "clockid", 4, 1 }, { "wall_clock_ns", 8, 2 }, { "clockid_ns", 8, 3 }
};
/* u32 count, then variable-size bpf_prog_info records: the count */
static const FeatField aBpfProgInfo[] = {
  { "programs", 4, 0 }
};
static const FeatField aCompressed[] = {
  { "version", 4, 0 }, { "type", 4, 1 }, { "level", 4, 2 }, { "ratio", 4, 3 }, { "mmap_len", 4, 4 }
};

/* ---- the table ------------------------------------------------------------ */

typedef struct FeatDef FeatDef;
struct FeatDef {
  const char *zName;              /* as perf's header.c names it */
  FeatRender xRender;             /* its value, or NULL: */
  const FeatField *aField;        /* fixed fields as a JSON object, or NULL: */
  const char *zText;              /* a fixed text, or NULL: no value */
  uint8_t nField;
  uint8_t bPartial;               /* aField: the fields read when cut short
                                  ** (else nothing) */
};
#define FIELDS(a) 0, a, 0, sizeof(a)/sizeof(a[0])

static const FeatDef aFeatDef[] = {
  [PF_TRACING_DATA]    = { "TRACING_DATA",    feat_tracing_data, 0, 0 },
  [PF_BUILD_ID]        = { "BUILD_ID",        feat_build_id, 0, 0 },
  [PF_HOSTNAME]        = { "HOSTNAME",        feat_string, 0, 0 },
  [PF_OSRELEASE]       = { "OSRELEASE",       feat_string, 0, 0 },
  [PF_VERSION]         = { "VERSION",         feat_string, 0, 0 },
  [PF_ARCH]            = { "ARCH",            feat_string, 0, 0 },
  [PF_NRCPUS]          = { "NRCPUS",          FIELDS(aNrcpus), 0 },
  [PF_CPUDESC]         = { "CPUDESC",         feat_string, 0, 0 },
  [PF_CPUID]           = { "CPUID",           feat_string, 0, 0 },
  [PF_TOTAL_MEM]       = { "TOTAL_MEM",       feat_total_mem, 0, 0 },
  [PF_CMDLINE]         = { "CMDLINE",         feat_cmdline, 0, 0 },
  [PF_EVENT_DESC]      = { "EVENT_DESC",      feat_event_desc, 0, 0 },
  [PF_CPU_TOPOLOGY]    = { "CPU_TOPOLOGY",    feat_cpu_topology, 0, 0 },
  [PF_NUMA_TOPOLOGY]   = { "NUMA_TOPOLOGY",   feat_numa_topology, 0, 0 },
  [PF_BRANCH_STACK]    = { "BRANCH_STACK",    0, 0, "contains samples with branch stack" },
  [PF_PMU_MAPPINGS]    = { "PMU_MAPPINGS",    feat_pmu_mappings, 0, 0 },
  [PF_GROUP_DESC]      = { "GROUP_DESC",      feat_group_desc, 0, 0 },
  [PF_AUXTRACE]        = { "AUXTRACE",        feat_auxtrace, 0, 0 },
  [PF_STAT]            = { "STAT",            0, 0, "contains stat data" },
  [PF_CACHE]           = { "CACHE",           feat_cache, 0, 0 },
  [PF_SAMPLE_TIME]     = { "SAMPLE_TIME",     FIELDS(aSampleTime), 0 },
  [PF_MEM_TOPOLOGY]    = { "MEM_TOPOLOGY",    feat_mem_topology, 0, 0 },
  [PF_CLOCKID]         = { "CLOCKID",         feat_u64, 0, 0 },
  [PF_DIR_FORMAT]      = { "DIR_FORMAT",      feat_u64, 0, 0 },
  [PF_BPF_PROG_INFO]   = { "BPF_PROG_INFO",   FIELDS(aBpfProgInfo), 0 },
  [PF_BPF_BTF]         = { "BPF_BTF",         feat_bpf_btf, 0, 0 },
  [PF_COMPRESSED]      = { "COMPRESSED",      FIELDS(aCompressed), 1 },
  [PF_CPU_PMU_CAPS]    = { "CPU_PMU_CAPS",    feat_cpu_pmu_caps, 0, 0 },
  [PF_CLOCK_DATA]      = { "CLOCK_DATA",      FIELDS(aClockData), 0 },
  [PF_HYBRID_TOPOLOGY] = { "HYBRID_TOPOLOGY", feat_hybrid_topology, 0, 0 },
  [PF_PMU_CAPS]        = { "PMU_CAPS",        feat_pmu_caps, 0, 0 },
};
#define N_FEAT_DEF ((int)(sizeof(aFeatDef)/sizeof(aFeatDef[0])))

/* A feature of fixed fields (d->aField) as a JSON object. */
static void feat_fields(const FeatDef *d, TlBytes *b, TlStr *pOut){
  uint64_t a[FEAT_MAX_FIELD];
  int n, i, k;
  for(n=0; n<d->nField && n<FEAT_MAX_FIELD; n++){
    uint32_t v32;
    if( d->aField[n].nByte==4 ){
      if( tl_bytes_u32e(b, &v32) ) break;
      a[n] = v32;
    }else if( tl_bytes_u64e(b, &a[n]) ){
      break;
    }
  }
  if( n<d->nField && !d->bPartial ) return;
  tl_json_obj_begin(pOut);
  for(k=0; k<n; k++){
    for(i=0; i<n; i++){
      if( d->aField[i].iPrint!=k ) continue;
      tl_json_key(pOut, d->aField[i].zKey);
      tl_json_uint(pOut, a[i]);
    }
  }
  tl_json_obj_end(pOut);
}

const char *perf_feature_name(int id){
  return id>0 && id<N_FEAT_DEF ? aFeatDef[id].zName : 0;
}

int perf_feature_value(TlTrace *pTrace, const PerfData *p, const PerfFeat *f,
                       TlStr *pOut, TlErr *pErr){
  const FeatDef *d = f->id>0 && f->id<N_FEAT_DEF ? &aFeatDef[f->id] : 0;
  TlWin win;
  TlBytes b;
  int rc;
  if( d==0 || (d->xRender==0 && d->aField==0 && d->zText==0) ) return TL_OK;
  if( d->zText ){
    tl_str_appendz(pOut, d->zText);
    return TL_OK;
  }
  tl_win_init(&win, pTrace->pSrc);
  rc = feat_bytes(pTrace, p, f, &win, &b, pErr);
  if( rc==TL_OK && d->aField ) feat_fields(d, &b, pOut);
  else if( rc==TL_OK ) d->xRender(p, &b, pOut);
  tl_win_free(&win);
  return rc;
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
      if( tl_bytes_u64e(&b, &id) ) break;     /* (nIds is checked above) */
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
