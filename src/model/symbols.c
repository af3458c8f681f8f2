/*
** symbols.c: the model of what an address is (readers/model_symbols.h).
**
** From format-neutral inputs (maps of processes over time, build ids of
** files, parents of processes, where the files and kallsyms are), it
** answers format-neutral questions: the file and the symbol of an address
** of a process at a time, and the rows of the symbols table. It knows no
** trace format.
**
** State, O(maps + files + symbols):
**   aMap     every map, sorted by (pid, start, order added) once the inputs
**            end; a question binary-searches the pid's maps
**   aFile    the mapped files (one per name), each with its ELF symbols
**            once read: sorted by address, names borrowed from the file's
**            mapping (kept open)
**   aKsym    kallsyms's text symbols, sorted by address, names NUL-ended in
**            place in the file's bytes (16 bytes a symbol: offsets of its
**            name and module, no size: each ends where the next starts)
** Files and kallsyms are read on first use under the trace's lock and
** published with release stores: later readers take them without the lock.
*/
#include "model_symbols.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libiberty/demangle.h>

#include "elf.h"
#include "map.h"
#include "source.h"
#include "str.h"

#define SYM_MAX_FILES     (1u<<16)    /* distinct mapped files */
#define SYM_MAX_SYMS      (1u<<22)    /* symbols loaded in all */
#define SYM_MAX_KALLSYMS  (256u<<20)  /* bytes of the kallsyms file read */
#define SYM_MAX_GENERATIONS 8         /* parents looked through */
#define SYM_MAX_NOTES     (64u<<10)   /* bytes of /sys/kernel/notes read */
#define SYM_HOST_NOTES    "/sys/kernel/notes"
#define SYM_HOST_KALLSYMS "/proc/kallsyms"
#define SYM_KERNEL_DSO    "[kernel.kallsyms]"
#define SYM_UNKNOWN       "[unknown]"
#define SYM_VDSO          "[vdso]"
#define SYM_DEBUG_DIR     "/usr/lib/debug" /* the global debug directory */

/* The file states (SymFile.eState, TlSymbols.eKallsyms). */
#define SYM_NOT_READ 0
#define SYM_READ     1
#define SYM_NONE     2                /* read, nothing usable */

typedef struct SymMap SymMap;
struct SymMap {
  int64_t pid;                    /* TL_SYMBOLS_EVERY_PID: every process */
  uint64_t start, len, pgoff;
  int64_t ts;                     /* when it was made, or TL_SYMBOLS_NO_TS */
  uint64_t iSeq;                  /* order added */
  uint32_t iFile;                 /* its file in aFile */
  uint8_t bVaddr;                 /* pgoff is the file's virtual address at start */
};

/* The ranks of symbols at one address (SymEntry.eRank), in their order. */
#define SYM_ALIAS  0                  /* another symbol at its address is perf's choice */
#define SYM_CHOSEN 1                  /* the one perf keeps at its address */
#define SYM_PLT    2                  /* a PLT stub, name@plt */

typedef struct SymEntry SymEntry;
struct SymEntry {
  uint64_t addr, size;            /* the ELF symbol's value and size */
  uint64_t end;                   /* where a lookup ends it, as perf does */
  const char *zName;              /* in the file's mapping, the kallsyms buffer, or owned */
  const char *zMod;               /* kallsyms: "[module]", or NULL for the kernel */
  uint32_t iOrder;                /* order read: ties keep it */
  uint8_t bFunc;                  /* FUNC (or label), else OBJECT */
  uint8_t bind;                   /* STB_LOCAL, STB_GLOBAL, STB_WEAK, ... */
  uint8_t eRank;                  /* SYM_ALIAS, SYM_CHOSEN, SYM_PLT */
  uint8_t bOwned;                 /* zName is allocated (demangled, name@plt) */
};

/* A mapped file and, once read, its symbols. */
typedef struct SymFile SymFile;
struct SymFile {
  char *zName;                    /* path as the trace names it */
  int eState;                     /* SYM_NOT_READ, SYM_READ, SYM_NONE: read
                                  ** without the lock, so set only once loaded */
  int eLoad;                      /* the state the load works out (under the lock) */
  TlSource *pSrc;
  TlElf elf;
  TlSource *pDbgSrc;              /* its separate debug file, when symbols come from one */
  TlElf dbg;
  SymEntry *aSym; size_t nSym;    /* sorted by addr */
  uint8_t aBuildId[20]; int nBuildId; /* from the trace, if any */
  char *zLink; uint32_t linkCrc;  /* the debug link the trace gave, if any */
  char *zPath;                    /* the file read for it, once open */
  char *zDbgPath;                 /* its separate debug file, if one was opened */
  int eWhy;                       /* TL_SYMFILE_*: why it is or is not open */
  int bJit;                       /* a JIT map, /tmp/perf-PID.map: absolute addresses */
  char *zJitBuf;                  /* its bytes, names NUL-ended in place */
};

/* A kallsyms symbol: where it starts, its name and module. */
typedef struct SymKsym SymKsym;
struct SymKsym {
  uint64_t addr;
  uint32_t iName;                 /* its name at this offset of the kallsyms buffer */
  uint32_t iMod;                  /* its "[module]" likewise, or 0 for the kernel */
};

/* A kallsyms file as read: its bytes and its text symbols. */
typedef struct SymKs SymKs;
struct SymKs {
  char *zBuf; size_t nBuf;        /* the file's bytes (tl_big_alloc, */
  size_t nBufAlloc;               /* of this size) */
  SymKsym *a; size_t n;           /* its text symbols, sorted by addr */
  size_t nAlloc;                  /* (tl_big_alloc of this many) */
};

/* kallsyms read ahead on a thread of its own (tl_symbols_kernel_prefetch) */
typedef struct SymKsPre SymKsPre;
struct SymKsPre {
  pthread_t th;
  char zPath[4096];               /* the file it reads */
  SymKs ks;
  int rc;                         /* 0 once read */
};

struct TlSymbols {
  SymMap *aMap; size_t nMap, nMapAlloc;
  int bMapCap;                    /* a map past TL_SYMBOLS_MAX_MAPS was dropped */
  SymFile *aFile; size_t nFile, nFileAlloc;
  TlMap fileByName;               /* name hash (open addressing) -> aFile index */
  TlMap parent;                   /* pid -> parent pid */
  size_t nSymTotal;               /* symbols loaded from every file */
  char *zSymfs;                   /* prefix of mapped paths ("" for none) */
  char *zBuildidDir;              /* the build-id cache, or NULL */
  char *zKallsyms;                /* the kallsyms file, or NULL: found as perf finds it */
  int eKallsyms;                  /* SYM_NOT_READ, SYM_READ, SYM_NONE */
  pthread_mutex_t ksMu;           /* held while kallsyms is read (not the trace's
                                  ** lock: files' loads go on meanwhile) */
  uint8_t aKernId[20]; int nKernId; /* the recorded kernel's build id, if any */
  char zKernRef[64];              /* the kernel's reference symbol ("" if none) */
  uint64_t kernRef;               /* its address when the trace was recorded */
  uint64_t ksDelta;               /* kallsyms's address of it minus kernRef */
  SymKs ks;                       /* kallsyms, once read */
  SymKsPre *pKsPre;               /* kallsyms being read ahead, or NULL */
};

/* ---- Inputs ---------------------------------------------------------- */

static int map_add(TlSymbols*, int64_t pid, int64_t ts, uint64_t start, uint64_t len,
                   uint64_t pgoff, int bVaddr, const char *zFile, size_t nFile);
static void ks_free(SymKs*);
static void ks_pre_end(TlSymbols*);

static char *dup_or_null(const char *z, int *pbOom){
  char *zCopy;
  if( z==0 ) return 0;
  zCopy = tl_strndup(z, strlen(z));
  if( zCopy==0 ) *pbOom = 1;
  return zCopy;
}

TlSymbols *tl_symbols_new(const char *zSymfs, const char *zBuildidDir, const char *zKallsyms){
  TlSymbols *p = calloc(1, sizeof(*p));
  char zDefault[4096];
  const char *zHome = getenv("HOME");
  int bOom = 0;
  if( p==0 ) return 0;
  pthread_mutex_init(&p->ksMu, 0);
  tl_map_init(&p->fileByName);
  tl_map_init(&p->parent);
  /* as perf: the cache is ~/.debug, or SYMFS/.debug under a symfs */
  if( zSymfs && zSymfs[0] && strcmp(zSymfs, "/") ) zHome = zSymfs;
  if( zBuildidDir==0 && zHome
   && (size_t)snprintf(zDefault, sizeof(zDefault), "%s/.debug", zHome) < sizeof(zDefault) ){
    zBuildidDir = zDefault;
  }
  p->zSymfs = dup_or_null(zSymfs ? zSymfs : "", &bOom);
  p->zBuildidDir = dup_or_null(zBuildidDir, &bOom);
  p->zKallsyms = dup_or_null(zKallsyms, &bOom);
  if( bOom ){
    tl_symbols_free(p);
    return 0;
  }
  return p;
}

