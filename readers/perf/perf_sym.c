/*
** perf_sym.c: symbols for perf.data addresses.
**
** While the file is first walked (perf.c), MMAP and MMAP2 records give the
** maps of each process (address range, file offset, file name, time) and
** FORK records each process's parent. A sample's address is looked up in
** the maps of its process (else its parent's, which the child inherits): of
** the maps holding it, the latest one made before the sample. The file of
** that map is then read as ELF when a query first needs it (under the
** trace's lock, kept for later queries): the address becomes a file
** offset (address - start + pgoff), then a virtual address through the
** PT_LOAD segment holding that offset, and the symbol is the FUNC or
** OBJECT symbol of .symtab (else .dynsym) containing it. What cannot be
** resolved is "[unknown]", as `perf script` prints it. Kernel addresses
** get the dso "[kernel.kallsyms]" and no symbol: the trace does not carry
** the kernel's symbols.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perf_int.h"

#define PERF_MAX_MAPS   (1u<<20)      /* MMAP/MMAP2 records kept */
#define PERF_MAX_DSOS   (1u<<16)      /* distinct mapped files */
#define PERF_MAX_SYMS   (1u<<22)      /* symbols loaded in all */
#define PERF_KERNEL_DSO "[kernel.kallsyms]"

static uint64_t name_hash(const char *z, size_t n){
  uint64_t h = 1469598103934665603ull;
  size_t i;
  for(i=0; i<n; i++){ h ^= (uint8_t)z[i]; h *= 1099511628211ull; }
  return h;
}

/* The index of the dso named z[0..n), added if new; -1 on OOM or the cap. */
static int64_t dso_get(PerfData *p, const char *z, size_t n){
  uint64_t h = name_hash(z, n);
  uint32_t i;
  PerfDso *d;
  /* open addressing over the hash: probe h, h+1, ... */
  for(;; h++){
    if( !tl_map_get(&p->dsoByName, h, &i) ) break;
    if( strlen(p->aDso[i].zName)==n && memcmp(p->aDso[i].zName, z, n)==0 ) return i;
  }
  if( p->nDso>=PERF_MAX_DSOS ) return -1;
  if( p->nDso==p->nDsoAlloc ){
    size_t nNew = p->nDsoAlloc ? p->nDsoAlloc*2 : 16;
    PerfDso *aNew = realloc(p->aDso, nNew*sizeof(PerfDso));
    if( aNew==0 ) return -1;
    p->aDso = aNew;
    p->nDsoAlloc = nNew;
  }
  d = &p->aDso[p->nDso];
  memset(d, 0, sizeof(*d));
  d->zName = tl_strndup(z, n);
  if( d->zName==0 || tl_map_put(&p->dsoByName, h, (uint32_t)p->nDso) ){
    free(d->zName);
    return -1;
  }
  return (int64_t)p->nDso++;
}

/*
** Build ids the trace records for its files: one build_id_event's body
** (pid, build_id[20] with its size in byte 20 when misc has 0x8000, 3
** reserved, the file name), as HEADER_BUILD_ID records carry them; 0, or
** TL_ENOMEM.
*/
int perf_buildid_entry(PerfData *p, uint16_t misc, TlBytes e){
  const uint8_t *aId;
  const char *z;
  size_t n, nId;
  int64_t iDso;
  if( tl_bytes_skip(&e, 4) || tl_bytes_ptr(&e, 24, &aId) ) return TL_OK;
  z = (const char*)e.a + e.i;
  n = tl_bytes_left(&e);
  {
    const char *zNul = n ? memchr(z, 0, n) : 0;
    if( zNul ) n = (size_t)(zNul - z);
  }
  nId = (misc & 0x8000) && aId[20] && aId[20]<=20 ? aId[20] : 20;
  if( n==0 || z[0]!='/' ) return TL_OK;            /* [kernel.kallsyms], [vdso], ... */
  iDso = dso_get(p, z, n);
  if( iDso<0 ) return TL_ENOMEM;
  memcpy(p->aDso[iDso].aBuildId, aId, nId);
  p->aDso[iDso].nBuildId = (int)nId;
  return TL_OK;
}

