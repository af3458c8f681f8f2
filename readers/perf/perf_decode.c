/*
** perf_decode.c: perf_event_attr, samples and sample_id trailers.
**
** Sample fields come in the kernel's order (perf_output_sample):
**   IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD READ CALLCHAIN RAW
**   BRANCH_STACK REGS_USER STACK_USER WEIGHT|WEIGHT_STRUCT DATA_SRC
**   TRANSACTION REGS_INTR PHYS_ADDR CGROUP DATA_PAGE_SIZE CODE_PAGE_SIZE AUX
** Other records with attr.sample_id_all end with a trailer of
**   TID TIME ID STREAM_ID CPU IDENTIFIER
** (each present when its bit is in sample_type).
*/
#include "perf_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reverse the bits of a byte (bitfields of big-endian producers). */
static uint8_t revbyte(uint8_t b){
  b = (uint8_t)(((b & 0xF0) >> 4) | ((b & 0x0F) << 4));
  b = (uint8_t)(((b & 0xCC) >> 2) | ((b & 0x33) << 2));
  b = (uint8_t)(((b & 0xAA) >> 1) | ((b & 0x55) << 1));
  return b;
}

/*
** Parse a perf_event_attr from exactly the bytes of b. Older, shorter attrs
** leave the later fields 0. Returns 0, or -1 if b is shorter than the
** 64 bytes of the first version.
*/
int perf_attr_parse(TlBytes *b, int bo, PerfAttr *a){
  size_t n = tl_bytes_left(b);
  const uint8_t *f;
  uint32_t u32;
  uint64_t u64;
  int k;
  memset(a, 0, sizeof(*a));
  /* (every read below is within the n bytes checked first) */
  if( n<64 ) return -1;
  if( tl_bytes_u32(b, bo, &a->type) || tl_bytes_u32(b, bo, &a->size)
   || tl_bytes_u64(b, bo, &a->config) || tl_bytes_u64(b, bo, &a->period)
   || tl_bytes_u64(b, bo, &a->sample_type) || tl_bytes_u64(b, bo, &a->read_format)
   || tl_bytes_ptr(b, 8, &f) ) return -1;
  if( bo==TL_BE ){
    /* A big-endian producer allocates bitfields from the most significant
    ** bit of each byte: reverse the bits of each byte, keep byte order. */
    uint8_t x[8];
    for(k=0; k<8; k++) x[k] = revbyte(f[k]);
    a->flags = tl_load_u64_unchecked(x, TL_LE);
  }else{
    a->flags = tl_load_u64_unchecked(f, TL_LE);
  }
  if( tl_bytes_u32(b, bo, &u32)              /* wakeup_events */
   || tl_bytes_u32(b, bo, &u32)              /* bp_type */
   || tl_bytes_u64(b, bo, &u64) ) return -1; /* config1 */
  if( n>=72 && tl_bytes_u64(b, bo, &u64) ) return -1;                   /* config2 */
  if( n>=80 && tl_bytes_u64(b, bo, &a->branch_sample_type) ) return -1;
  if( n>=96 ){
    if( tl_bytes_u64(b, bo, &a->regs_user)
     || tl_bytes_u32(b, bo, &u32)            /* sample_stack_user */
     || tl_bytes_u32(b, bo, &u32) ) return -1; /* clockid */
  }
  if( n>=104 && tl_bytes_u64(b, bo, &a->regs_intr) ) return -1;
  return 0;
}

static int popcount64(uint64_t x){
  x = x - ((x>>1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x>>2) & 0x3333333333333333ull);
  x = (x + (x>>4)) & 0x0F0F0F0F0F0F0F0Full;
  return (int)((x * 0x0101010101010101ull) >> 56);
}