void tl_symbols_free(TlSymbols *p){
  size_t i;
  if( p==0 ) return;
  for(i=0; i<p->nFile; i++){
    size_t j;
    for(j=0; j<p->aFile[i].nSym; j++){
      if( p->aFile[i].aSym[j].bOwned ) free((void*)(uintptr_t)p->aFile[i].aSym[j].zName);
    }
    free(p->aFile[i].zName);
    free(p->aFile[i].zPath);
    free(p->aFile[i].zDbgPath);
    free(p->aFile[i].zLink);
    free(p->aFile[i].zJitBuf);
    free(p->aFile[i].aSym);
    tl_elf_free(&p->aFile[i].elf);
    tl_elf_free(&p->aFile[i].dbg);
    tl_source_close(p->aFile[i].pSrc);
    tl_source_close(p->aFile[i].pDbgSrc);
  }
  free(p->aFile);
  free(p->aMap);
  ks_free(&p->ks);
  ks_pre_end(p);
  pthread_mutex_destroy(&p->ksMu);
  free(p->zSymfs);
  free(p->zBuildidDir);
  free(p->zKallsyms);
  tl_map_free(&p->fileByName);
  tl_map_free(&p->parent);
  free(p);
}

static uint64_t name_hash(const char *z, size_t n){
  uint64_t h = 1469598103934665603ull;
  size_t i;
  for(i=0; i<n; i++){ h ^= (uint8_t)z[i]; h *= 1099511628211ull; }
  return h;
}

/*
** Is z[0..n) a JIT map's name, "/tmp/perf-PID.map"? Such a file holds
** "START SIZE NAME" lines of absolute addresses (written by node
** --perf-basic-prof, the JVM's agents, .NET, Python's perf trampoline),
** as perf reads it for a process's anonymous executable memory.
*/
static int jit_name(const char *z, size_t n){
  size_t i;
  if( n<=sizeof("/tmp/perf-.map")-1 || memcmp(z, "/tmp/perf-", 10) || memcmp(z + n - 4, ".map", 4) ) return 0;
  for(i=10; i<n-4; i++) if( z[i]<'0' || z[i]>'9' ) return 0;
  return 1;
}

/* The index of the file named z[0..n), added if new; -1 on OOM or the cap. */
static int64_t file_get(TlSymbols *p, const char *z, size_t n){
  uint64_t h = name_hash(z, n);
  uint32_t i;
  SymFile *f;
  /* open addressing over the hash: probe h, h+1, ... */
  for(;; h++){
    if( !tl_map_get(&p->fileByName, h, &i) ) break;
    if( strlen(p->aFile[i].zName)==n && memcmp(p->aFile[i].zName, z, n)==0 ) return i;
  }
  if( p->nFile>=SYM_MAX_FILES ) return -1;
  if( p->nFile==p->nFileAlloc ){
    size_t nNew = p->nFileAlloc ? p->nFileAlloc*2 : 16;
    SymFile *aNew = realloc(p->aFile, nNew*sizeof(SymFile));
    if( aNew==0 ) return -1;
    p->aFile = aNew;
    p->nFileAlloc = nNew;
  }
  f = &p->aFile[p->nFile];
  memset(f, 0, sizeof(*f));
  f->bJit = jit_name(z, n);
  f->zName = tl_strndup(z, n);
  if( f->zName==0 || tl_map_put(&p->fileByName, h, (uint32_t)p->nFile) ){
    free(f->zName);
    return -1;
  }
  return (int64_t)p->nFile++;
}

int tl_symbols_add_build_id(TlSymbols *p, const char *zFile, size_t nFile,
                            const uint8_t *aId, size_t nId){
  int64_t iFile;
  if( nFile==sizeof(SYM_KERNEL_DSO)-1 && memcmp(zFile, SYM_KERNEL_DSO, nFile)==0 && nId>0 && nId<=20 ){
    memcpy(p->aKernId, aId, nId);
    p->nKernId = (int)nId;
    return TL_OK;
  }
  /* files by path, and the vdso (its image is in the build-id cache) */
  if( nFile==0 || nId==0 || nId>20 ) return TL_OK;
  if( zFile[0]!='/' && !(nFile==sizeof(SYM_VDSO)-1 && memcmp(zFile, SYM_VDSO, nFile)==0) ) return TL_OK;
  iFile = file_get(p, zFile, nFile);
  if( iFile<0 ) return TL_ENOMEM;
  memcpy(p->aFile[iFile].aBuildId, aId, nId);
  p->aFile[iFile].nBuildId = (int)nId;
  return TL_OK;
}

int tl_symbols_add_debug_link(TlSymbols *p, const char *zFile, size_t nFile,
                              const char *zLink, size_t nLink, uint32_t crc){
  int64_t iFile;
  SymFile *f;
  if( nFile==0 || zFile[0]!='/' || nLink==0 || memchr(zLink, 0, nLink) ) return TL_OK;
  iFile = file_get(p, zFile, nFile);
  if( iFile<0 ) return TL_ENOMEM;
  f = &p->aFile[iFile];
  free(f->zLink);
  f->zLink = tl_strndup(zLink, nLink);
  f->linkCrc = crc;
  return f->zLink ? TL_OK : TL_ENOMEM;
}

void tl_symbols_set_kernel_ref(TlSymbols *p, const char *zSym, size_t nSym, uint64_t addr){
  if( nSym==0 || nSym>=sizeof(p->zKernRef) ) return;
  memcpy(p->zKernRef, zSym, nSym);
  p->zKernRef[nSym] = 0;
  p->kernRef = addr;
}

int tl_symbols_add_parent(TlSymbols *p, int64_t pid, int64_t ppid){
  if( pid==ppid ) return TL_OK;
  return tl_map_put(&p->parent, (uint64_t)pid, (uint32_t)ppid) ? TL_ENOMEM : TL_OK;
}

int tl_symbols_add_map(TlSymbols *p, int64_t pid, int64_t ts, uint64_t start, uint64_t len,
                       uint64_t pgoff, const char *zFile, size_t nFile){
  return map_add(p, pid, ts, start, len, pgoff, 0, zFile, nFile);
}

int tl_symbols_add_map_vaddr(TlSymbols *p, int64_t pid, int64_t ts, uint64_t start, uint64_t len,
                             uint64_t vaddr, const char *zFile, size_t nFile){
  return map_add(p, pid, ts, start, len, vaddr, 1, zFile, nFile);
}

static int map_add(TlSymbols *p, int64_t pid, int64_t ts, uint64_t start, uint64_t len,
                   uint64_t pgoff, int bVaddr, const char *zFile, size_t nFile){
  int64_t iFile;
  SymMap *m;
  if( p->nMap>=TL_SYMBOLS_MAX_MAPS ){
    if( p->bMapCap ) return TL_OK;
    p->bMapCap = 1;
    return TL_DONE;
  }
  iFile = file_get(p, zFile, nFile);
  if( iFile<0 ) return TL_ENOMEM;
  if( p->nMap==p->nMapAlloc ){
    size_t nNew = p->nMapAlloc ? p->nMapAlloc*2 : 64;
    SymMap *aNew = realloc(p->aMap, nNew*sizeof(SymMap));
    if( aNew==0 ) return TL_ENOMEM;
    p->aMap = aNew;
    p->nMapAlloc = nNew;
  }
  m = &p->aMap[p->nMap++];
  m->pid = pid;
  m->start = start;
  m->len = len;
  m->pgoff = pgoff;
  m->ts = ts;
  m->iSeq = p->nMap;
  m->iFile = (uint32_t)iFile;
  m->bVaddr = (uint8_t)bVaddr;
  return TL_OK;
}

static int cmp_map(const void *a, const void *b){
  const SymMap *x = a, *y = b;
  if( x->pid!=y->pid ) return x->pid < y->pid ? -1 : 1;
  if( x->start!=y->start ) return x->start < y->start ? -1 : 1;
  return x->iSeq < y->iSeq ? -1 : x->iSeq > y->iSeq;
}

void tl_symbols_finish(TlSymbols *p){
  if( p->nMap>1 ) qsort(p->aMap, p->nMap, sizeof(SymMap), cmp_map);
}

