/*
** perf_cols.c: the events columns the model answers for a perf.data
** record: comm (the thread's name at the record), and for a SAMPLE the
** symbol, dso, symoff and dso_offset of its ip and the stack of its
** callchain.
**
** comm is what perf script prints: the thread's name at the record's
** time, else "swapper" for thread 0 and ":TID" for a thread never named.
** symbol, dso and symoff are perf script -F ip,sym,symoff,dso's (the ip
** looked up as a kernel address when the sample's cpumode is the
** kernel's); symoff is NULL when the symbol is "[unknown]". dso_offset is
** the address within its file (perf report's "[.] 0x..." of an address no
** symbol names), NULL when no map holds it.
**
** stack is what `perf script | stackcollapse-perf.pl` (FlameGraph) makes
** of the callchain, without the command name it puts first: the frames
** outermost first, joined by ';'. The script's default rules, as it reads
** perf script's frame lines "IP SYMBOL (DSO)":
**   - the line is split at its last " (": a dso holding " (" (a deleted
**     memfd: "/memfd:x (deleted)") leaves " (/memfd:x" on the symbol;
**   - a symbol starting with '(' is no frame;
**   - a symbol is split at "->" into inlined frames, the ones after the
**     first marked "_[i]";
**   - "[unknown]" becomes "[FILE]" (the dso's base name) when the dso is
**     known, else "[unknown]";
**   - ';' becomes ':'; from the first '(' that does not open
**     "(anonymous namespace)" on, the name goes, unless it looks like a Go
**     method ("pkg.(*T).M"); '"' and '\'' go;
**   - for a command starting with "java", a leading 'L' goes from a name
**     holding '/'.
** No annotation (_[k], _[j]) and no addresses: the script's defaults.
*/
#include "perf_scan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"

#define PERF_CONTEXT_KERNEL ((uint64_t)-128)
#define PERF_CONTEXT_MAX    ((uint64_t)-4095)

/* Does z[0..n) look like a Go method name: ".(" then later ")."? */
static int looks_like_go_method(const char *z, size_t n){
  size_t i, j;
  for(i=0; i+1<n; i++){
    if( z[i]=='.' && z[i+1]=='(' ){
      for(j=i+2; j+1<n; j++){
        if( z[j]==')' && z[j+1]=='.' ) return 1;
      }
      return 0;
    }
  }
  return 0;
}

/*
** z[0..n) tidied into pOut as the script's $tidy_generic does: ';' made
** ':', from the first '(' not opening "(anonymous namespace)" on dropped
** (unless a Go method), '"' and '\'' dropped. Returns 1 if it cut there.
*/
static int tidy_into(const char *z, size_t n, TlStr *pOut){
  static const char zAnon[] = "(anonymous namespace)";
  const size_t nAnon = sizeof(zAnon) - 1;
  size_t i, nKeep = n;
  if( !looks_like_go_method(z, n) ){
    for(i=0; i<n; i++){
      if( z[i]!='(' ) continue;
      if( n-i>=nAnon && memcmp(z+i, zAnon, nAnon)==0 ){ i += nAnon - 1; continue; }
      nKeep = i;
      break;
    }
  }
  for(i=0; i<nKeep; ){
    size_t j = i;
    while( j<nKeep && z[j]!='"' && z[j]!='\'' && z[j]!=';' ) j++;
    tl_str_append(pOut, z + i, j - i);       /* a run kept as it is */
    if( j<nKeep && z[j]==';' ) tl_str_appendc(pOut, ':');
    i = j + 1;
  }
  return nKeep<n;
}