/* Size in bytes of the READ values for read_format rf, reading nr from b. */
static int read_values(TlBytes *b, uint64_t rf, TlBytes *pOut){
  size_t iStart = b->i;
  uint64_t nPer = 1 + ((rf & PR_ID) ? 1 : 0) + ((rf & PR_LOST) ? 1 : 0);
  uint64_t nHead = ((rf & PR_TOTAL_TIME_ENABLED) ? 1 : 0) + ((rf & PR_TOTAL_TIME_RUNNING) ? 1 : 0);
  if( rf & PR_GROUP ){
    uint64_t nr;
    if( tl_bytes_u64e(b, &nr) ) return -1;
    if( nr > tl_bytes_left(b)/8/nPer ) return -1;
    if( tl_bytes_skip(b, (size_t)(8*(nHead + nr*nPer))) ) return -1;
  }else{
    if( tl_bytes_skip(b, (size_t)(8*(nHead + nPer))) ) return -1;
  }
  *pOut = tl_bytes(b->a + iStart, b->i - iStart, b->bo);
  return 0;
}

/*
** Zero every field of *s, one store each: memset or a struct copy of this
** size becomes a rep instruction whose start-up cost was a tenth of the
** whole walk. (A field added to PerfSample must be added here.)
*/
static void sample_clear(PerfSample *s){
  s->mHave = 0;
  s->id = s->ip = s->time = s->addr = s->stream_id = s->period = 0;
  s->weight = s->data_src = s->transaction = s->phys_addr = s->cgroup = 0;
  s->data_page_size = s->code_page_size = 0;
  s->pid = s->tid = s->cpu = 0;
  s->read = tl_bytes(0, 0, TL_LE);
  s->aCallchain = 0; s->nCallchain = 0;
  s->aRaw = 0; s->nRaw = 0;
  s->aBranch = 0; s->nBranch = 0; s->hwIdx = 0; s->bHwIdx = 0;
  s->regsUserAbi = 0; s->aRegsUser = 0; s->nRegsUser = 0;
  s->stackSize = s->stackDyn = 0; s->aStackUser = 0;
  s->regsIntrAbi = 0; s->aRegsIntr = 0; s->nRegsIntr = 0;
  s->auxSize = 0;
}

/* A sample's fields before READ: 8 bytes each */
#define PS_FIXED_FIELDS (PS_IDENTIFIER|PS_IP|PS_TID|PS_TIME|PS_ADDR|PS_ID|PS_STREAM_ID|PS_CPU|PS_PERIOD)

/* The callchain at b: its length, then that many addresses. */
static inline int sample_callchain(TlBytes *b, PerfSample *s){
  if( tl_bytes_left(b) < 8 ) return -1;
  s->nCallchain = tl_load_u64_unchecked(b->a + b->i, b->bo);
  if( s->nCallchain > (tl_bytes_left(b) - 8)/8 ) return -1;
  s->aCallchain = b->a + b->i + 8;
  b->i += 8 + (size_t)s->nCallchain*8;
  return 0;
}