/* ---- ELF files ------------------------------------------------------- */

/* By address, then rank (perf's choice after its aliases), then order read. */
static int cmp_sym(const void *a, const void *b){
  const SymEntry *x = a, *y = b;
  if( x->addr!=y->addr ) return x->addr < y->addr ? -1 : 1;
  if( x->eRank!=y->eRank ) return x->eRank < y->eRank ? -1 : 1;
  return x->iOrder < y->iOrder ? -1 : x->iOrder > y->iOrder;
}

/* Read file zPath and parse it as ELF into *pElf; 0 on success. */
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
  /* its headers, symbols and segments (mapped whole only with mmap=on),
  ** once it is known to be ELF */
  rc = tl_win_read(&w, 0, 4, TL_LE, &all, &err) || all.n<4 || memcmp(all.a, "\177ELF", 4);
  if( rc==0 && tl_trace_mmap(pTrace) ) (void)tl_source_map(*ppSrc);
  rc = rc || tl_elf_load(*ppSrc, TL_WIN_MAX, &err)
    || tl_win_get(&w, 0, (size_t)(*ppSrc)->nSize, TL_LE, &all, &err)
    || tl_elf_parse(pElf, all.a, all.n, zName, &err);
  tl_win_free(&w);                 /* the bytes stay with the source */
  if( rc && err.rc && err.rc!=TL_EMISUSE ){
    tl_trace_warn(pTrace, zName, err.iOff, "symbols not read: %s", err.zMsg);
  }
  return rc ? -1 : 0;
}

/*
** The GNU build id (type 3, name "GNU") among the ELF notes of b (each:
** namesz, descsz, type, then name and desc, each padded to 4 bytes) as hex
** into z (of nz bytes); 0 if found.
*/
static int notes_build_id(TlBytes b, char *z, size_t nz){
  uint32_t namesz, descsz, type, i;
  const uint8_t *aName, *aDesc;
  while( tl_bytes_u32e(&b, &namesz)==0 && tl_bytes_u32e(&b, &descsz)==0 && tl_bytes_u32e(&b, &type)==0 ){
    if( namesz>256 || descsz>4096 || tl_bytes_ptr(&b, namesz, &aName)
     || tl_bytes_skip(&b, (4 - namesz%4) % 4) || tl_bytes_ptr(&b, descsz, &aDesc) ) return -1;
    if( type==3 && namesz==4 && memcmp(aName, "GNU", 4)==0 ){
      if( descsz==0 || descsz>64 || 2*(size_t)descsz+1>nz ) return -1;
      for(i=0; i<descsz; i++) snprintf(z + 2*i, 3, "%02x", aDesc[i]);
      return 0;
    }
    if( tl_bytes_skip(&b, (4 - descsz%4) % 4) ) return -1;
  }
  return -1;
}

/* The GNU build id of e as hex into z (at least 41+ bytes); 0 if found. */
static int elf_build_id(const TlElf *e, char *z, size_t nz){
  uint32_t k = tl_elf_find_sec(e, ".note.gnu.build-id");
  if( k!=UINT32_MAX ) return notes_build_id(tl_elf_sec(e, k), z, nz);
  /* else any note section (the vdso's is ".note", with Linux's notes) */
  for(k=0; k<e->nSec; k++){
    if( e->aSec[k].type==7 && notes_build_id(tl_elf_sec(e, k), z, nz)==0 ) return 0;   /* SHT_NOTE */
  }
  return -1;
}

/* The first symbol table section of e (.symtab, else .dynsym when bDyn). */
static uint32_t elf_symtab(const TlElf *e, int bDyn){
  uint32_t k;
  for(k=0; k<e->nSec; k++) if( e->aSec[k].type==TL_ELF_SHT_SYMTAB ) return k;
  for(k=0; bDyn && k<e->nSec; k++) if( e->aSec[k].type==TL_ELF_SHT_DYNSYM ) return k;
  return UINT32_MAX;
}

/* Close what file_open opened for f. */
static void file_close(SymFile *f){
  tl_elf_free(&f->elf);
  memset(&f->elf, 0, sizeof(f->elf));
  tl_source_close(f->pSrc);
  f->pSrc = 0;
}

/* f is open from zPath: keep the path (the unwinder opens it again). */
static int file_opened(SymFile *f, const char *zPath){
  f->zPath = tl_strndup(zPath, strlen(zPath));
  f->eWhy = TL_SYMFILE_OPEN;
  return 0;
}

/*
** Open the ELF file of f, as perf finds it: with the build id the trace
** recorded, the build-id cache first (.build-id/xx/rest/elf, or
** .build-id/xx/rest in perf's older layout), then the file at its path
** (under symfs), used only if its own build id is that one. 0 when f->elf
** is open.
*/
static int file_open(TlSymbols *p, TlTrace *pTrace, SymFile *f){
  char zPath[4096], zWant[64], zHave[160];
  int i;
  if( f->nBuildId ){
    for(i=0; i<f->nBuildId; i++) snprintf(zWant + 2*i, 3, "%02x", f->aBuildId[i]);
    for(i=0; p->zBuildidDir && i<3; i++){
      /* .build-id/xx/rest/elf, .build-id/xx/rest (older perf), and the
      ** vdso's image perf record keeps as [vdso]/ID/vdso */
      int nz = i<2 ? snprintf(zPath, sizeof(zPath), "%s/.build-id/%.2s/%s%s", p->zBuildidDir, zWant,
                              zWant+2, i==0 ? "/elf" : "")
                   : snprintf(zPath, sizeof(zPath), "%s/" SYM_VDSO "/%s/vdso", p->zBuildidDir, zWant);
      if( (size_t)nz >= sizeof(zPath) ) continue;
      if( elf_open(zPath, f->zName, &f->pSrc, &f->elf, pTrace)==0 ){
        if( elf_build_id(&f->elf, zHave, sizeof(zHave))==0 && strcmp(zHave, zWant)==0 ){
          return file_opened(f, zPath);
        }
        file_close(f);
      }
    }
  }
  f->eWhy = TL_SYMFILE_MISSING;
  if( f->zName[0]!='/' ){ f->eWhy = TL_SYMFILE_NOT_FILE; return -1; }   /* the vdso: only from the cache */
  if( (size_t)snprintf(zPath, sizeof(zPath), "%s%s", p->zSymfs, f->zName) >= sizeof(zPath) ) return -1;
  if( elf_open(zPath, f->zName, &f->pSrc, &f->elf, pTrace) ) return -1;
  if( f->nBuildId && elf_build_id(&f->elf, zHave, sizeof(zHave))==0 && strcmp(zHave, zWant)!=0 ){
    tl_trace_warn(pTrace, f->zName, TL_NO_OFFSET,
                  "%s has build id %s, the trace's is %s: its symbols are not used", zPath, zHave, zWant);
    file_close(f);
    f->eWhy = TL_SYMFILE_BUILD_ID;
    return -1;
  }
  return file_opened(f, zPath);
}

/*
** The GNU debuglink CRC-32 (poly 0xEDB88320, as zlib's crc32) of the whole
** file pSrc, read from the file in windows (its loaded copy leaves DWARF
** sections out) into *pCrc; 0 if read.
*/
static int debuglink_crc(const TlSource *pSrc, uint32_t *pCrc){
  uint32_t aTab[256], c = 0xFFFFFFFFu, k;
  uint64_t iOff = 0;
  TlWin w;
  TlErr err;
  int rc = 0;
  for(k=0; k<256; k++){
    uint32_t v = k;
    int j;
    for(j=0; j<8; j++) v = (v & 1) ? 0xEDB88320u ^ (v >> 1) : v >> 1;
    aTab[k] = v;
  }
  tl_err_clear(&err);
  tl_win_init(&w, pSrc);
  while( rc==0 && iOff<pSrc->nSize ){
    TlBytes b;
    size_t i;
    rc = tl_win_read(&w, iOff, 1u<<20, TL_LE, &b, &err) || b.n==0;
    for(i=0; rc==0 && i<b.n; i++) c = aTab[(c ^ b.a[i]) & 0xFF] ^ (c >> 8);
    iOff += b.n;
  }
  tl_win_free(&w);
  *pCrc = c ^ 0xFFFFFFFFu;
  return rc;
}