/* One frame name (a piece of the symbol between "->") into pOut, tidied. */
static void frame_piece(const char *z, size_t n, const char *zMod, size_t nMod,
                        int bJava, int bInlined, TlStr *pOut){
  size_t iStart = pOut->n;
  if( n==9 && memcmp(z, "[unknown]", 9)==0 && !(nMod==9 && memcmp(zMod, "[unknown]", 9)==0) ){
    /* "[" the dso's base name "]", tidied as a whole */
    size_t k = nMod;
    while( k>0 && zMod[k-1]!='/' ) k--;
    tl_str_appendc(pOut, '[');
    if( !tidy_into(zMod + k, nMod - k, pOut) ) tl_str_appendc(pOut, ']');
  }else{
    tidy_into(z, n, pOut);
  }
  if( pOut->bErr || pOut->z==0 ) return;
  if( bJava && pOut->n>iStart && pOut->z[iStart]=='L' && memchr(pOut->z + iStart, '/', pOut->n - iStart) ){
    memmove(pOut->z + iStart, pOut->z + iStart + 1, pOut->n - iStart - 1);
    pOut->n--;
    pOut->z[pOut->n] = 0;
  }
  if( bInlined && !strstr(pOut->z + iStart, "_[i]") ) tl_str_append(pOut, "_[i]", 4);
}

/*
** The frames of one callchain entry (symbol zSym of file zDso) appended to
** pOut, each followed by '\n' (a separator no name holds here: the names
** come from ELF and kallsyms strings, NUL-terminated). 0 frames when the
** script skips the line.
*/
void perf_cols_frame_names(const char *zSym, const char *zDso, int bJava, TlStr *pLine, TlStr *pOut){
  const char *zRaw = zSym, *zMod = zDso, *z, *zSplit = 0;
  size_t nRaw = strlen(zSym), nMod = strlen(zDso);
  int bFirst = 1;
  /* The script splits the line "SYMBOL (DSO)" at its last " (": the one
  ** between them, unless the dso holds one (then the symbol takes what is
  ** before it in the dso, and the dso is the rest, with the line's ')'). */
  for(z=zDso; (z = strstr(z, " ("))!=0; z++) zSplit = z;
  if( zSplit ){
    tl_str_reset(pLine);
    tl_str_append(pLine, zSym, nRaw);
    tl_str_append(pLine, " (", 2);
    tl_str_append(pLine, zDso, (size_t)(zSplit - zDso));
    if( pLine->bErr || pLine->z==0 ) return;
    zRaw = pLine->z;
    nRaw = pLine->n;
    zMod = zSplit + 2;
    nMod = strlen(zMod);
  }
  if( nRaw==0 || zRaw[0]=='(' ) return;
  /* split at "->": trailing empty pieces dropped, as perl's split does */
  while( nRaw>=2 && zRaw[nRaw-2]=='-' && zRaw[nRaw-1]=='>' ) nRaw -= 2;
  for(z=zRaw; z<zRaw+nRaw; ){
    const char *zEnd = z;
    while( zEnd<zRaw+nRaw && !(zEnd[0]=='-' && zEnd+1<zRaw+nRaw && zEnd[1]=='>') ) zEnd++;
    frame_piece(z, (size_t)(zEnd - z), zMod, nMod, bJava, !bFirst, pOut);
    tl_str_appendc(pOut, '\n');
    bFirst = 0;
    z = zEnd<zRaw+nRaw ? zEnd + 2 : zEnd;
  }
}

/*
** The stack column's state: frame names made once per (symbol, file)
** (the model's strings live as long as the trace: their addresses are a
** key), kept in a pool, found through a direct-mapped cache.
*/
#define PERF_NAME_CACHE 4096                      /* entries, a power of 2 */
#define PERF_NAME_POOL_MAX ((size_t)8<<20)        /* pool bytes before a reset */
typedef struct PerfName PerfName;
struct PerfName {
  const char *zSym, *zDso;        /* the key (zSym NULL: empty entry) */
  int bJava;
  uint32_t iOff, n;               /* its frames in pool: "a\nb\n" */
};
struct PerfCols {
  TlStr line, frames, stack, pool;
  PerfName aName[PERF_NAME_CACHE];
};

void perf_cols_free(PerfCols *c){
  if( c==0 ) return;
  tl_str_free(&c->line);
  tl_str_free(&c->frames);
  tl_str_free(&c->stack);
  tl_str_free(&c->pool);
  free(c);
}

