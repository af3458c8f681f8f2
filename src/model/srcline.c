/*
** srcline.c: source lines and inlined functions of addresses, from the
** DWARF line tables and scopes of the mapped files, read with libdw
** (readers/model_unwind.h, tl_srclines_*).
**
** An address of a process at a time is turned, through the symbols
** model's maps, into an address of its file (file offset, then the
** virtual address of the PT_LOAD segment holding it). Its compile unit's
** scopes, innermost first, give the inlined functions it is in: each one's
** line is where the address (or the inlined call inside it) is, its caller's
** the inline's DW_AT_call_file:DW_AT_call_line. The names are as addr2line
** prints them and perf demangles them: the inlined function's
** DW_AT_linkage_name (its own or its declaration's) demangled without
** parameters, else its DW_AT_name.
** Lines are "BASENAME:LINE" as perf script -F srcline prints them.
**
** One libdw handle per file (or its separate debug file, found by build id
** under symfs as its symbols are, when the file has no DWARF), opened on
** first use; the answers are kept per
** (file, address), up to SRC_MAX_CACHED frames, then the cache starts over.
*/
#include "model_unwind.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libiberty/demangle.h>

#include "dwlib.h"
#include "map.h"
#include "source.h"

#define SRC_MAX_CACHED (1u<<20)       /* frames kept before the cache starts over */
#define SRC_MAX_DEPTH 256             /* levels of DIEs walked down to an address */
#define SRC_MAX_SCOPES 64             /* inline depth looked at */

typedef struct SrcFile SrcFile;
struct SrcFile {
  int bTried;                     /* opened (or tried to) */
  TlSource *pSrc, *pSrcDbg;       /* the files libelf reads (by pread), or NULL */
  Elf *pElf;                      /* the file (its segments) */
  Elf *pDbg;                      /* its separate debug file, or NULL */
  Dwarf *pDw;                     /* NULL: no DWARF (then lines are unknown) */
};

typedef struct SrcEntry SrcEntry;
struct SrcEntry {
  uint32_t iFile;
  uint64_t addr;
  uint32_t iFirst, n;             /* its frames in aFrame */
};

struct TlSrclines {
  TlSymbols *pSyms;
  SrcFile *aFile; size_t nFile;   /* by the symbols model's file number */
  TlMap byKey;                    /* hash of (file, address) -> aEntry index */
  SrcEntry *aEntry; size_t nEntry, nEntryAlloc;
  TlSrcFrame *aFrame; size_t nFrame, nFrameAlloc;
  TlSrcFrame aTmp[SRC_MAX_SCOPES+1];  /* an answer that could not be kept */
  char *zRow;                     /* tl_srclines_bt2_at's last src */
};

/* A new string made as printf makes it; NULL when out of memory. */
static char *src_printf(const char *zFmt, ...){
  va_list ap;
  char *z;
  int n;
  va_start(ap, zFmt);
  n = vsnprintf(0, 0, zFmt, ap);
  va_end(ap);
  if( n<0 || (z = malloc((size_t)n + 1))==0 ) return 0;
  va_start(ap, zFmt);
  vsnprintf(z, (size_t)n + 1, zFmt, ap);
  va_end(ap);
  return z;
}

TlSrclines *tl_srclines_new(TlSymbols *pSyms){
  TlSrclines *p = calloc(1, sizeof(*p));
  if( p==0 ) return 0;
  p->pSyms = pSyms;
  tl_map_init(&p->byKey);
  return p;
}

static void frames_free(TlSrcFrame *a, size_t n){
  size_t i;
  for(i=0; i<n; i++){
    free((char*)(uintptr_t)a[i].zFunc);
    free((char*)(uintptr_t)a[i].zSrcline);
  }
}

/* Forget every kept answer. */
static void cache_clear(TlSrclines *p){
  frames_free(p->aFrame, p->nFrame);
  p->nFrame = 0;
  p->nEntry = 0;
  tl_map_free(&p->byKey);
  tl_map_init(&p->byKey);
}