/*
** The debug link of f: the trace's, else its .gnu_debuglink section (the
** NUL-ended name, padding to 4 bytes, the CRC-32 in the file's byte
** order). The name into z (nz bytes); 0 if f has one.
*/
static int file_debuglink(const SymFile *f, char *z, size_t nz, uint32_t *pCrc){
  TlBytes b;
  const uint8_t *aEnd;
  size_t n;
  uint32_t k;
  if( f->zLink ){
    if( strlen(f->zLink)>=nz ) return -1;
    memcpy(z, f->zLink, strlen(f->zLink)+1);
    *pCrc = f->linkCrc;
    return 0;
  }
  k = tl_elf_find_sec(&f->elf, ".gnu_debuglink");
  if( k==UINT32_MAX ) return -1;
  b = tl_elf_sec(&f->elf, k);
  aEnd = b.n ? memchr(b.a, 0, b.n) : 0;
  if( aEnd==0 || (n = (size_t)(aEnd - b.a))==0 || n>=nz ) return -1;
  memcpy(z, b.a, n+1);
  return tl_bytes_skip(&b, (n + 4) & ~(size_t)3) || tl_bytes_u32e(&b, pCrc) ? -1 : 0;
}

/* Open zPath as f's debug file; 0 if done. Its CRC-32 must be crc when bCrc. */
static int debug_open(SymFile *f, TlTrace *pTrace, const char *zPath, int bCrc, uint32_t crc){
  int bBad;
  uint32_t fileCrc = 0;
  if( elf_open(zPath, f->zName, &f->pDbgSrc, &f->dbg, pTrace) ) return -1;
  bBad = bCrc && (debuglink_crc(f->pDbgSrc, &fileCrc) || fileCrc!=crc);
  if( bBad ){
    tl_trace_warn(pTrace, f->zName, TL_NO_OFFSET,
                  "%s is not its debug file: its CRC-32 is not the debug link's (%08x)", zPath, crc);
  }
  if( bBad || (f->zDbgPath = tl_strndup(zPath, strlen(zPath)))==0 ){
    tl_elf_free(&f->dbg);
    memset(&f->dbg, 0, sizeof(f->dbg));
    tl_source_close(f->pDbgSrc);
    f->pDbgSrc = 0;
    return -1;
  }
  return 0;
}

/*
** Open f's separate debug file into f->dbg (model_symbols.h,
** TlMapAt.zDebugPath: by build id under symfs, else by debug link in the
** file's directory, its .debug/ and the global debug directory); 0 if found.
*/
static int file_debug(TlSymbols *p, TlTrace *pTrace, SymFile *f){
  char zPath[4096], zId[160], zLink[1024];
  const char *zSlash;
  uint32_t crc;
  int i;
  if( elf_build_id(&f->elf, zId, sizeof(zId))==0
   && (size_t)snprintf(zPath, sizeof(zPath), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
                       p->zSymfs, zId, zId+2) < sizeof(zPath)
   && debug_open(f, pTrace, zPath, 0, 0)==0 ) return 0;
  if( file_debuglink(f, zLink, sizeof(zLink), &crc) ) return -1;
  zSlash = strrchr(f->zName, '/');
  for(i=0; zSlash && i<3; i++){
    /* DIR is symfs and the file's directory, as both tools join them */
    int nDir = (int)(zSlash - f->zName);
    const char *zSep = i==2 && p->zSymfs[0] && p->zSymfs[0]!='/' ? "/" : "";
    int nz = snprintf(zPath, sizeof(zPath), "%s%s%s%.*s/%s%s", i==2 ? SYM_DEBUG_DIR : "", zSep,
                      p->zSymfs, nDir, f->zName, i==1 ? ".debug/" : "", zLink);
    if( (size_t)nz < sizeof(zPath) && debug_open(f, pTrace, zPath, 1, crc)==0 ) return 0;
  }
  return -1;
}

/*
** The symbol table to read for f: .symtab of the file, else of its
** separate debug file, else .dynsym of the file. The debug file is looked
** for when the file has no .symtab or no DWARF (.debug_info): its lines
** then come from it. Sets *ppTab to the ELF holding it; UINT32_MAX if none.
*/
static uint32_t file_symtab(TlSymbols *p, TlTrace *pTrace, SymFile *f, const TlElf **ppTab){
  uint32_t iTab = elf_symtab(&f->elf, 0);
  *ppTab = &f->elf;
  if( (iTab==UINT32_MAX || tl_elf_find_sec(&f->elf, ".debug_info")==UINT32_MAX)
   && file_debug(p, pTrace, f)==0 && iTab==UINT32_MAX ){
    iTab = elf_symtab(&f->dbg, 0);
    if( iTab!=UINT32_MAX ){
      *ppTab = &f->dbg;
      return iTab;
    }
  }
  return iTab!=UINT32_MAX ? iTab : elf_symtab(&f->elf, 1);
}

/*
** A symbol's name as perf prints it: demangled as perf 6.1 does without
** -v (libiberty's cplus_demangle, no options: C++ names without their
** parameter list, Rust; else OCaml's "camlModule__name" as Module.name).
** A new string, or NULL when the name stays as it is.
*/
static char *sym_demangle(const char *zName){
  char *z = cplus_demangle(zName, DMGL_NO_OPTS);
  size_t i, j, n;
  if( z || strncmp(zName, "caml", 4) || !isupper((unsigned char)zName[4]) ) return z;
  n = strlen(zName);
  z = malloc(n + 1);
  if( z==0 ) return 0;
  for(i=4, j=0; i<n; ){
    if( zName[i]=='_' && zName[i+1]=='_' ){ z[j++] = '.'; i += 2; }
    else if( zName[i]=='$' && isxdigit((unsigned char)zName[i+1]) && isxdigit((unsigned char)zName[i+2]) ){
      char zHex[3] = { zName[i+1], zName[i+2], 0 };
      z[j++] = (char)strtol(zHex, 0, 16);
      i += 3;
    }else z[j++] = zName[i++];
  }
  z[j] = 0;
  return z;
}

/* Room for one more symbol in f (nAlloc: its capacity); NULL on OOM or the cap. */
static SymEntry *sym_append(TlSymbols *p, TlTrace *pTrace, SymFile *f, size_t *pnAlloc){
  SymEntry *y;
  if( p->nSymTotal>=SYM_MAX_SYMS ){
    tl_trace_warn(pTrace, f->zName, TL_NO_OFFSET,
                  "more than %u symbols in all: the rest of this file's are not read", SYM_MAX_SYMS);
    return 0;
  }
  if( f->nSym==*pnAlloc ){
    size_t nNew = *pnAlloc ? *pnAlloc*2 : 256;
    SymEntry *aNew = realloc(f->aSym, nNew*sizeof(SymEntry));
    if( aNew==0 ) return 0;
    f->aSym = aNew;
    *pnAlloc = nNew;
  }
  y = &f->aSym[f->nSym];
  memset(y, 0, sizeof(*y));
  y->iOrder = (uint32_t)f->nSym++;
  p->nSymTotal++;
  return y;
}

/* Symbol table iTab of pTab into f's symbols; 0, or -1 at the cap or OOM. */
static int file_read_symtab(TlSymbols *p, TlTrace *pTrace, SymFile *f, const TlElf *pTab,
                            uint32_t iTab, size_t *pnAlloc){
  TlBytes b = iTab!=UINT32_MAX ? tl_elf_sec(pTab, iTab) : tl_bytes(0, 0, TL_LE);
  TlElfSym s;
  while( tl_elf_sym_next(pTab, &b, &s)==0 ){
    int t = s.info & 15;
    const char *zName;
    char *zDemangled;
    SymEntry *y;
    /* functions (and GNU indirect ones), objects, and labels (NOTYPE
    ** symbols of a section, as perf takes them), not absolute ones */
    if( (t!=TL_ELF_STT_FUNC && t!=TL_ELF_STT_OBJECT && t!=0 && t!=10)
     || s.value==0 || s.shndx==0 || s.shndx==0xfff1 ) continue;
    zName = tl_elf_str(pTab, pTab->aSec[iTab].link, s.nameOff);
    if( zName==0 || zName[0]==0 ) continue;
    if( (y = sym_append(p, pTrace, f, pnAlloc))==0 ) return -1;
    zDemangled = sym_demangle(zName);
    y->addr = s.value;
    y->size = s.size;
    y->zName = zDemangled ? zDemangled : zName;
    y->bOwned = zDemangled!=0;
    y->bFunc = t!=TL_ELF_STT_OBJECT;
    y->bind = (uint8_t)(s.info >> 4);
  }
  return 0;
}

static size_t underscores(const char *z){
  size_t n = 0;
  while( z[n]=='_' ) n++;
  return n;
}