int perf_sample_decode(const PerfAttr *a, const PerfRec *r, PerfSample *s){
  TlBytes b = r->body;
  uint64_t st = a->sample_type;
  uint64_t v;
  sample_clear(s);
  s->mHave = st;
#define U64(x) do{ if( tl_bytes_u64e(&b, &(x)) ) return -1; }while(0)
  {
    /* The fixed-size fields up to PERIOD: 8 bytes each, checked at once. */
    const uint8_t *f;
    const int bo = b.bo;
    size_t nFix = 8*(size_t)popcount64(st & PS_FIXED_FIELDS);
    if( tl_bytes_left(&b) < nFix ) return -1;     /* (inline: once per sample) */
    f = b.a + b.i;
    b.i += nFix;
#define F64(x) do{ (x) = tl_load_u64_unchecked(f, bo); f += 8; }while(0)
    if( st & PS_IDENTIFIER ) F64(s->id);
    if( st & PS_IP ) F64(s->ip);
    if( st & PS_TID ){
      s->pid = tl_load_u32_unchecked(f, bo);
      s->tid = tl_load_u32_unchecked(f+4, bo);
      f += 8;
    }
    if( st & PS_TIME ) F64(s->time);
    if( st & PS_ADDR ) F64(s->addr);
    if( st & PS_ID ) F64(s->id);
    if( st & PS_STREAM_ID ) F64(s->stream_id);
    if( st & PS_CPU ){ s->cpu = tl_load_u32_unchecked(f, bo); f += 8; }
    if( st & PS_PERIOD ) F64(s->period);
#undef F64
  }
  if( (st & ~(PS_FIXED_FIELDS|PS_CALLCHAIN))==0 ){
    /* the usual shape (perf record, with or without -g): at most a
    ** callchain after those, read here without the checks for the rest */
    return (st & PS_CALLCHAIN) ? sample_callchain(&b, s) : 0;
  }
  if( st & PS_READ ){
    if( read_values(&b, a->read_format, &s->read) ) return -1;
  }
  if( (st & PS_CALLCHAIN) && sample_callchain(&b, s) ) return -1;
  if( st & PS_RAW ){
    if( tl_bytes_u32e(&b, &s->nRaw) ) return -1;
    if( tl_bytes_ptr(&b, s->nRaw, &s->aRaw) ) return -1;
    /* the u32 size and the data are padded together to 8 bytes */
    if( (4 + s->nRaw) % 8 && tl_bytes_skip(&b, 8 - (4 + s->nRaw) % 8) ){
      b.i = b.n;                  /* the padding is cut short: no field follows */
    }
  }
  if( st & PS_BRANCH_STACK ){
    U64(s->nBranch);
    if( a->branch_sample_type & PERF_BRANCH_HW_INDEX ){
      U64(s->hwIdx);
      s->bHwIdx = 1;
    }
    if( s->nBranch > tl_bytes_left(&b)/24 ) return -1;
    if( tl_bytes_ptr(&b, (size_t)s->nBranch*24, &s->aBranch) ) return -1;
  }
  if( st & PS_REGS_USER ){
    U64(s->regsUserAbi);
    if( s->regsUserAbi ){
      s->nRegsUser = (uint64_t)popcount64(a->regs_user);
      if( tl_bytes_ptr(&b, (size_t)s->nRegsUser*8, &s->aRegsUser) ) return -1;
    }
  }
  if( st & PS_STACK_USER ){
    U64(s->stackSize);
    if( s->stackSize ){
      if( s->stackSize > SIZE_MAX || tl_bytes_ptr(&b, (size_t)s->stackSize, &s->aStackUser) ) return -1;
      U64(s->stackDyn);
    }
  }
  if( st & (PS_WEIGHT|PS_WEIGHT_STRUCT) ) U64(s->weight);
  if( st & PS_DATA_SRC ) U64(s->data_src);
  if( st & PS_TRANSACTION ) U64(s->transaction);
  if( st & PS_REGS_INTR ){
    U64(s->regsIntrAbi);
    if( s->regsIntrAbi ){
      s->nRegsIntr = (uint64_t)popcount64(a->regs_intr);
      if( tl_bytes_ptr(&b, (size_t)s->nRegsIntr*8, &s->aRegsIntr) ) return -1;
    }
  }
  if( st & PS_PHYS_ADDR ) U64(s->phys_addr);
  if( st & PS_CGROUP ) U64(s->cgroup);
  if( st & PS_DATA_PAGE_SIZE ) U64(s->data_page_size);
  if( st & PS_CODE_PAGE_SIZE ) U64(s->code_page_size);
  if( st & PS_AUX ){
    U64(s->auxSize);
    if( tl_bytes_skip(&b, (size_t)s->auxSize) || s->auxSize > SIZE_MAX ) return -1;
  }
#undef U64
  (void)v;
  return 0;
}

/*
** A sample's time and cpu alone, from its fixed-size fields, without
** decoding the rest (*pbTs, *pbCpu say which it has; both 0 when the record
** is too short for them). For scans that drop most samples by time or cpu.
*/
void perf_sample_peek(const PerfAttr *a, const PerfRec *r, int *pbTs, int64_t *pTs,
                      int *pbCpu, uint32_t *pCpu){
  uint64_t st = a->sample_type;
  const uint64_t mBefore = PS_IDENTIFIER|PS_IP|PS_TID|PS_TIME|PS_ADDR|PS_ID|PS_STREAM_ID|PS_CPU;
  size_t nFix = 8*(size_t)popcount64(st & mBefore);
  *pbTs = *pbCpu = 0;
  if( r->body.n < nFix ) return;
  if( st & PS_TIME ){
    *pbTs = 1;
    *pTs = (int64_t)tl_load_u64_unchecked(r->body.a + 8*(size_t)popcount64(st & (PS_IDENTIFIER|PS_IP|PS_TID)), r->body.bo);
  }
  if( st & PS_CPU ){
    *pbCpu = 1;
    *pCpu = tl_load_u32_unchecked(r->body.a + nFix - 8, r->body.bo);
  }
}