void tl_srclines_free(TlSrclines *p){
  size_t i;
  if( p==0 ) return;
  cache_clear(p);
  frames_free(p->aTmp, SRC_MAX_SCOPES+1);
  for(i=0; i<p->nFile; i++){
    if( p->aFile[i].pDw ) tl_dw.dwarf_end(p->aFile[i].pDw);
    if( p->aFile[i].pElf ) tl_dw.elf_end(p->aFile[i].pElf);
    tl_source_close(p->aFile[i].pSrc);
    if( p->aFile[i].pDbg ) tl_dw.elf_end(p->aFile[i].pDbg);
    tl_source_close(p->aFile[i].pSrcDbg);
  }
  free(p->aFile);
  free(p->aEntry);
  free(p->aFrame);
  free(p->zRow);
  tl_map_free(&p->byKey);
  free(p);
}


/*
** Does every string section of e (SHT_STRTAB, SHF_STRINGS: .debug_str,
** .debug_line_str, ...) end in a NUL, once decompressed? libdw reads their
** strings with strlen(), past the section's end when the last one is not
** ended (a hostile or damaged file): such a file's DWARF is not read.
*/
static int strings_ended(Elf *e){
  Elf_Scn *scn = 0;
  while( (scn = tl_dw.elf_nextscn(e, scn))!=0 ){
    GElf_Shdr sh;
    Elf_Data *d;
    if( tl_dw.gelf_getshdr(scn, &sh)==0 ) return 0;
    if( sh.sh_type==SHT_NOBITS ) continue;
    if( sh.sh_type!=SHT_STRTAB && !(sh.sh_flags & SHF_STRINGS) ) continue;
    if( (sh.sh_flags & SHF_COMPRESSED) && tl_dw.elf_compress(scn, 0, 0)<0 ) return 0;
    d = tl_dw.elf_getdata(scn, 0);
    if( d==0 ) return 0;
    if( d->d_size>0 && (d->d_buf==0 || ((const char*)d->d_buf)[d->d_size-1]!=0) ) return 0;
  }
  return 1;
}

/* The file's libdw handles, opened on first use; NULL when out of memory. */
static SrcFile *file_get(TlSrclines *p, TlTrace *pTrace, const TlMapAt *m){
  SrcFile *f;
  const char *zNoLib;
  if( m->iFile>=p->nFile ){
    size_t n = (size_t)m->iFile + 16, i;
    SrcFile *aNew = realloc(p->aFile, n*sizeof(*aNew));
    if( aNew==0 ) return 0;
    for(i=p->nFile; i<n; i++){
      aNew[i].bTried = 0;
      aNew[i].pSrc = aNew[i].pSrcDbg = 0;
      aNew[i].pElf = aNew[i].pDbg = 0; aNew[i].pDw = 0;
    }
    p->aFile = aNew;
    p->nFile = n;
  }
  f = &p->aFile[m->iFile];
  if( !f->bTried ){
    /* Regular files only (tl_source_open), read by libelf with pread
    ** (ELF_C_READ), never mapped: a file cut short under a query is an
    ** error of libelf's, not SIGBUS. libdw reads the DWARF sections whole
    ** at dwarf_begin_elf, and nothing else of the file. */
    TlErr err;
    f->bTried = 1;
    if( (zNoLib = tl_dw_load())!=0 ){
      tl_trace_warn(pTrace, m->zName, TL_NO_OFFSET, "no source lines: %s", zNoLib);
      return f;
    }
    tl_err_clear(&err);
    if( tl_source_open(m->zPath, &f->pSrc, &err)==TL_OK ) f->pElf = tl_dw.elf_begin(f->pSrc->fd, ELF_C_READ, 0);
    if( f->pElf && strings_ended(f->pElf) ) f->pDw = tl_dw.dwarf_begin_elf(f->pElf, DWARF_C_READ, 0);
    if( f->pDw==0 && m->zDebugPath ){
      /* no DWARF in it: its separate debug file's (the same addresses) */
      if( tl_source_open(m->zDebugPath, &f->pSrcDbg, &err)==TL_OK ){
        f->pDbg = tl_dw.elf_begin(f->pSrcDbg->fd, ELF_C_READ, 0);
      }
      if( f->pDbg && strings_ended(f->pDbg) ) f->pDw = tl_dw.dwarf_begin_elf(f->pDbg, DWARF_C_READ, 0);
    }
  }
  return f;
}