/*
** Is b perf's choice over a, two symbols at one address (a read first)?
** As perf's choose_best_symbol: one with a length, then not weak, then
** global, then fewer leading underscores, then the longer name, else a.
*/
static int sym_better(const SymEntry *a, const SymEntry *b){
  size_t na, nb;
  if( (a->end==a->addr) != (b->end==b->addr) ) return a->end==a->addr;
  if( (a->bind==TL_ELF_STB_WEAK) != (b->bind==TL_ELF_STB_WEAK) ) return a->bind==TL_ELF_STB_WEAK;
  if( (a->bind==TL_ELF_STB_GLOBAL) != (b->bind==TL_ELF_STB_GLOBAL) ) return b->bind==TL_ELF_STB_GLOBAL;
  na = underscores(a->zName);
  nb = underscores(b->zName);
  if( na!=nb ) return nb < na;
  return strlen(b->zName) > strlen(a->zName);
}

/*
** The symbols of f as perf keeps them (symbols__fixup_end, then
** symbols__fixup_duplicate): in address order, a symbol without a size
** ends where the next one starts (the last one at the page after its
** own), and of the symbols at one address one is chosen; the others stay
** in the symbols table, ranked before it, and no lookup returns them.
*/
static void file_fixup(SymFile *f){
  size_t i, iBest;
  for(i=0; i<f->nSym; i++) f->aSym[i].eRank = SYM_CHOSEN;
  if( f->nSym>1 ) qsort(f->aSym, f->nSym, sizeof(SymEntry), cmp_sym);
  for(i=0; i<f->nSym; i++){
    SymEntry *y = &f->aSym[i];
    y->end = y->addr + y->size;
    if( y->size==0 ) y->end = i+1<f->nSym ? f->aSym[i+1].addr : ((y->addr + 4095) & ~(uint64_t)4095) + 4096;
  }
  for(i=0; i<f->nSym; i=iBest+1){
    iBest = i;
    while( iBest+1<f->nSym && f->aSym[iBest+1].addr==f->aSym[i].addr ){
      size_t iNext = iBest+1;
      if( sym_better(&f->aSym[iBest], &f->aSym[iNext]) ){
        f->aSym[iBest].eRank = SYM_ALIAS;
        iBest = iNext;
      }else{                                       /* keep it: next to the rest of the group */
        SymEntry t = f->aSym[iNext];
        t.eRank = SYM_ALIAS;
        f->aSym[iNext] = f->aSym[iBest];
        f->aSym[iBest] = t;
        iBest = iNext;
      }
    }
  }
}

/*
** The PLT stubs of f, named as perf 6.1 names them
** (dso__synthesize_plt_symbols): the stub of the i-th .rela.plt (.rel.plt)
** relocation is the i-th after .plt's header, "NAME@plt" with NAME its
** dynamic symbol's (demangled). 0, or -1 at the cap or OOM.
*/
static int file_add_plt(TlSymbols *p, TlTrace *pTrace, SymFile *f, size_t *pnAlloc){
  TlElfPlt plt;
  uint32_t iSym, iStr;
  uint64_t addr;
  if( tl_elf_plt(&f->elf, &plt) ) return 0;
  iStr = f->elf.aSec[plt.iDynsym].link;
  for(addr = plt.addr + plt.hdrsize; tl_elf_plt_next(&f->elf, &plt, &iSym)==0; addr += plt.entsize){
    TlElfSym s;
    const char *zName = 0;
    char *zDemangled, *zPlt;
    size_t n;
    SymEntry *y;
    if( tl_elf_sym_at(&f->elf, plt.iDynsym, iSym, &s)==0 ) zName = tl_elf_str(&f->elf, iStr, s.nameOff);
    if( zName==0 ) zName = "";
    zDemangled = sym_demangle(zName);
    if( zDemangled ) zName = zDemangled;
    n = strlen(zName) + sizeof("@plt");
    zPlt = malloc(n);
    if( zPlt ) snprintf(zPlt, n, "%s@plt", zName);
    free(zDemangled);
    if( zPlt==0 || (y = sym_append(p, pTrace, f, pnAlloc))==0 ){
      free(zPlt);
      return -1;
    }
    y->addr = addr;
    y->size = plt.entsize;
    y->end = addr + plt.entsize;
    y->zName = zPlt;
    y->bOwned = 1;
    y->bFunc = 1;
    y->bind = TL_ELF_STB_GLOBAL;
    y->eRank = SYM_PLT;
  }
  return 0;
}

/* ---- JIT maps -------------------------------------------------------- */

static const SymEntry *file_symbol(const SymFile*, uint64_t);

/* A hex number at z[*pi..n) (perf's hex2u64: strtoull base 16, "0x" allowed); 0 if one. */
static int jit_hex(const char *z, size_t n, size_t *pi, uint64_t *pv){
  size_t i = *pi, nDigit = 0;
  uint64_t v = 0;
  if( n-i>=2 && z[i]=='0' && (z[i+1]=='x' || z[i+1]=='X') ) i += 2;
  for(; i<n; i++, nDigit++){
    int d = z[i]>='0'&&z[i]<='9' ? z[i]-'0' : z[i]>='a'&&z[i]<='f' ? z[i]-'a'+10 : z[i]>='A'&&z[i]<='F' ? z[i]-'A'+10 : -1;
    if( d<0 ) break;
    if( nDigit>=16 ) return -1;
    v = (v<<4) | (uint64_t)d;
  }
  if( nDigit==0 ) return -1;
  *pi = i;
  *pv = v;
  return 0;
}

int tl_symbols_jit_line(const char *z, size_t n, uint64_t *pStart, uint64_t *pSize, size_t *piName){
  size_t i = 0;
  /* as perf: one separator after each number, and a name of 3 bytes or
  ** more (dso__load_perf_map skips a line with less left) */
  if( jit_hex(z, n, &i, pStart) || i>=n || (z[i]!=' ' && z[i]!='\t') ) return -1;
  i++;
  if( jit_hex(z, n, &i, pSize) || i>=n || (z[i]!=' ' && z[i]!='\t') ) return -1;
  i++;
  if( n-i<3 ) return -1;
  *piName = i;
  return 0;
}

/*
** The symbols of JIT map z[0..n) (NUL after it) into f, names NUL-ended
** in place; at most nMax. Malformed lines are counted in *pnBad, the
** first one's number in *piBad; empty lines are skipped. 0, or -1 on OOM.
** As perf's dso__load_perf_map: each line a function of that start and
** size, not demangled; where a later line covers an earlier one's start
** (code moved, memory reused), the later one is found.
*/
static int jit_parse(SymFile *f, char *z, size_t n, size_t nMax, size_t *pnBad, size_t *piBad){
  size_t nAlloc = 0, iLine = 0, i;
  char *zEnd = z + n;
  *pnBad = 0;
  *piBad = 0;
  while( z<zEnd ){
    char *zNl = memchr(z, '\n', (size_t)(zEnd - z));
    char *zLineEnd = zNl ? zNl : zEnd;
    size_t nLine = (size_t)(zLineEnd - z), iName;
    uint64_t start, size;
    iLine++;
    if( nLine && z[nLine-1]=='\r' ) nLine--;
    if( nLine==0 ){ z = zLineEnd + 1; continue; }
    if( tl_symbols_jit_line(z, nLine, &start, &size, &iName) || memchr(z, 0, nLine) ){
      if( (*pnBad)++==0 ) *piBad = iLine;
    }else if( f->nSym<nMax ){
      SymEntry *y;
      if( f->nSym==nAlloc ){
        size_t nNew = nAlloc ? nAlloc*2 : 256;
        SymEntry *aNew = realloc(f->aSym, nNew*sizeof(SymEntry));
        if( aNew==0 ) return -1;
        f->aSym = aNew;
        nAlloc = nNew;
      }
      y = &f->aSym[f->nSym];
      memset(y, 0, sizeof(*y));
      y->iOrder = (uint32_t)f->nSym++;
      y->addr = start;
      y->size = size;
      y->end = start + (size ? size : 1);         /* size 0: its own address only, as perf */
      if( y->end < start ) y->end = UINT64_MAX;
      z[nLine] = 0;                               /* at worst the NUL after the bytes */
      y->zName = z + iName;
      y->bFunc = 1;
      y->bind = TL_ELF_STB_GLOBAL;
      y->eRank = SYM_CHOSEN;
    }
    z = zLineEnd + 1;
  }
  /* by address, then the order read: a lookup takes the last one at or below */
  if( f->nSym>1 ) qsort(f->aSym, f->nSym, sizeof(SymEntry), cmp_sym);
  for(i=0; i+1<f->nSym; i++){
    if( f->aSym[i].addr==f->aSym[i+1].addr ) f->aSym[i].eRank = SYM_ALIAS;
  }
  return 0;
}