/* The BUILD_ID feature: a list of build_id_event records. */
int perf_buildids_note(PerfData *p, TlBytes b){
  while( tl_bytes_left(&b)>=8 ){
    uint32_t type;
    uint16_t misc, size;
    TlBytes e;
    size_t iStart = b.i;
    if( tl_bytes_u32e(&b, &type) || tl_bytes_u16e(&b, &misc) || tl_bytes_u16e(&b, &size) || size<8 ) break;
    b.i = iStart;
    if( tl_bytes_sub(&b, size, &e) || tl_bytes_skip(&e, 8) ) break;   /* a cut list ends */
    if( perf_buildid_entry(p, misc, e) ) return TL_ENOMEM;
  }
  return TL_OK;
}

int perf_maps_note(TlTrace *pTrace, PerfData *p, const PerfRec *r, int bTs, int64_t ts){
  TlBytes b = r->body;
  uint32_t pid, tid;
  uint64_t addr, len, pgoff;
  const char *z;
  size_t n, nId;
  const uint8_t *aId;
  int64_t iDso;
  PerfMap *m;
  if( r->type==PERF_FORK ){
    uint32_t ppid;
    if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &ppid) ) return TL_OK;
    if( pid!=ppid && tl_map_put(&p->parent, pid, ppid) ) return TL_ENOMEM;
    return TL_OK;
  }
  if( r->type!=PERF_MMAP && r->type!=PERF_MMAP2 ) return TL_OK;
  if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &tid) || tl_bytes_u64e(&b, &addr)
   || tl_bytes_u64e(&b, &len) || tl_bytes_u64e(&b, &pgoff) ) return TL_OK;
  aId = 0;
  nId = 0;
  if( r->type==PERF_MMAP2 ){
    /* dev/ino, or (misc 0x4000) the build id: size, 3 reserved, 20 bytes; prot, flags */
    const uint8_t *a24;
    if( tl_bytes_ptr(&b, 24, &a24) || tl_bytes_skip(&b, 8) ) return TL_OK;
    if( (r->misc & 0x4000) && a24[0]>0 && a24[0]<=20 ){ aId = a24 + 4; nId = a24[0]; }
  }
  if( tl_bytes_cstr(&b, &z, &n) ) return TL_OK;
  if( p->nMap>=PERF_MAX_MAPS ){
    if( !p->bMapCap ){
      tl_trace_warn(pTrace, 0, r->iOff, "more than %u mmap records: later ones are not used for symbols",
                    PERF_MAX_MAPS);
      p->bMapCap = 1;
    }
    return TL_OK;
  }
  iDso = dso_get(p, z, n);
  if( iDso<0 ) return TL_ENOMEM;
  if( aId ){
    memcpy(p->aDso[iDso].aBuildId, aId, nId);
    p->aDso[iDso].nBuildId = (int)nId;
  }
  if( p->nMap==p->nMapAlloc ){
    size_t nNew = p->nMapAlloc ? p->nMapAlloc*2 : 64;
    PerfMap *aNew = realloc(p->aMap, nNew*sizeof(PerfMap));
    if( aNew==0 ) return TL_ENOMEM;
    p->aMap = aNew;
    p->nMapAlloc = nNew;
  }
  m = &p->aMap[p->nMap++];
  m->pid = (r->misc & 7)==1 ? -1 : (int64_t)(int32_t)pid;   /* cpumode kernel: every process */
  m->start = addr;
  m->len = len;
  m->pgoff = pgoff;
  m->ts = bTs ? ts : INT64_MIN;
  m->iSeq = p->nMap;
  m->iDso = (uint32_t)iDso;
  p->bMapsSorted = 0;
  return TL_OK;
}

static int cmp_map(const void *a, const void *b){
  const PerfMap *x = a, *y = b;
  if( x->pid!=y->pid ) return x->pid < y->pid ? -1 : 1;
  if( x->start!=y->start ) return x->start < y->start ? -1 : 1;
  return x->iSeq < y->iSeq ? -1 : x->iSeq > y->iSeq;
}