/* The frames of (zSym, zDso) appended to c->frames, made on first use. */
static void frame_names_cached(PerfCols *c, const char *zSym, const char *zDso, int bJava){
  uintptr_t h = ((uintptr_t)zSym >> 3) * 31 + ((uintptr_t)zDso >> 3) + (uintptr_t)bJava;
  PerfName *e = &c->aName[(h ^ (h >> 13)) & (PERF_NAME_CACHE - 1)];
  if( e->zSym!=zSym || e->zDso!=zDso || e->bJava!=bJava ){
    size_t iOff;
    if( c->pool.n > PERF_NAME_POOL_MAX ){
      memset(c->aName, 0, sizeof(c->aName));
      tl_str_reset(&c->pool);
    }
    iOff = c->pool.n;
    perf_cols_frame_names(zSym, zDso, bJava, &c->line, &c->pool);
    if( c->pool.bErr ) return;
    e->zSym = zSym;
    e->zDso = zDso;
    e->bJava = bJava;
    e->iOff = (uint32_t)iOff;
    e->n = (uint32_t)(c->pool.n - iOff);
  }
  if( e->n ) tl_str_append(&c->frames, c->pool.z + e->iOff, e->n);
}

/* The stack column of the current sample. */
static void fill_stack(TlScan *s, const char *zComm, TlVal *pVal){
  const PerfSample *x = &s->ri.s;
  PerfCols *c = s->pCols;
  uint64_t k;
  int bKernelCtx = -1;                    /* no context marker yet */
  int bJava = zComm && strncmp(zComm, "java", 4)==0;
  int64_t pid = s->ri.bTid ? s->ri.pid : -1;
  int64_t ts = s->ri.bTs ? s->ri.ts : TL_SYMBOLS_NO_TS;
  size_t iEnd, i;
  TlBytes b;
  if( c==0 ){
    c = s->pCols = calloc(1, sizeof(*c));
    if( c==0 ) return;                    /* (NULL: as much as the row can say) */
  }
  tl_str_reset(&c->frames);
  b = tl_bytes(x->aCallchain, (size_t)x->nCallchain*8, s->p->bo);
  for(k=0; k<x->nCallchain; k++){
    uint64_t ip;
    TlSymbolAt at;
    if( tl_bytes_u64e(&b, &ip) ) break;    /* (the decoder checked the size) */
    if( ip>=PERF_CONTEXT_MAX ){ bKernelCtx = ip==PERF_CONTEXT_KERNEL; continue; }
    tl_symbols_at(s->p->pSyms, s->pTrace, pid, ts, ip, bKernelCtx<0 ? (int)(ip>>63) : bKernelCtx, &at);
    frame_names_cached(c, at.zSym, at.zDso, bJava);
  }
  {
    /* then the user frames unwound from the stack (--call-graph dwarf) */
    const uint64_t *aUser;
    int j, nUser = perf_unwind_frames(s, &aUser);
    for(j=0; j<nUser; j++){
      TlSymbolAt at;
      const struct TlSrcFrame *aSrc;
      int q, nSrc = perf_unwind_srclines(s, aUser[j], &aSrc);
      /* its inlined functions and itself, as perf script shows them */
      tl_symbols_at(s->p->pSyms, s->pTrace, pid, ts, aUser[j], 0, &at);
      for(q=0; q<nSrc; q++){
        if( perf_src_func(aSrc, q) ){
          perf_cols_frame_names(perf_src_func(aSrc, q), "inlined", bJava, &c->line, &c->frames);
        }else{
          frame_names_cached(c, at.zSym, at.zDso, bJava);
        }
      }
      if( nSrc==0 ) frame_names_cached(c, at.zSym, at.zDso, bJava);
    }
  }
  /* the frames were innermost first: join them outermost first */
  tl_str_reset(&c->stack);
  tl_str_append(&c->stack, "", 0);
  iEnd = c->frames.n;
  while( iEnd>0 && c->frames.z ){
    i = iEnd - 1;                         /* the '\n' ending the frame */
    while( i>0 && c->frames.z[i-1]!='\n' ) i--;
    if( c->stack.n ) tl_str_appendc(&c->stack, ';');
    tl_str_append(&c->stack, c->frames.z + i, iEnd - 1 - i);
    iEnd = i;
  }
  if( !c->frames.bErr && !c->pool.bErr ) tl_val_str(pVal, &c->stack);
}