/* File offset off as a virtual address of the file (its PT_LOAD); 0 if none. */
static int off_to_vaddr(Elf *pElf, uint64_t off, uint64_t *pVa){
  size_t n, i;
  if( pElf==0 || tl_dw.elf_getphdrnum(pElf, &n) ) return 0;
  for(i=0; i<n; i++){
    GElf_Phdr ph;
    if( tl_dw.gelf_getphdr(pElf, (int)i, &ph)==0 || ph.p_type!=PT_LOAD ) continue;
    if( off>=ph.p_offset && off - ph.p_offset < ph.p_filesz ){
      *pVa = off - ph.p_offset + ph.p_vaddr;
      return 1;
    }
  }
  return 0;
}

/* ip of map m as a virtual address of f's file; 0 if none. */
static int map_vaddr(SrcFile *f, const TlMapAt *m, uint64_t ip, uint64_t *pVa){
  if( m->bVaddr ){
    *pVa = ip - m->start + m->pgoff;
    return 1;
  }
  return off_to_vaddr(f->pElf, ip - m->start + m->pgoff, pVa);
}

/* "BASENAME:LINE" (a new string), NULL when the file is not known. */
static char *srcline_text(const char *zFile, int iLine){
  const char *z = zFile ? strrchr(zFile, '/') : 0;
  z = z ? z+1 : zFile;
  return z && z[0] ? src_printf("%s:%d", z, iLine) : 0;
}

/* An inlined function's name as addr2line gives it and perf demangles it. */
static char *inline_name(Dwarf_Die *pScope){
  Dwarf_Attribute at;
  Dwarf_Die origin, *d = pScope;
  const char *z = 0;
  if( tl_dw.dwarf_attr(pScope, DW_AT_abstract_origin, &at) && tl_dw.dwarf_formref_die(&at, &origin) ) d = &origin;
  if( tl_dw.dwarf_attr_integrate(d, DW_AT_linkage_name, &at) || tl_dw.dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &at) ){
    z = tl_dw.dwarf_formstring(&at);
    if( z ){
      char *zDem = cplus_demangle(z, DMGL_NO_OPTS);
      if( zDem ){
        char *zOut = src_printf("%s", zDem);
        free(zDem);
        return zOut;
      }
    }
  }
  if( z==0 && tl_dw.dwarf_attr_integrate(d, DW_AT_name, &at) ) z = tl_dw.dwarf_formstring(&at);
  return src_printf("%s", z ? z : "??");
}

/* The caller's place of an inlined call: its DW_AT_call_file and _line. */
static void call_site(Dwarf_Die *pCu, Dwarf_Die *pScope, const char **pzFile, int *piLine){
  Dwarf_Attribute at;
  Dwarf_Word iFile = 0, iLine = 0;
  Dwarf_Files *pFiles;
  size_t nFiles;
  *pzFile = 0;
  *piLine = 0;
  if( tl_dw.dwarf_attr(pScope, DW_AT_call_line, &at) && tl_dw.dwarf_formudata(&at, &iLine)==0 ) *piLine = (int)iLine;
  if( tl_dw.dwarf_attr(pScope, DW_AT_call_file, &at) && tl_dw.dwarf_formudata(&at, &iFile)==0
   && tl_dw.dwarf_getsrcfiles(pCu, &pFiles, &nFiles)==0 && iFile<nFiles ){
    *pzFile = tl_dw.dwarf_filesrc(pFiles, iFile, 0, 0);
  }
}

/*
** Is a DW_AT_name of a unit in language lang a linkage name to binutils'
** addr2line (the languages it does not demangle: C, Fortran, Pascal, ...)?
*/
static int name_is_linkage(int lang){
  switch( lang ){
    case DW_LANG_C89: case DW_LANG_C: case DW_LANG_C99: case DW_LANG_C11:
    case DW_LANG_Cobol74: case DW_LANG_Cobol85: case DW_LANG_Fortran77:
    case DW_LANG_Fortran90: case DW_LANG_Fortran95: case DW_LANG_Fortran03:
    case DW_LANG_Fortran08: case DW_LANG_Pascal83: case DW_LANG_PLI:
    case DW_LANG_UPC: case DW_LANG_Mips_Assembler:
      return 1;
    default:
      return 0;
  }
}