void perf_maps_finish(PerfData *p){
  if( p->nMap>1 ) qsort(p->aMap, p->nMap, sizeof(PerfMap), cmp_map);
  p->bMapsSorted = 1;
}

void perf_sym_free(PerfData *p){
  size_t i;
  for(i=0; i<p->nDso; i++){
    free(p->aDso[i].zName);
    free(p->aDso[i].aSym);
    tl_elf_free(&p->aDso[i].elf);
    tl_elf_free(&p->aDso[i].dbg);
    tl_source_close(p->aDso[i].pSrc);
    tl_source_close(p->aDso[i].pDbgSrc);
  }
  free(p->aDso);
  free(p->aMap);
  free(p->aKsym);
  free(p->zKsBuf);
  tl_map_free(&p->dsoByName);
  tl_map_free(&p->parent);
}

static int cmp_sym(const void *a, const void *b){
  const PerfSym *x = a, *y = b;
  if( x->addr!=y->addr ) return x->addr < y->addr ? -1 : 1;
  return 0;
}

/* Map file zPath and parse it as ELF into *pElf; 0 on success. */
static int elf_open(const char *zPath, const char *zName, TlSource **ppSrc, TlElf *pElf,
                    TlTrace *pTrace){
  TlErr err;
  TlWin w;
  TlBytes all;
  struct stat st;
  int rc;
  tl_err_clear(&err);
  /* only regular files: a trace may name a FIFO or a device */
  if( stat(zPath, &st) || !S_ISREG(st.st_mode) ) return -1;
  if( tl_source_open(zPath, ppSrc, &err) ) return -1;
  tl_win_init(&w, *ppSrc);
  rc = (*ppSrc)->aMap==0 || tl_win_get(&w, 0, (size_t)(*ppSrc)->nSize, TL_LE, &all, &err)
    || tl_elf_parse(pElf, all.a, all.n, zName, &err);
  tl_win_free(&w);                 /* mapped: the bytes stay with the source */
  if( rc && err.rc && err.rc!=TL_EMISUSE ){
    tl_trace_warn(pTrace, zName, err.iOff, "symbols not read: %s", err.zMsg);
  }
  return rc ? -1 : 0;
}

/* The GNU build id of e as hex into z (at least 41+ bytes); 0 if found. */
static int elf_build_id(const TlElf *e, char *z, size_t nz){
  uint32_t k = tl_elf_find_sec(e, ".note.gnu.build-id");
  TlBytes b;
  uint32_t namesz, descsz, type, i;
  const uint8_t *aName, *aDesc;
  if( k==UINT32_MAX ) return -1;
  b = tl_elf_sec(e, k);
  if( tl_bytes_u32e(&b, &namesz) || tl_bytes_u32e(&b, &descsz) || tl_bytes_u32e(&b, &type)
   || type!=3 || namesz!=4 || tl_bytes_ptr(&b, 4, &aName) || memcmp(aName, "GNU", 4)
   || descsz==0 || descsz>64 || 2*(size_t)descsz+1>nz || tl_bytes_ptr(&b, descsz, &aDesc) ) return -1;
  for(i=0; i<descsz; i++) snprintf(z + 2*i, 3, "%02x", aDesc[i]);
  return 0;
}

/* The first symbol table section of e (.symtab, else .dynsym when bDyn). */
static uint32_t elf_symtab(const TlElf *e, int bDyn){
  uint32_t k;
  for(k=0; k<e->nSec; k++) if( e->aSec[k].type==TL_ELF_SHT_SYMTAB ) return k;
  for(k=0; bDyn && k<e->nSec; k++) if( e->aSec[k].type==TL_ELF_SHT_DYNSYM ) return k;
  return UINT32_MAX;
}

/* Close what dso_open opened for d. */
static void dso_close_file(PerfDso *d){
  tl_elf_free(&d->elf);
  memset(&d->elf, 0, sizeof(d->elf));
  tl_source_close(d->pSrc);
  d->pSrc = 0;
}