/* Bytes of the sample_id trailer for sample_type st. */
static size_t trailer_size(uint64_t st){
  size_t n = 0;
  if( st & PS_TID ) n += 8;
  if( st & PS_TIME ) n += 8;
  if( st & PS_ID ) n += 8;
  if( st & PS_STREAM_ID ) n += 8;
  if( st & PS_CPU ) n += 8;
  if( st & PS_IDENTIFIER ) n += 8;
  return n;
}

int perf_trailer_decode(const PerfAttr *a, const PerfRec *r, PerfSample *s){
  uint64_t st = a->sample_type;
  size_t n = trailer_size(st);
  TlBytes b;
  memset(s, 0, sizeof(*s));
  if( !(a->flags & PA_SAMPLE_ID_ALL) || n==0 ) return 0;
  if( r->type>=PERF_HEADER_ATTR || r->type==PERF_SAMPLE ) return 0;
  if( r->body.n < n ) return -1;
  b = tl_bytes(r->body.a + r->body.n - n, n, r->body.bo);
  /* (b holds exactly the n bytes these fields take) */
  if( ((st & PS_TID) && (tl_bytes_u32e(&b, &s->pid) || tl_bytes_u32e(&b, &s->tid)))
   || ((st & PS_TIME) && tl_bytes_u64e(&b, &s->time))
   || ((st & PS_ID) && tl_bytes_u64e(&b, &s->id))
   || ((st & PS_STREAM_ID) && tl_bytes_u64e(&b, &s->stream_id)) ) return -1;
  if( st & PS_CPU ){
    uint32_t res;
    if( tl_bytes_u32e(&b, &s->cpu) || tl_bytes_u32e(&b, &res) ) return -1;
  }
  if( (st & PS_IDENTIFIER) && tl_bytes_u64e(&b, &s->id) ) return -1;
  s->mHave = st & (PS_TID|PS_TIME|PS_ID|PS_STREAM_ID|PS_CPU|PS_IDENTIFIER);
  return 0;
}

const PerfAttr *perf_attr_for_id(const PerfData *p, uint64_t id){
  uint32_t k;
  /* (a hash, not a binary search of the ids: this is asked for every
  ** record, by the index, the merge and the decoders) */
  return tl_map_get(&p->idMap, id, &k) && k<(uint32_t)p->nAttr ? &p->aAttr[k] : 0;
}

/*
** Which attr a record belongs to: by its sample id when the attrs carry
** ids (the id's position follows from the first attr's sample_type, as
** perf requires all attrs to agree on it), else the first attr.
*/
int perf_attr_of(const PerfData *p, const PerfRec *r){
  const PerfAttr *a0;
  uint64_t st, id = 0;
  int bId = 0;
  TlBytes b = r->body;
  if( p->nAttr<=1 ) return 0;
  a0 = &p->aAttr[0];
  st = a0->sample_type;
  if( r->type==PERF_SAMPLE ){
    if( st & PS_IDENTIFIER ){
      bId = tl_bytes_u64e(&b, &id)==0;
    }else if( st & PS_ID ){
      size_t k = 0;
      if( st & PS_IP ) k += 8;
      if( st & PS_TID ) k += 8;
      if( st & PS_TIME ) k += 8;
      if( st & PS_ADDR ) k += 8;
      bId = tl_bytes_skip(&b, k)==0 && tl_bytes_u64e(&b, &id)==0;
    }
  }else if( r->type<PERF_HEADER_ATTR && (a0->flags & PA_SAMPLE_ID_ALL) ){
    size_t k = 0;
    if( st & PS_IDENTIFIER ){
      k = 8;
    }else if( st & PS_ID ){
      k = 8;
      if( st & PS_STREAM_ID ) k += 8;
      if( st & PS_CPU ) k += 8;
    }
    if( k && b.n>=k ){
      id = tl_load_u64_unchecked(b.a + b.n - k, b.bo);
      bId = 1;
    }
  }
  if( bId ){
    const PerfAttr *a = perf_attr_for_id(p, id);
    if( a ) return (int)(a - p->aAttr);
  }
  return 0;
}