void perf_cols_names_free(TlScan *s){
  size_t i;
  for(i=0; i<s->nTidName; i++) free(s->azTidName[i]);
  free(s->azTidName);
  tl_map_free(&s->tidNames);
  s->azTidName = 0;
  s->nTidName = s->nTidNameAlloc = 0;
}

unsigned tl_perf_tid_names_max = TL_THREADS_MAX;

/*
** ":TID" of thread tid for a tally (s->bKeepText): one string per tid,
** kept until the scan closes, so that its address names it; as many as
** the threads model keeps threads at most (tl_perf_tid_names_max). NULL,
** with the error in the scan, past that or when out of memory.
*/
static const char *tid_name_kept(TlScan *s, int64_t tid){
  uint32_t i;
  char **aNew, *z, zName[sizeof(s->zTidName)];
  if( tl_map_get(&s->tidNames, (uint64_t)tid, &i) ) return s->azTidName[i];
  if( s->nTidName>=tl_perf_tid_names_max ){
    tl_err_set(&s->err, TL_ELIMIT, TL_NO_OFFSET,
               "more than %zu threads never named: group by tid instead of comm", s->nTidName);
    return 0;
  }
  aNew = tl_grow(s->azTidName, &s->nTidNameAlloc, s->nTidName, sizeof(char*));
  if( aNew==0 ) goto oom;
  s->azTidName = aNew;
  snprintf(zName, sizeof(zName), ":%lld", (long long)tid);
  z = tl_strndup(zName, strlen(zName));
  if( z==0 ) goto oom;
  if( tl_map_put(&s->tidNames, (uint64_t)tid, (uint32_t)s->nTidName) ){
    free(z);
    goto oom;
  }
  s->azTidName[s->nTidName++] = z;
  return z;
oom:
  tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  return 0;
}

/* The thread's name as perf script prints it (s->zTidName: the buffer,
** unless the text must stay: tid_name_kept()). */
static const char *comm_of(TlScan *s){
  const char *z = 0;
  if( !s->ri.bTid ) return 0;
  if( s->p->pThreads ){
    z = tl_threads_name_at(s->p->pThreads, s->ri.tid, s->ri.bTs ? s->ri.ts : TL_THREADS_NO_TS);
  }
  if( z ) return z;
  if( s->ri.tid==0 ) return "swapper";
  if( s->bKeepText ) return tid_name_kept(s, s->ri.tid);
  snprintf(s->zTidName, sizeof(s->zTidName), ":%lld", (long long)s->ri.tid);
  return s->zTidName;
}

void perf_cols_fill(TlScan *s, TlVal *v){
  const uint64_t m = s->mNeed;
  const PerfSample *x = &s->ri.s;
  const char *zComm = 0;
  if( (m>>TL_EV_COMM & 1) || ((m>>TL_EV_STACK & 1) && (x->mHave & PS_CALLCHAIN)) ){
    zComm = comm_of(s);
    if( m>>TL_EV_COMM & 1 ) tl_val_textz(&v[TL_EV_COMM], zComm);
  }
  if( s->r.type!=PERF_SAMPLE ) return;
  if( (x->mHave & PS_IP) && (m & PERF_COLS_IP) ){
    TlSymbolAt at;
    int bKernel = (s->r.misc & 7)==1;      /* PERF_RECORD_MISC_KERNEL */
    tl_symbols_at(s->p->pSyms, s->pTrace, s->ri.bTid ? s->ri.pid : -1,
                  s->ri.bTs ? s->ri.ts : TL_SYMBOLS_NO_TS, x->ip, bKernel, &at);
    tl_val_textz(&v[TL_EV_SYMBOL], at.zSym);
    tl_val_textz(&v[TL_EV_DSO], at.zDso);
    if( strcmp(at.zSym, "[unknown]") ) tl_val_int(&v[TL_EV_SYMOFF], (int64_t)at.symoff);
    if( strcmp(at.zDso, "[unknown]") ) tl_val_int(&v[TL_EV_DSO_OFFSET], (int64_t)at.dsooff);
  }
  if( (x->mHave & PS_CALLCHAIN) && (m>>TL_EV_STACK & 1) ) fill_stack(s, zComm, &v[TL_EV_STACK]);
}