/*
** The name addr2line gives the innermost function holding an address:
** its own (as inline_name), but for a function without a linkage name in
** a language whose names it demangles (C++), the ELF symbol holding the
** address (zSym, as perf names it: then NULL, the frame itself).
*/
static char *innermost_name(Dwarf_Die *pCu, Dwarf_Die *pScope){
  Dwarf_Attribute at;
  Dwarf_Die origin, *d = pScope;
  if( tl_dw.dwarf_attr(pScope, DW_AT_abstract_origin, &at) && tl_dw.dwarf_formref_die(&at, &origin) ) d = &origin;
  if( !tl_dw.dwarf_attr_integrate(d, DW_AT_linkage_name, &at) && !tl_dw.dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &at)
   && !name_is_linkage(tl_dw.dwarf_srclang(pCu)) ) return 0;
  return inline_name(pScope);
}

/*
** The scopes at va of the innermost function (inlined or not) whose code
** holds it, that function first, into *paScope (malloc'd, or NULL): how
** many, 0 when none does, -1 on a DWARF error. Found as dwarf_getscopes()
** finds them (at each level the first child whose ranges hold va, from
** the CU down), then, for an inlined function, its containing DIEs by
** dwarf_getscopes_die(). (dwarf_getscopes() itself goes on past an inline
** into its abstract definition, and when that search fails, libdw 0.188
** loses the array it made: a leak per address.)
*/
static int function_scopes_at(Dwarf_Die *cu, Dwarf_Addr va, Dwarf_Die **paScope){
  Dwarf_Die die = *cu, best;
  int bBest = 0, depth, tag;
  *paScope = 0;
  for(depth=0; depth<SRC_MAX_DEPTH; depth++){
    Dwarf_Die c;
    int rc = tl_dw.dwarf_child(&die, &c), bIn = 0;
    if( rc<0 ) return -1;
    while( rc==0 ){
      if( tl_dw.dwarf_haspc(&c, va)>0 ){ bIn = 1; break; }
      rc = tl_dw.dwarf_siblingof(&c, &c);
      if( rc<0 ) return -1;
    }
    if( !bIn ) break;
    die = c;
    tag = tl_dw.dwarf_tag(&die);
    if( tag==DW_TAG_inlined_subroutine || tag==DW_TAG_subprogram ){ best = die; bBest = 1; }
  }
  if( !bBest ) return 0;
  if( tl_dw.dwarf_tag(&best)==DW_TAG_inlined_subroutine ){
    return tl_dw.dwarf_getscopes_die(&best, paScope);
  }
  if( (*paScope = malloc(sizeof(Dwarf_Die)))==0 ) return -1;
  (*paScope)[0] = best;
  return 1;
}