/*
** Open the ELF file of dso d, as perf finds it: with the build id the trace
** recorded, the build-id cache first (buildid_dir=, else ~/.debug:
** .build-id/xx/rest/elf, or .build-id/xx/rest in perf's older layout), then
** the file at its path (under symfs=), used only if its own build id is
** that one. 0 when d->elf is open.
*/
static int dso_open(TlTrace *pTrace, PerfDso *d, const char *zSymfs){
  char zPath[4096], zWant[64], zHave[160];
  int i;
  if( d->nBuildId ){
    const char *zCache = tl_opts_get(&pTrace->opts, "buildid_dir");
    const char *zHome = getenv("HOME");
    char zDefault[4096];
    for(i=0; i<d->nBuildId; i++) snprintf(zWant + 2*i, 3, "%02x", d->aBuildId[i]);
    if( zCache==0 && zHome
     && (size_t)snprintf(zDefault, sizeof(zDefault), "%s/.debug", zHome) < sizeof(zDefault) ){
      zCache = zDefault;
    }
    for(i=0; zCache && i<2; i++){
      if( (size_t)snprintf(zPath, sizeof(zPath), "%s/.build-id/%.2s/%s%s", zCache, zWant, zWant+2,
                           i==0 ? "/elf" : "") >= sizeof(zPath) ) continue;
      if( elf_open(zPath, d->zName, &d->pSrc, &d->elf, pTrace)==0 ){
        if( elf_build_id(&d->elf, zHave, sizeof(zHave))==0 && strcmp(zHave, zWant)==0 ) return 0;
        dso_close_file(d);
      }
    }
  }
  if( (size_t)snprintf(zPath, sizeof(zPath), "%s%s", zSymfs, d->zName) >= sizeof(zPath) ) return -1;
  if( elf_open(zPath, d->zName, &d->pSrc, &d->elf, pTrace) ) return -1;
  if( d->nBuildId && elf_build_id(&d->elf, zHave, sizeof(zHave))==0 && strcmp(zHave, zWant)!=0 ){
    tl_trace_warn(pTrace, d->zName, TL_NO_OFFSET,
                  "%s has build id %s, the trace's is %s: its symbols are not used", zPath, zHave, zWant);
    dso_close_file(d);
    return -1;
  }
  return 0;
}