/*
** Read JIT map f: the file at its name under symfs, as perf reads the map
** of a process's anonymous executable memory. Malformed lines are skipped,
** counted in one warning.
*/
static void jit_load(TlSymbols *p, TlTrace *pTrace, SymFile *f){
  char zPath[4096];
  size_t n, nBad, iBad;
  TlErr err;
  tl_err_clear(&err);
  if( (size_t)snprintf(zPath, sizeof(zPath), "%s%s", p->zSymfs, f->zName) >= sizeof(zPath)
   || tl_file_read(zPath, SYM_MAX_KALLSYMS, &f->zJitBuf, &n, &err) ) return;
  if( n==SYM_MAX_KALLSYMS ){
    tl_trace_warn(pTrace, f->zName, TL_NO_OFFSET, "JIT map larger than %u MiB: the rest is not read",
                  SYM_MAX_KALLSYMS>>20);
  }
  if( jit_parse(f, f->zJitBuf, n, SYM_MAX_SYMS - p->nSymTotal, &nBad, &iBad) ) return;
  p->nSymTotal += f->nSym;
  if( nBad ){
    tl_trace_warn(pTrace, f->zName, TL_NO_OFFSET, "%zu malformed JIT map lines skipped (the first: line %zu; "
                  "expected \"START SIZE NAME\", START and SIZE in hex)", nBad, iBad);
  }
  f->eLoad = SYM_READ;
}

int tl_symbols_jit_check(const char *z, size_t n, size_t *pnSym, size_t *pnBad){
  SymFile f;
  char *zCopy = malloc(n + 1);
  size_t i, iBad;
  int rc = TL_OK;
  if( zCopy==0 ) return TL_ENOMEM;
  memcpy(zCopy, z, n);
  zCopy[n] = 0;
  memset(&f, 0, sizeof(f));
  if( jit_parse(&f, zCopy, n, SYM_MAX_SYMS, pnBad, &iBad) ) rc = TL_ENOMEM;
  *pnSym = f.nSym;
  for(i=0; rc==TL_OK && i<f.nSym; i++){           /* every start finds a symbol at it */
    const SymEntry *s = f.aSym[i].addr==UINT64_MAX ? &f.aSym[i] : file_symbol(&f, f.aSym[i].addr);
    if( s==0 || s->addr!=f.aSym[i].addr || strlen(s->zName)==0 ) rc = TL_ECORRUPT;
  }
  free(f.aSym);
  free(zCopy);
  return rc;
}

/* Read the symbols of f (once; the caller holds the trace lock). */
static void file_load(TlSymbols *p, TlTrace *pTrace, SymFile *f){
  const TlElf *pTab;
  uint32_t iTab;
  size_t nAlloc = 0;
  f->eLoad = SYM_NONE;
  f->eWhy = TL_SYMFILE_NOT_FILE;
  if( f->bJit ){
    jit_load(p, pTrace, f);
    return;
  }
  if( f->zName[0]!='/' && !(f->nBuildId && strcmp(f->zName, SYM_VDSO)==0) ) return;   /* //anon, [heap], ... */
  if( file_open(p, pTrace, f) ) return;
  iTab = file_symtab(p, pTrace, f, &pTab);
  /* as perf: the symbol table's symbols, their ends and choices among
  ** aliases, then the PLT stubs of the file itself */
  if( file_read_symtab(p, pTrace, f, pTab, iTab, &nAlloc)==0 ){
    file_fixup(f);
    (void)file_add_plt(p, pTrace, f, &nAlloc);     /* at the cap: the stubs so far */
  }else{
    file_fixup(f);
  }
  if( f->nSym>1 ) qsort(f->aSym, f->nSym, sizeof(SymEntry), cmp_sym);
  f->eLoad = SYM_READ;
}

/* Are the symbols of file iFile read (reading them on first use)? */
static int file_ready(TlSymbols *p, TlTrace *pTrace, size_t iFile){
  SymFile *f = &p->aFile[iFile];
  int eState = __atomic_load_n(&f->eState, __ATOMIC_ACQUIRE);
  if( eState==SYM_NOT_READ ){
    tl_trace_lock(pTrace);
    if( f->eState==SYM_NOT_READ ){
      file_load(p, pTrace, f);
      __atomic_store_n(&f->eState, f->eLoad, __ATOMIC_RELEASE);
    }
    eState = f->eState;
    tl_trace_unlock(pTrace);
  }
  return eState==SYM_READ;
}

/*
** The symbol of f holding virtual address a, or NULL: the last one
** starting at or below a (at an address with aliases, perf's choice,
** ranked last), if a is before its end.
*/
static const SymEntry *file_symbol(const SymFile *f, uint64_t a){
  size_t lo = 0, hi = f->nSym;
  while( lo<hi ){
    size_t mid = lo + (hi-lo)/2;
    if( f->aSym[mid].addr<=a ) lo = mid+1; else hi = mid;
  }
  if( lo>0 && a < f->aSym[lo-1].end ) return &f->aSym[lo-1];
  return 0;
}

/* ---- kallsyms -------------------------------------------------------- */

/*
** One line z[0..zLineEnd) of kallsyms ("address type name [module]"): a
** text symbol (types t, T, w, W: the ones perf keeps) into *pOut, its name
** and module NUL-terminated in place, as offsets from zBuf (zEnd: the end
** of the buffer, which has a NUL after it). 0 when the line is such a
** symbol.
*/
static int kallsyms_line(char *zBuf, char *z, char *zLineEnd, char *zEnd, SymKsym *pOut){
  char *q = z, *zName, *zMod = 0, *y;
  uint64_t a = 0;
  int nHex = 0;
  char t;
  while( q<zLineEnd && nHex<17 ){
    unsigned v = (unsigned)(uint8_t)*q - '0';
    if( v>9 ){
      v = ((unsigned)(uint8_t)*q | 0x20) - 'a';
      if( v>5 ) break;
      v += 10;
    }
    a = (a<<4) | v; nHex++; q++;
  }
  if( nHex==0 || nHex>16 || zLineEnd - q < 4 || q[0]!=' ' || q[2]!=' '
   || ((t = q[1])!='t' && t!='T' && t!='w' && t!='W') || a==0 ) return -1;
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
  *y = 0;                                         /* at worst the NUL after the bytes */
  if( y==zName ) return -1;
  pOut->addr = a;
  pOut->iName = (uint32_t)(zName - zBuf);
  pOut->iMod = zMod ? (uint32_t)(zMod - zBuf) : 0;
  return 0;
}

/* kallsyms's symbols by address, then in the file's order (a stable sort). */
static int cmp_ksym(const void *a, const void *b){
  const SymKsym *x = a, *y = b;
  if( x->addr!=y->addr ) return x->addr < y->addr ? -1 : 1;
  return x->iName < y->iName ? -1 : x->iName > y->iName;
}

/*
** The build id of the running kernel (its notes, in its own byte order:
** a first namesz too big for a note is the other order) as hex into z;
** 0 if known.
*/
static int host_kernel_id(char *z, size_t nz){
  char *zNotes;
  size_t n;
  TlErr err;
  int rc;
  uint32_t namesz;
  TlBytes b;
  tl_err_clear(&err);
  if( tl_file_read(SYM_HOST_NOTES, SYM_MAX_NOTES, &zNotes, &n, &err) ) return -1;
  b = tl_bytes((const uint8_t*)zNotes, n, TL_LE);
  if( tl_bytes_u32e(&b, &namesz)==0 && namesz>0xffff ) b = tl_bytes((const uint8_t*)zNotes, n, TL_BE);
  else b = tl_bytes((const uint8_t*)zNotes, n, TL_LE);
  rc = notes_build_id(b, z, nz);
  free(zNotes);
  return rc;
}