/*
** The frames at virtual address va of f into a[] (at most nMax): their
** count. As perf 6.1 makes them from addr2line -i -f's records (innermost
** first: each function holding va, inlined or not, with the line in it):
** a function whose name (demangled) is the frame's symbol zSym is the
** frame itself (zFunc NULL), any other an inlined function (zFunc). So
** the frame's own row may come first (its innermost function has no name
** of its own, C++), or not at all (its DWARF name is not its symbol's,
** "_M_run" for "std::thread::_State_impl<...>::_M_run").
*/
static int frames_at(SrcFile *f, uint64_t va, const char *zSym, TlSrcFrame *a, int nMax){
  Dwarf_Die cu, *aScope = 0;
  Dwarf_Line *pLine;
  const char *zFile = 0;
  int iLine = 0, nScope, i, n = 0;
  if( f->pDw==0 || tl_dw.dwarf_addrdie(f->pDw, va, &cu)==0 ){
    a[0].zFunc = 0;
    a[0].zSrcline = srcline_text(0, 0);
    return 1;
  }
  pLine = tl_dw.dwarf_getsrc_die(&cu, va);
  if( pLine ){
    zFile = tl_dw.dwarf_linesrc(pLine, 0, 0);
    if( tl_dw.dwarf_lineno(pLine, &iLine) ) iLine = 0;
  }
  nScope = function_scopes_at(&cu, va, &aScope);
  i = 0;
  /* perf adds no inlined function to a frame without a symbol */
  for(; strcmp(zSym, "[unknown]") && i<nScope && n<nMax-1; i++){
    int tag = tl_dw.dwarf_tag(&aScope[i]);
    char *zName;
    if( tag!=DW_TAG_inlined_subroutine && tag!=DW_TAG_subprogram ) continue;
    zName = n==0 ? innermost_name(&cu, &aScope[i]) : inline_name(&aScope[i]);
    if( zName && strcmp(zName, zSym)==0 ){ free(zName); zName = 0; }
    a[n].zFunc = zName;
    a[n].zSrcline = srcline_text(zFile, iLine);
    n++;
    if( tag==DW_TAG_subprogram ){ free(aScope); return n; }
    call_site(&cu, &aScope[i], &zFile, &iLine);
  }
  free(aScope);
  a[n].zFunc = 0;
  a[n].zSrcline = srcline_text(zFile, iLine);
  return n+1;
}

/* The symbol of user address ip as perf names it ("[unknown]" if none). */
static const char *frame_symbol(TlSrclines *p, TlTrace *pTrace, int64_t pid, int64_t ts, uint64_t ip){
  TlSymbolAt at;
  tl_symbols_at(p->pSyms, pTrace, pid, ts, ip, 0, &at);
  return at.zSym;
}

int tl_srclines_at(TlSrclines *p, TlTrace *pTrace, int64_t pid, int64_t ts, uint64_t ip,
                   const TlSrcFrame **paOut){
  TlMapAt m;
  SrcFile *f;
  uint64_t va, key;
  uint32_t iEntry;
  int n;
  *paOut = 0;
  if( !tl_symbols_map_at(p->pSyms, pTrace, pid, ts, ip, &m) || m.eWhy!=TL_SYMFILE_OPEN ) return 0;
  if( (f = file_get(p, pTrace, &m))==0 || !map_vaddr(f, &m, ip, &va) ) return 0;
  key = ((uint64_t)m.iFile * 0x9E3779B97F4A7C15ull) ^ va;
  if( tl_map_get(&p->byKey, key, &iEntry) && p->aEntry[iEntry].iFile==m.iFile && p->aEntry[iEntry].addr==va ){
    *paOut = p->aFrame + p->aEntry[iEntry].iFirst;
    return (int)p->aEntry[iEntry].n;
  }
  if( p->nFrame + SRC_MAX_SCOPES + 1 > SRC_MAX_CACHED ) cache_clear(p);
  if( p->nFrame + SRC_MAX_SCOPES + 1 > p->nFrameAlloc ){
    size_t nNew = p->nFrameAlloc*2 + 4*(SRC_MAX_SCOPES+1);
    TlSrcFrame *aNew = realloc(p->aFrame, nNew*sizeof(*aNew));
    if( aNew==0 ) goto not_kept;
    p->aFrame = aNew;
    p->nFrameAlloc = nNew;
  }
  if( p->nEntry==p->nEntryAlloc ){
    size_t nNew = p->nEntryAlloc*2 + 256;
    SrcEntry *aNew = realloc(p->aEntry, nNew*sizeof(*aNew));
    if( aNew==0 ) goto not_kept;
    p->aEntry = aNew;
    p->nEntryAlloc = nNew;
  }
  n = frames_at(f, va, frame_symbol(p, pTrace, pid, ts, ip), p->aFrame + p->nFrame, SRC_MAX_SCOPES+1);
  p->aEntry[p->nEntry].iFile = m.iFile;
  p->aEntry[p->nEntry].addr = va;
  p->aEntry[p->nEntry].iFirst = (uint32_t)p->nFrame;
  p->aEntry[p->nEntry].n = (uint32_t)n;
  (void)tl_map_put(&p->byKey, key, (uint32_t)p->nEntry);
  p->nEntry++;
  *paOut = p->aFrame + p->nFrame;
  p->nFrame += (size_t)n;
  return n;

not_kept:
  /* out of memory: an answer not kept, good until the next question */
  frames_free(p->aTmp, SRC_MAX_SCOPES+1);
  memset(p->aTmp, 0, sizeof(p->aTmp));
  n = frames_at(f, va, frame_symbol(p, pTrace, pid, ts, ip), p->aTmp, SRC_MAX_SCOPES+1);
  *paOut = p->aTmp;
  return n;
}