/* Read the symbols of dso d (once; the caller holds the trace lock). */
static void dso_load(TlTrace *pTrace, PerfData *p, PerfDso *d){
  const char *zSymfs = tl_opts_get(&pTrace->opts, "symfs");
  const TlElf *pTab;
  char zPath[4096];
  uint32_t iTab;
  size_t nAlloc = 0;
  d->eState = 2;
  if( zSymfs==0 ) zSymfs = "";
  if( d->zName[0]!='/' ) return;                  /* [vdso], //anon, [heap], ... */
  if( dso_open(pTrace, d, zSymfs) ) return;
  pTab = &d->elf;
  iTab = elf_symtab(&d->elf, 0);
  if( iTab==UINT32_MAX ){
    /* No .symtab: the separate debug file of its build id, as perf finds it. */
    char zId[160];
    if( elf_build_id(&d->elf, zId, sizeof(zId))==0
     && (size_t)snprintf(zPath, sizeof(zPath), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
                         zSymfs, zId, zId+2) < sizeof(zPath)
     && elf_open(zPath, d->zName, &d->pDbgSrc, &d->dbg, pTrace)==0 ){
      iTab = elf_symtab(&d->dbg, 0);
      if( iTab!=UINT32_MAX ) pTab = &d->dbg;
    }
    if( iTab==UINT32_MAX ) iTab = elf_symtab(&d->elf, 1);
  }
  if( iTab!=UINT32_MAX ){
    TlBytes b = tl_elf_sec(pTab, iTab);
    TlElfSym s;
    while( tl_elf_sym_next(pTab, &b, &s)==0 ){
      int t = s.info & 15;
      const char *zName;
      /* functions (and GNU indirect ones), objects, and labels (NOTYPE
      ** symbols of a section, as perf takes them), not absolute ones */
      if( (t!=TL_ELF_STT_FUNC && t!=TL_ELF_STT_OBJECT && t!=0 && t!=10)
       || s.value==0 || s.shndx==0 || s.shndx==0xfff1 ) continue;
      zName = tl_elf_str(pTab, pTab->aSec[iTab].link, s.nameOff);
      if( zName==0 || zName[0]==0 ) continue;
      if( p->nSymTotal>=PERF_MAX_SYMS ){
        tl_trace_warn(pTrace, d->zName, TL_NO_OFFSET,
                      "more than %u symbols in all: the rest of this file's are not read", PERF_MAX_SYMS);
        break;
      }
      if( d->nSym==nAlloc ){
        size_t nNew = nAlloc ? nAlloc*2 : 256;
        PerfSym *aNew = realloc(d->aSym, nNew*sizeof(PerfSym));
        if( aNew==0 ) break;
        d->aSym = aNew;
        nAlloc = nNew;
      }
      d->aSym[d->nSym].addr = s.value;
      d->aSym[d->nSym].size = s.size;
      d->aSym[d->nSym].zName = zName;
      d->aSym[d->nSym].zMod = 0;
      d->aSym[d->nSym].bFunc = t!=TL_ELF_STT_OBJECT;
      d->nSym++;
      p->nSymTotal++;
    }
  }
  if( d->nSym>1 ) qsort(d->aSym, d->nSym, sizeof(PerfSym), cmp_sym);
  d->eState = 1;
}

int perf_dso_ready(TlTrace *pTrace, const PerfData *p, size_t iDso){
  /* The only part of the trace's data that changes after open: filled once, under the lock. */
  PerfDso *d = (PerfDso*)(uintptr_t)&p->aDso[iDso];
  PerfData *pMut = (PerfData*)(uintptr_t)p;
  int eState = __atomic_load_n(&d->eState, __ATOMIC_ACQUIRE);
  if( eState==0 ){
    tl_trace_lock(pTrace);
    if( d->eState==0 ){
      dso_load(pTrace, pMut, d);
      __atomic_store_n(&d->eState, d->eState, __ATOMIC_RELEASE);
    }
    eState = d->eState;
    tl_trace_unlock(pTrace);
  }
  return eState==1;
}

/* The symbol of dso d holding virtual address a, or NULL. */
static const char *dso_symbol(const PerfDso *d, uint64_t a){
  size_t lo = 0, hi = d->nSym;
  while( lo<hi ){                                  /* last symbol with addr <= a */
    size_t mid = lo + (hi-lo)/2;
    if( d->aSym[mid].addr<=a ) lo = mid+1; else hi = mid;
  }
  while( lo>0 ){
    const PerfSym *s = &d->aSym[lo-1];
    if( s->size ? a - s->addr < s->size
                : (lo==d->nSym || a < d->aSym[lo].addr) ) return s->zName;
    if( s->addr!=a && lo>1 && d->aSym[lo-2].addr==s->addr ){ lo--; continue; }
    break;
  }
  return 0;
}

/* The map of pid holding ip, made latest before ts; NULL if none. */
static const PerfMap *map_find(const PerfData *p, int64_t pid, uint64_t ip, int64_t ts){
  size_t lo = 0, hi = p->nMap, i;
  const PerfMap *best = 0;
  while( lo<hi ){                                  /* first map of pid */
    size_t mid = lo + (hi-lo)/2;
    if( p->aMap[mid].pid<pid ) lo = mid+1; else hi = mid;
  }
  for(i=lo; i<p->nMap && p->aMap[i].pid==pid && p->aMap[i].start<=ip; i++){
    const PerfMap *m = &p->aMap[i];
    if( ip - m->start >= m->len ) continue;
    if( m->ts!=INT64_MIN && ts!=INT64_MIN && m->ts>ts ) continue;
    if( best==0 || m->iSeq>best->iSeq ) best = m;
  }
  return best;
}