/*
** The kallsyms file to read when kallsyms= names none, from the places
** perf 6.1 looks (dso__load_kernel_sym, dso__find_kallsyms; tracelite
** reads no vmlinux or kcore): none under a symfs; /proc/kallsyms when the
** trace recorded no kernel build id; else the copy perf record keeps in
** the build-id cache, BUILDID_DIR/[kernel.kallsyms]/<build id>/kallsyms,
** or /proc/kallsyms when the running kernel's (/sys/kernel/notes) is the
** recorded one. Where perf reads /proc/kallsyms when both would do, the
** copy is read: the same kernel's symbols, as they were when the trace was
** recorded, a regular file where /proc/kallsyms has the kernel format each
** line (some 30 ms for 120,000 symbols). *pbHost is set when /proc/kallsyms
** would do too (a copy made without the right to see addresses has
** none). The path into zPath and 0, or -1 after a warning saying which
** option names kernel frames (none when pTrace is NULL).
*/
static int kallsyms_find(const TlSymbols *p, TlTrace *pTrace, char *zPath, size_t nPath, int *pbHost){
  char zWant[64], zHost[160];
  struct stat st;
  int i, bHost;
  *pbHost = 0;
  if( p->zSymfs[0] && strcmp(p->zSymfs, "/") ){
    if( pTrace ){
      tl_trace_warn(pTrace, 0, TL_NO_OFFSET, "kernel frames are not named: with symfs= no local kallsyms is "
                    "read (as perf does); kallsyms=FILE names them");
    }
    return -1;
  }
  if( p->nKernId==0 ){
    snprintf(zPath, nPath, "%s", SYM_HOST_KALLSYMS);
    return 0;
  }
  for(i=0; i<p->nKernId; i++) snprintf(zWant + 2*i, 3, "%02x", p->aKernId[i]);
  bHost = host_kernel_id(zHost, sizeof(zHost))==0 && strcmp(zHost, zWant)==0;
  if( p->zBuildidDir
   && (size_t)snprintf(zPath, nPath, "%s/" SYM_KERNEL_DSO "/%s/kallsyms", p->zBuildidDir, zWant) < nPath
   && stat(zPath, &st)==0 && S_ISREG(st.st_mode) ){
    *pbHost = bHost;
    return 0;
  }
  if( bHost ){
    snprintf(zPath, nPath, "%s", SYM_HOST_KALLSYMS);
    return 0;
  }
  if( pTrace ){
    tl_trace_warn(pTrace, 0, TL_NO_OFFSET,
                  "kernel frames are not named: the trace's kernel (build id %s) is not the running one and "
                  "the build-id cache (%s) has no kallsyms of it; kallsyms=FILE or buildid_dir=DIR names them",
                  zWant, p->zBuildidDir ? p->zBuildidDir : "none");
  }
  return -1;
}

/*
** How far kallsyms's addresses are from the recorded ones: the kernel
** may be relocated differently (KASLR) from the trace's boot. As perf's
** kallsyms__delta: the reference symbol's address in kallsyms minus the
** one the trace recorded (0 when either is unknown).
*/
static uint64_t kallsyms_delta(const TlSymbols *p){
  size_t i;
  if( p->zKernRef[0]==0 ) return 0;
  for(i=0; i<p->ks.n; i++){
    if( p->ks.a[i].iMod==0 && strcmp(p->ks.zBuf + p->ks.a[i].iName, p->zKernRef)==0 ){
      return p->ks.a[i].addr - p->kernRef;
    }
  }
  return 0;
}

/*
** Read kallsyms file zPath into *k (its first SYM_MAX_KALLSYMS bytes, read
** as a stream: /proc/kallsyms reports a size of 0; a FIFO or device is
** refused without blocking) and parse it. Megabytes written once: in huge
** pages. 0 on success (k may hold no symbol).
*/
static int ks_read(SymKs *k, const char *zPath){
  char *z, *zEnd;
  size_t nAlloc, i;
  TlErr err;
  tl_err_clear(&err);
  memset(k, 0, sizeof(*k));
  if( tl_file_read_big(zPath, SYM_MAX_KALLSYMS, &k->zBuf, &k->nBuf, &k->nBufAlloc, &err) ) return -1;
  z = k->zBuf;
  zEnd = z + k->nBuf;
  /* room for a symbol every 32 bytes (a line is about 40): grown seldom,
  ** and the pages never written cost nothing */
  nAlloc = k->nBuf/32 + 64;
  if( nAlloc>SYM_MAX_SYMS ) nAlloc = SYM_MAX_SYMS;
  k->a = tl_big_alloc(nAlloc*sizeof(SymKsym));
  if( k->a==0 ) nAlloc = 0;
  k->nAlloc = nAlloc;
  while( z<zEnd ){
    char *zLineEnd = memchr(z, '\n', (size_t)(zEnd - z));
    SymKsym e;
    if( zLineEnd==0 ) zLineEnd = zEnd;
    if( kallsyms_line(k->zBuf, z, zLineEnd, zEnd, &e)==0 ){
      if( k->n==nAlloc ){
        size_t nNew = nAlloc ? nAlloc*2 : 4096;
        SymKsym *aNew = nNew<=SYM_MAX_SYMS
                      ? tl_big_realloc(k->a, nAlloc*sizeof(SymKsym), nNew*sizeof(SymKsym)) : 0;
        if( aNew==0 ) break;
        k->a = aNew;
        nAlloc = k->nAlloc = nNew;
      }
      k->a[k->n++] = e;
    }
    z = zLineEnd + 1;
  }
  /* (/proc/kallsyms comes sorted: not sorted again) */
  for(i=1; i<k->n && k->a[i-1].addr<=k->a[i].addr; i++){}
  if( i<k->n ) qsort(k->a, k->n, sizeof(SymKsym), cmp_ksym);
  return 0;
}

static void ks_free(SymKs *k){
  tl_big_free(k->a, k->nAlloc*sizeof(SymKsym));
  tl_big_free(k->zBuf, k->nBufAlloc);
  memset(k, 0, sizeof(*k));
}

static void *ks_pre_main(void *pArg){
  SymKsPre *x = pArg;
  x->rc = ks_read(&x->ks, x->zPath);
  return 0;
}

void tl_symbols_kernel_prefetch(TlSymbols *p){
  SymKsPre *x;
  int bHost;
  if( p->pKsPre || __atomic_load_n(&p->eKallsyms, __ATOMIC_ACQUIRE)!=SYM_NOT_READ ) return;
  x = calloc(1, sizeof(*x));
  if( x==0 ) return;
  if( p->zKallsyms ){
    if( (size_t)snprintf(x->zPath, sizeof(x->zPath), "%s", p->zKallsyms) >= sizeof(x->zPath) ){ free(x); return; }
  }else if( kallsyms_find(p, 0, x->zPath, sizeof(x->zPath), &bHost) ){
    free(x);
    return;
  }
  if( pthread_create(&x->th, 0, ks_pre_main, x) ){ free(x); return; }
  p->pKsPre = x;
}

/*
** Wait for the read ahead, if any: its symbols into p->ks when it read
** zPath, else they go. 1 when taken.
*/
static int ks_pre_take(TlSymbols *p, const char *zPath){
  SymKsPre *x = p->pKsPre;
  int bTaken = 0;
  if( x==0 ) return 0;
  pthread_join(x->th, 0);
  if( x->rc==0 && strcmp(x->zPath, zPath)==0 ){
    p->ks = x->ks;
    memset(&x->ks, 0, sizeof(x->ks));
    bTaken = 1;
  }
  ks_free(&x->ks);
  free(x);
  p->pKsPre = 0;
  return bTaken;
}

/* The read ahead, if any, waited for and dropped. */
static void ks_pre_end(TlSymbols *p){
  (void)ks_pre_take(p, "");
}

/* Read and parse the kallsyms file (the caller holds ksMu). */
static int kallsyms_load(TlSymbols *p, TlTrace *pTrace){
  char zFound[4096];
  const char *zFile = p->zKallsyms;
  int bHost = 0, rc;
  if( zFile==0 ){
    if( kallsyms_find(p, pTrace, zFound, sizeof(zFound), &bHost) ){
      ks_pre_end(p);
      return SYM_NONE;
    }
    zFile = zFound;
  }
  rc = ks_pre_take(p, zFile) ? 0 : ks_read(&p->ks, zFile);
  if( (rc || p->ks.n==0) && bHost ){
    /* the cache's copy names nothing (made without the right to see
    ** addresses): the running kernel's list */
    ks_free(&p->ks);
    zFile = SYM_HOST_KALLSYMS;
    rc = ks_read(&p->ks, zFile);
  }
  if( rc ) return SYM_NONE;
  p->ksDelta = kallsyms_delta(p);
  if( p->ks.n==0 && p->zKallsyms==0 ){
    tl_trace_warn(pTrace, 0, TL_NO_OFFSET, "%s: no kernel text symbols could be read; kallsyms=FILE names "
                  "kernel frames", zFile);
  }
  return p->ks.n ? SYM_READ : SYM_NONE;
}