/*
** The modifiers perf (6.1) appends to a hardware or software event's name
** made from its attr: k, u, h for the contexts counted when any is
** excluded; p per precise_ip level; H and G for host and guest when
** exclude_host is set or exclude_guest equals what the earlier modifiers
** imply (set when k/u/h or p were printed).
*/
static void attr_modifiers(const PerfAttr *a, char *z, size_t n){
  uint64_t f = a->flags;
  int bUser = (f>>4)&1, bKernel = (f>>5)&1, bHv = (f>>6)&1;
  int nPrecise = (int)((f>>15)&3), bHost = (int)((f>>19)&1), bGuest = (int)((f>>20)&1);
  int bGuestDefault = 0;
  size_t k = 0;
  char zMod[16];
  if( bUser || bKernel || bHv ){
    if( !bKernel ) zMod[k++] = 'k';
    if( !bUser ) zMod[k++] = 'u';
    if( !bHv ) zMod[k++] = 'h';
    bGuestDefault = 1;
  }
  if( nPrecise ){
    int i;
    for(i=0; i<nPrecise; i++) zMod[k++] = 'p';
    bGuestDefault = 1;
  }
  if( bHost || bGuest==bGuestDefault ){
    if( !bHost ) zMod[k++] = 'H';
    if( !bGuest ) zMod[k++] = 'G';
  }
  zMod[k] = 0;
  if( k ){
    size_t m = strlen(z);
    if( m<n ) snprintf(z + m, n - m, ":%s", zMod);
  }
}

void perf_attr_default_name(const PerfAttr *a, char *z, size_t n){
  static const char *const azHw[] = {
    "cycles", "instructions", "cache-references", "cache-misses", "branches",
    "branch-misses", "bus-cycles", "stalled-cycles-frontend",
    "stalled-cycles-backend", "ref-cycles"
  };
  static const char *const azSw[] = {
    "cpu-clock", "task-clock", "page-faults", "context-switches",
    "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
    "emulation-faults", "dummy", "bpf-output", "cgroup-switches"
  };
  if( a->type==0 && a->config < sizeof(azHw)/sizeof(azHw[0]) ){
    snprintf(z, n, "%s", azHw[a->config]);
    attr_modifiers(a, z, n);
  }else if( a->type==1 && a->config < sizeof(azSw)/sizeof(azSw[0]) ){
    snprintf(z, n, "%s", azSw[a->config]);
    attr_modifiers(a, z, n);
  }else if( a->type==4 ){
    snprintf(z, n, "r%llx", (unsigned long long)a->config);
  }else{
    snprintf(z, n, "%u:%llu", a->type, (unsigned long long)a->config);
  }
}

void perf_sample_type_text(uint64_t st, TlStr *pOut){
  static const char *const az[PS_NBITS] = {
    "IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
    "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
    "DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
    "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT"
  };
  int i, bFirst = 1;
  for(i=0; i<64; i++){
    if( !(st & ((uint64_t)1<<i)) ) continue;
    if( !bFirst ) tl_str_appendc(pOut, '|');
    if( i<PS_NBITS ) tl_str_appendz(pOut, az[i]);
    else tl_str_appendf(pOut, "(1<<%d)", i);
    bFirst = 0;
  }
}

void perf_read_format_text(uint64_t rf, TlStr *pOut){
  static const char *const az[] = {
    "TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST"
  };
  int i, bFirst = 1;
  for(i=0; i<64; i++){
    if( !(rf & ((uint64_t)1<<i)) ) continue;
    if( !bFirst ) tl_str_appendc(pOut, '|');
    if( i<5 ) tl_str_appendz(pOut, az[i]);
    else tl_str_appendf(pOut, "(1<<%d)", i);
    bFirst = 0;
  }
}