/*
** The whole of file zPath into a new buffer, read as a stream: /proc/kallsyms
** reports a size of 0 and cannot be mapped. 0 on success.
*/
#define PERF_MAX_KALLSYMS (256u<<20)
static int kallsyms_read(const char *zPath, char **pz, size_t *pn){
  FILE *f = fopen(zPath, "rb");
  char *a = 0;
  size_t n = 0, nAlloc = 0;
  if( f==0 ) return -1;
  *pz = 0;
  for(;;){
    size_t got;
    if( n==nAlloc ){
      char *aNew;
      if( nAlloc>=PERF_MAX_KALLSYMS ) break;      /* the rest is not read */
      nAlloc = nAlloc ? nAlloc*2 : 1u<<20;
      aNew = realloc(a, nAlloc);
      if( aNew==0 ){ free(a); fclose(f); return -1; }
      a = aNew;
    }
    got = fread(a+n, 1, nAlloc-n, f);
    n += got;
    if( got==0 ) break;
  }
  fclose(f);
  if( n==nAlloc ){                                /* room for a NUL after the last line */
    char *aNew = realloc(a, n+1);
    if( aNew==0 ){ free(a); return -1; }
    a = aNew;
  }
  a[n] = 0;
  *pz = a;
  *pn = n;
  return 0;
}

/*
** The kallsyms= file ("address type name [module]" per line, as
** /proc/kallsyms), its text symbols (types t, T, w, W: the ones perf keeps)
** sorted by address; read once, under the trace lock. Names and modules
** are NUL-terminated in place in the file's bytes.
*/
int perf_kallsyms_ready(TlTrace *pTrace, const PerfData *pc){
  PerfData *p = (PerfData*)(uintptr_t)pc;
  int e = __atomic_load_n(&p->eKallsyms, __ATOMIC_ACQUIRE);
  if( e==0 ){
    tl_trace_lock(pTrace);
    if( p->eKallsyms==0 ){
      const char *zPath = tl_opts_get(&pTrace->opts, "kallsyms");
      size_t nAlloc = 0;
      e = 2;
      if( zPath && kallsyms_read(zPath, &p->zKsBuf, &p->nKsBuf)==0 ){
        char *z = p->zKsBuf, *zEnd = z + p->nKsBuf;
        while( z<zEnd ){
          char *zNl = memchr(z, '\n', (size_t)(zEnd - z));
          char *zLineEnd = zNl ? zNl : zEnd, *q = z, *zName, *zMod = 0;
          uint64_t a = 0;
          int nHex = 0;
          char t;
          while( q<zLineEnd && nHex<17 ){
            int v = *q>='0'&&*q<='9' ? *q-'0' : *q>='a'&&*q<='f' ? *q-'a'+10 : *q>='A'&&*q<='F' ? *q-'A'+10 : -1;
            if( v<0 ) break;
            a = (a<<4) | (uint64_t)v; nHex++; q++;
          }
          if( nHex>0 && nHex<=16 && zLineEnd - q >= 4 && q[0]==' ' && q[2]==' '
           && ((t = q[1])=='t' || t=='T' || t=='w' || t=='W') && a ){
            char *y;
            zName = q + 3;
            for(y=zName; y<zLineEnd && *y!=' ' && *y!='\t'; y++){}
            if( y<zLineEnd ){
              char *zm = y;
              while( zm<zLineEnd && (*zm==' ' || *zm=='\t') ) zm++;
              if( zm<zLineEnd && *zm=='[' ){
                char *ze = memchr(zm, ']', (size_t)(zLineEnd - zm));
                if( ze && ze+1<zEnd ){ ze[1] = 0; zMod = zm; }
              }
            }
            *y = 0;                                 /* at worst the NUL after the bytes */
            if( y==zName ) goto next_line;
            if( p->nKsym==nAlloc ){
              size_t nNew = nAlloc ? nAlloc*2 : 4096;
              PerfSym *aNew = nNew<=PERF_MAX_SYMS ? realloc(p->aKsym, nNew*sizeof(PerfSym)) : 0;
              if( aNew==0 ) break;
              p->aKsym = aNew;
              nAlloc = nNew;
            }
            p->aKsym[p->nKsym].addr = a;
            p->aKsym[p->nKsym].size = 0;
            p->aKsym[p->nKsym].zName = zName;
            p->aKsym[p->nKsym].zMod = zMod;
            p->aKsym[p->nKsym].bFunc = 1;
            p->nKsym++;
          }
        next_line:
          z = zLineEnd + 1;
        }
        if( p->nKsym>1 ) qsort(p->aKsym, p->nKsym, sizeof(PerfSym), cmp_sym);
        {
          /* as perf does: a kallsyms symbol ends where the next one starts */
          size_t i;
          for(i=0; i+1<p->nKsym; i++) p->aKsym[i].size = p->aKsym[i+1].addr - p->aKsym[i].addr;
        }
        e = p->nKsym ? 1 : 2;
      }
      if( zPath && e!=1 ){
        tl_trace_warn(pTrace, 0, TL_NO_OFFSET, "kallsyms=%s: no kernel text symbols could be read", zPath);
      }
      __atomic_store_n(&p->eKallsyms, e, __ATOMIC_RELEASE);
    }
    e = p->eKallsyms;
    tl_trace_unlock(pTrace);
  }
  return e==1;
}