/*
** The call site of an inlined subroutine holding va among the children of
** die, found as babeltrace2 finds it: the children are tried in order, and
** past one whose ranges hold va (not an inline) the walk goes on from the
** second of its own children (babeltrace2 steps past the first); 0 if none,
** -1 when die has no children (babeltrace2 then gives no src at all).
*/
static int bt2_inline_site(Dwarf_Die *pCu, Dwarf_Die *pDie, uint64_t va, const char **pzFile, int *piLine){
  Dwarf_Die d;
  int nDepth = 0;
  if( tl_dw.dwarf_child(pDie, &d)!=0 ) return -1;
  for(;;){
    if( tl_dw.dwarf_haspc(&d, va)>0 ){
      Dwarf_Die child;
      if( tl_dw.dwarf_tag(&d)==DW_TAG_inlined_subroutine ){
        call_site(pCu, &d, pzFile, piLine);
        return *pzFile!=0;
      }
      if( nDepth<SRC_MAX_SCOPES && tl_dw.dwarf_child(&d, &child)==0 ){
        d = child;
        nDepth++;
      }
    }
    if( tl_dw.dwarf_siblingof(&d, &d)!=0 ) return 0;
  }
}

int tl_srclines_bt2_at(TlSrclines *p, TlTrace *pTrace, int64_t pid, int64_t ts, uint64_t ip,
                       TlBt2Info *pOut){
  TlMapAt m;
  SrcFile *f;
  Dwarf_Die cu, d;
  Dwarf_Line *pLine;
  Dwarf_Addr lineAddr, low;
  uint64_t va;
  const char *zFile = 0;
  int iLine = 0, bSub = 0, rc = 0;
  memset(pOut, 0, sizeof(*pOut));
  free(p->zRow);
  p->zRow = 0;
  if( !tl_symbols_map_at(p->pSyms, pTrace, pid, ts, ip, &m) || m.eWhy!=TL_SYMFILE_OPEN ) return 0;
  if( (f = file_get(p, pTrace, &m))==0 || f->pDw==0 || !map_vaddr(f, &m, ip, &va) ) return 0;
  if( tl_dw.dwarf_addrdie(f->pDw, va, &cu)==0 ) return 1;
  /* func: the top-level subprogram holding va */
  if( tl_dw.dwarf_child(&cu, &d)==0 ){
    do{
      if( tl_dw.dwarf_tag(&d)==DW_TAG_subprogram && tl_dw.dwarf_haspc(&d, va)>0 ){ bSub = 1; break; }
    }while( tl_dw.dwarf_siblingof(&d, &d)==0 );
  }
  if( bSub ){
    pOut->zFunc = tl_dw.dwarf_diename(&d);
    if( pOut->zFunc && tl_dw.dwarf_lowpc(&d, &low)==0 ) pOut->funcOff = va - low;
    else pOut->zFunc = 0;
  }
  /* src: an inline's call site, else the line row starting at va */
  if( bSub && (rc = bt2_inline_site(&cu, &d, va, &zFile, &iLine))<0 ) return 1;
  if( !bSub || rc==0 ){
    zFile = 0;
    pLine = tl_dw.dwarf_getsrc_die(&cu, va);
    if( pLine && tl_dw.dwarf_lineaddr(pLine, &lineAddr)==0 && lineAddr==va && tl_dw.dwarf_lineno(pLine, &iLine)==0 ){
      zFile = tl_dw.dwarf_linesrc(pLine, 0, 0);
    }
  }
  if( zFile ) pOut->zSrc = p->zRow = srcline_text(zFile, iLine);
  return 1;
}