/*
** Are kallsyms's symbols read (reading them on first use, under ksMu)? 1
** read, 0 none to read; with bWait 0, -1 while another thread reads them.
*/
static int kallsyms_state(TlSymbols *p, TlTrace *pTrace, int bWait){
  int e = __atomic_load_n(&p->eKallsyms, __ATOMIC_ACQUIRE);
  if( e==SYM_NOT_READ ){
    if( bWait ) pthread_mutex_lock(&p->ksMu);
    else if( pthread_mutex_trylock(&p->ksMu) ) return -1;
    if( p->eKallsyms==SYM_NOT_READ ){
      e = kallsyms_load(p, pTrace);
      if( p->zKallsyms && e!=SYM_READ ){
        tl_trace_warn(pTrace, 0, TL_NO_OFFSET, "kallsyms=%s: no kernel text symbols could be read",
                      p->zKallsyms);
      }
      __atomic_store_n(&p->eKallsyms, e, __ATOMIC_RELEASE);
    }
    e = p->eKallsyms;
    pthread_mutex_unlock(&p->ksMu);
  }
  return e==SYM_READ;
}

static int kallsyms_ready(TlSymbols *p, TlTrace *pTrace){
  return kallsyms_state(p, pTrace, 1)==1;
}

int tl_symbols_kernel_try(TlSymbols *p, TlTrace *pTrace){
  return kallsyms_state(p, pTrace, 0)>=0;
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

/* ---- Questions ------------------------------------------------------- */

/* The map of pid holding ip, made latest before ts; NULL if none. */
static const SymMap *map_find(const TlSymbols *p, int64_t pid, uint64_t ip, int64_t ts){
  size_t lo = 0, hi = p->nMap, i;
  const SymMap *best = 0;
  while( lo<hi ){                                  /* first map of pid */
    size_t mid = lo + (hi-lo)/2;
    if( p->aMap[mid].pid<pid ) lo = mid+1; else hi = mid;
  }
  for(i=lo; i<p->nMap && p->aMap[i].pid==pid && p->aMap[i].start<=ip; i++){
    const SymMap *m = &p->aMap[i];
    if( ip - m->start >= m->len ) continue;
    if( m->ts!=TL_SYMBOLS_NO_TS && ts!=TL_SYMBOLS_NO_TS && m->ts>ts ) continue;
    if( best==0 || m->iSeq>best->iSeq ) best = m;
  }
  return best;
}

/*
** A kernel address: its kallsyms symbol. As perf looks a kernel address up
** in the kernel's maps only, an address below every kernel symbol, or past
** the kernel's map, is no one's (garbage a frame-pointer walk found).
*/
static void kernel_at(TlSymbols *p, TlTrace *pTrace, uint64_t ip, TlSymbolAt *pOut){
  size_t lo = 0, hi;
  uint64_t a;
  pOut->zDso = SYM_KERNEL_DSO;
  pOut->dsooff = ip;
  if( !kallsyms_ready(p, pTrace) ) return;
  a = ip + p->ksDelta;                             /* where kallsyms has it */
  hi = p->ks.n;
  while( lo<hi ){
    size_t mid = lo + (hi-lo)/2;
    if( p->ks.a[mid].addr<=a ) lo = mid+1; else hi = mid;
  }
  if( lo==0 || (lo==p->ks.n && a>=kallsyms_last_end(p->ks.a[lo-1].addr)) ){
    pOut->zDso = SYM_UNKNOWN;
    pOut->dsooff = 0;
  }else{
    const SymKsym *y = &p->ks.a[lo-1];
    pOut->zSym = p->ks.zBuf + y->iName;
    pOut->symoff = a - y->addr;
    if( y->iMod ) pOut->zDso = p->ks.zBuf + y->iMod;
  }
}

void tl_symbols_at(TlSymbols *p, TlTrace *pTrace, int64_t pid, int64_t ts, uint64_t ip,
                   int bKernel, TlSymbolAt *pOut){
  const SymMap *m = 0;
  int k;
  pOut->zSym = SYM_UNKNOWN;
  pOut->zDso = SYM_UNKNOWN;
  pOut->symoff = 0;
  pOut->dsooff = 0;
  if( bKernel ){
    kernel_at(p, pTrace, ip, pOut);
    return;
  }
  for(k=0; k<SYM_MAX_GENERATIONS && m==0; k++){
    uint32_t parent;
    m = map_find(p, pid, ip, ts);
    if( m || !tl_map_get(&p->parent, (uint64_t)pid, &parent) ) break;
    pid = (int32_t)parent;
  }
  if( m==0 ) return;
  pOut->zDso = p->aFile[m->iFile].zName;
  /* a JIT map names addresses as they are (perf's identity map) */
  pOut->dsooff = p->aFile[m->iFile].bJit ? ip : ip - m->start + m->pgoff;
  if( file_ready(p, pTrace, m->iFile) ){
    const SymFile *f = &p->aFile[m->iFile];
    uint64_t va = ip;
    if( m->bVaddr ) va = pOut->dsooff;
    if( f->bJit || m->bVaddr || tl_elf_off_to_vaddr(&f->elf, pOut->dsooff, &va)==0 ){
      const SymEntry *s = file_symbol(f, va);
      if( s ){
        pOut->zSym = s->zName;
        pOut->symoff = va - s->addr;
      }
    }
  }
}

int tl_symbols_map_at(TlSymbols *p, TlTrace *pTrace, int64_t pid, int64_t ts, uint64_t ip,
                      TlMapAt *pOut){
  const SymMap *m = 0;
  int k;
  memset(pOut, 0, sizeof(*pOut));
  for(k=0; k<SYM_MAX_GENERATIONS && m==0; k++){
    uint32_t parent;
    m = map_find(p, pid, ip, ts);
    if( m || !tl_map_get(&p->parent, (uint64_t)pid, &parent) ) break;
    pid = (int32_t)parent;
  }
  if( m==0 ) return 0;
  pOut->start = m->start;
  pOut->len = m->len;
  pOut->pgoff = m->pgoff;
  pOut->bVaddr = m->bVaddr;
  pOut->iFile = m->iFile;
  pOut->zName = p->aFile[m->iFile].zName;
  (void)file_ready(p, pTrace, m->iFile);
  {
    const SymFile *f = &p->aFile[m->iFile];
    pOut->eWhy = f->eWhy;
    if( f->eWhy==TL_SYMFILE_OPEN ){
      pOut->zPath = f->zPath;
      pOut->zDebugPath = f->zDbgPath;
      pOut->aFile = f->pSrc ? f->pSrc->aMap : 0;
      pOut->nFile = f->pSrc ? (size_t)f->pSrc->nSize : 0;
      if( pOut->zPath==0 ) pOut->eWhy = TL_SYMFILE_MISSING;   /* (no memory for the path) */
    }
  }
  return 1;
}

int tl_symbols_next_row(TlSymbols *p, TlTrace *pTrace, size_t *piFile, size_t *piSym, TlRow *pRow){
  TlVal *v = pRow->a;
  for(;;){
    const SymEntry *y;
    SymEntry k;
    const char *zModule;
    if( *piFile < p->nFile ){
      const SymFile *f = &p->aFile[*piFile];
      if( *piSym==0 && !file_ready(p, pTrace, *piFile) ){ (*piFile)++; continue; }
      if( *piSym >= f->nSym ){ (*piFile)++; *piSym = 0; continue; }
      y = &f->aSym[*piSym];
      zModule = f->zName;
    }else if( *piFile==p->nFile ){
      if( *piSym==0 && !kallsyms_ready(p, pTrace) ) return TL_DONE;
      if( *piSym >= p->ks.n ) return TL_DONE;
      /* as perf does: a kallsyms symbol ends where the next one starts */
      memset(&k, 0, sizeof(k));
      k.addr = p->ks.a[*piSym].addr;
      if( *piSym+1 < p->ks.n ) k.size = p->ks.a[*piSym+1].addr - k.addr;
      k.zName = p->ks.zBuf + p->ks.a[*piSym].iName;
      k.bFunc = 1;
      y = &k;
      zModule = p->ks.a[*piSym].iMod ? p->ks.zBuf + p->ks.a[*piSym].iMod : SYM_KERNEL_DSO;
    }else{
      return TL_DONE;
    }
    pRow->iRowid = (int64_t)(((uint64_t)*piFile << 32) | *piSym);
    (*piSym)++;
    tl_val_int(&v[TL_SY_ID], pRow->iRowid);
    tl_val_int(&v[TL_SY_ADDR], (int64_t)(*piFile < p->nFile ? y->addr : y->addr - p->ksDelta));
    if( y->size || *piFile < p->nFile ) tl_val_int(&v[TL_SY_SIZE], (int64_t)y->size);
    tl_val_textz(&v[TL_SY_NAME], y->zName);
    tl_val_textz(&v[TL_SY_MODULE], zModule);
    tl_val_textz(&v[TL_SY_KIND], y->bFunc ? "func" : "object");
    return TL_ROW;
  }
}