/*
** Where the last kallsyms symbol ends: kallsyms gives no sizes, each symbol
** ends where the next begins, and perf ends the last one at the page after
** the one it starts in (symbols__fixup_end), which ends the kernel's map.
*/
static uint64_t kallsyms_last_end(uint64_t addr){
  if( addr > UINT64_MAX - 8192 ) return UINT64_MAX;
  return ((addr + 4095) & ~(uint64_t)4095) + 4096;
}

void perf_symbolize(TlTrace *pTrace, const PerfData *p, int64_t pid, uint64_t ip, int64_t ts,
                    int bKernel, const char **pzSym, const char **pzDso){
  const PerfMap *m = 0;
  int k;
  *pzSym = "[unknown]";
  *pzDso = "[unknown]";
  /* The caller decides kernel or user: by the callchain's context marker,
  ** else by the address. As perf looks a kernel-context address up in the
  ** kernel's maps only (and a user one in the process's), an address below
  ** every kernel symbol is no one's (garbage a frame-pointer walk found). */
  if( bKernel ){
    *pzDso = PERF_KERNEL_DSO;
    if( perf_kallsyms_ready(pTrace, p) ){
      size_t lo = 0, hi = p->nKsym;
      while( lo<hi ){
        size_t mid = lo + (hi-lo)/2;
        if( p->aKsym[mid].addr<=ip ) lo = mid+1; else hi = mid;
      }
      if( lo==p->nKsym && lo>0 && ip>=kallsyms_last_end(p->aKsym[lo-1].addr) ){
        *pzDso = "[unknown]";            /* past the kernel's map, as perf ends it */
      }else if( lo>0 ){
        const PerfSym *y = &p->aKsym[lo-1];
        *pzSym = y->zName;
        if( y->zMod ) *pzDso = y->zMod;
      }else{
        *pzDso = "[unknown]";
      }
    }
    return;
  }
  for(k=0; k<8 && m==0; k++){
    uint32_t parent;
    m = map_find(p, pid, ip, ts);
    if( m || !tl_map_get(&p->parent, (uint64_t)pid, &parent) ) break;
    pid = (int32_t)parent;
  }
  if( m==0 ) return;
  *pzDso = p->aDso[m->iDso].zName;
  if( perf_dso_ready(pTrace, p, m->iDso) ){
    const PerfDso *d = &p->aDso[m->iDso];
    uint64_t va;
    if( tl_elf_off_to_vaddr(&d->elf, ip - m->start + m->pgoff, &va)==0 ){
      const char *z = dso_symbol(d, va);
      if( z ) *pzSym = z;
    }
  }
}
