/*
** elf.c: see elf.h.
*/
#include "elf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define TL_ELF_MAX_SEG 4096       /* program headers read at most */

uint64_t tl_elf_word(TlBytes *b, int b64, int *pbErr){
  if( b64 ){
    uint64_t v;
    if( tl_bytes_u64e(b, &v) ){ *pbErr = 1; return 0; }
    return v;
  }else{
    uint32_t v;
    if( tl_bytes_u32e(b, &v) ){ *pbErr = 1; return 0; }
    return v;
  }
}

/* The PT_LOAD program headers (others and damaged ones are skipped). */
static int elf_segments(TlElf *e, uint64_t phoff, uint16_t phentsize, uint16_t phnum, TlErr *pErr){
  uint32_t k, nMax = phnum < TL_ELF_MAX_SEG ? phnum : TL_ELF_MAX_SEG;
  if( phnum==0 || phentsize != (e->b64 ? 56 : 32) || phoff > e->b.n
   || (uint64_t)phnum*phentsize > e->b.n - phoff ){
    return TL_OK;                 /* no usable program headers: offsets stay unmapped */
  }
  e->aSeg = calloc(nMax ? nMax : 1, sizeof(TlElfSeg));
  if( e->aSeg==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  for(k=0; k<nMax; k++){
    TlBytes s = tl_bytes(e->b.a + phoff + (size_t)k*phentsize, phentsize, e->b.bo);
    uint32_t type = 0, u32;
    uint64_t off, vaddr, filesz;
    int bErr = tl_bytes_u32e(&s, &type)!=0;
    if( e->b64 ){
      if( tl_bytes_u32e(&s, &u32) ) bErr = 1;  /* flags */
      off = tl_elf_word(&s, 1, &bErr);
      vaddr = tl_elf_word(&s, 1, &bErr);
      (void)tl_elf_word(&s, 1, &bErr);        /* paddr */
      filesz = tl_elf_word(&s, 1, &bErr);
    }else{
      off = tl_elf_word(&s, 0, &bErr);
      vaddr = tl_elf_word(&s, 0, &bErr);
      (void)tl_elf_word(&s, 0, &bErr);        /* paddr */
      filesz = tl_elf_word(&s, 0, &bErr);
    }
    if( bErr || type!=1 ) continue;           /* PT_LOAD */
    e->aSeg[e->nSeg].off = off;
    e->aSeg[e->nSeg].vaddr = vaddr;
    e->aSeg[e->nSeg].filesz = filesz;
    e->nSeg++;
  }
  return TL_OK;
}

int tl_elf_parse(TlElf *e, const uint8_t *a, size_t n, const char *zWhat, TlErr *pErr){
  TlBytes b;
  uint64_t shoff, phoff;
  uint16_t phentsize, phnum, shentsize, shnum, shstrndx, u16;
  uint32_t u32, k;
  int bErr = 0;
  memset(e, 0, sizeof(*e));
  if( n<52 || memcmp(a, "\177ELF", 4) ){
    return tl_err_set(pErr, TL_EMISUSE, 0, "%s: expected an ELF file", zWhat);
  }
  if( a[4]!=1 && a[4]!=2 ) return tl_err_set(pErr, TL_ECORRUPT, 4, "%s: ELF class %u is neither 32 nor 64 bits", zWhat, a[4]);
  if( a[5]!=1 && a[5]!=2 ) return tl_err_set(pErr, TL_ECORRUPT, 5, "%s: ELF data encoding %u is unknown", zWhat, a[5]);
  e->b64 = a[4]==2;
  b = tl_bytes(a, n, a[5]==1 ? TL_LE : TL_BE);
  e->b = b;
  /* e_ident, e_type, e_machine, e_version, e_entry, e_phoff, e_shoff: a
  ** 64-bit header is 64 bytes, more than the 52 checked above */
  if( tl_bytes_skip(&b, 16) || tl_bytes_u16e(&b, &e->etype) || tl_bytes_u16e(&b, &e->machine)
   || tl_bytes_skip(&b, 4) ) bErr = 1;
  (void)tl_elf_word(&b, e->b64, &bErr);       /* e_entry */
  phoff = tl_elf_word(&b, e->b64, &bErr);
  shoff = tl_elf_word(&b, e->b64, &bErr);
  if( bErr || tl_bytes_u32e(&b, &u32) || tl_bytes_u16e(&b, &u16) || tl_bytes_u16e(&b, &phentsize)
   || tl_bytes_u16e(&b, &phnum) || tl_bytes_u16e(&b, &shentsize) || tl_bytes_u16e(&b, &shnum)
   || tl_bytes_u16e(&b, &shstrndx) ){
    memset(e, 0, sizeof(*e));
    return tl_err_set(pErr, TL_ECORRUPT, b.i, "%s: ELF header cut short", zWhat);
  }
  if( shentsize != (e->b64 ? 64 : 40) || shoff>n || (uint64_t)shnum*shentsize > n - shoff ){
    return tl_err_set(pErr, TL_ECORRUPT, shoff, "%s: expected %u section headers of %u bytes inside the file",
                      zWhat, shnum, shentsize);
  }
  e->aSec = calloc(shnum ? shnum : 1, sizeof(TlElfSec));
  if( e->aSec==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  e->nSec = shnum;
  e->iShstr = shstrndx;
  for(k=0; k<shnum; k++){
    TlBytes s = tl_bytes(a + shoff + (size_t)k*shentsize, shentsize, b.bo);
    TlElfSec *p = &e->aSec[k];
    /* the window is exactly one header of the checked size: a read that
    ** fails means damaged headers, never a section of garbage */
    if( tl_bytes_u32e(&s, &p->name) || tl_bytes_u32e(&s, &p->type) ) bErr = 1;
    (void)tl_elf_word(&s, e->b64, &bErr);     /* flags */
    p->addr = tl_elf_word(&s, e->b64, &bErr);
    p->off = tl_elf_word(&s, e->b64, &bErr);
    p->size = tl_elf_word(&s, e->b64, &bErr);
    if( tl_bytes_u32e(&s, &p->link) || tl_bytes_u32e(&s, &u32) ) bErr = 1;   /* link, info */
    (void)tl_elf_word(&s, e->b64, &bErr);     /* addralign */
    p->entsize = tl_elf_word(&s, e->b64, &bErr);
    if( bErr ){
      tl_elf_free(e);
      return tl_err_set(pErr, TL_ECORRUPT, shoff + (uint64_t)k*shentsize,
                        "%s: section header %u cut short", zWhat, k);
    }
  }
  if( elf_segments(e, phoff, phentsize, phnum, pErr) ){
    tl_elf_free(e);
    return pErr->rc;
  }
  return TL_OK;
}

void tl_elf_free(TlElf *e){
  free(e->aSec);
  free(e->aSeg);
  e->aSec = 0; e->nSec = 0;
  e->aSeg = 0; e->nSeg = 0;
}

TlBytes tl_elf_sec(const TlElf *e, uint32_t k){
  const TlElfSec *s;
  if( k>=e->nSec ) return tl_bytes(0, 0, e->b.bo);
  s = &e->aSec[k];
  if( s->type==8 || s->off>e->b.n || s->size>e->b.n - s->off ) return tl_bytes(0, 0, e->b.bo);
  return tl_bytes(e->b.a + s->off, (size_t)s->size, e->b.bo);
}

const char *tl_elf_str(const TlElf *e, uint32_t k, uint64_t i){
  TlBytes s = tl_elf_sec(e, k);
  if( i>=s.n ) return 0;
  if( memchr(s.a + i, 0, s.n - (size_t)i)==0 ) return 0;
  return (const char*)s.a + i;
}

uint32_t tl_elf_find_sec(const TlElf *e, const char *zName){
  uint32_t k;
  for(k=0; k<e->nSec; k++){
    const char *z = tl_elf_str(e, e->iShstr, e->aSec[k].name);
    if( z && strcmp(z, zName)==0 ) return k;
  }
  return UINT32_MAX;
}

int tl_elf_sym_next(const TlElf *e, TlBytes *b, TlElfSym *p){
  int bErr = 0;
  uint32_t u32 = 0;
  TlBytes s;
  /* one whole entry or none: a table whose size is not a multiple of the
  ** entry size ends at its last whole entry */
  if( tl_bytes_sub(b, (size_t)(e->b64 ? 24 : 16), &s) ) return -1;
  if( e->b64 ){
    if( tl_bytes_u32e(&s, &p->nameOff) || tl_bytes_u8(&s, &p->info) || tl_bytes_skip(&s, 1)
     || tl_bytes_u16e(&s, &p->shndx) ) bErr = 1;
    p->value = tl_elf_word(&s, 1, &bErr);
    p->size = tl_elf_word(&s, 1, &bErr);
  }else{
    if( tl_bytes_u32e(&s, &p->nameOff) || tl_bytes_u32e(&s, &u32) ) bErr = 1;
    p->value = u32;
    if( tl_bytes_u32e(&s, &u32) || tl_bytes_u8(&s, &p->info) || tl_bytes_skip(&s, 1)
     || tl_bytes_u16e(&s, &p->shndx) ) bErr = 1;
    p->size = u32;
  }
  return bErr ? -1 : 0;
}

int tl_elf_sym_at(const TlElf *e, uint32_t k, uint64_t i, TlElfSym *pSym){
  TlBytes b = tl_elf_sec(e, k);
  size_t nEnt = e->b64 ? 24 : 16;
  if( i >= b.n / nEnt ) return -1;
  b.i = (size_t)i * nEnt;
  return tl_elf_sym_next(e, &b, pSym);
}

int tl_elf_plt(const TlElf *e, TlElfPlt *pPlt){
  uint32_t kPlt = tl_elf_find_sec(e, ".plt");
  uint32_t kRel = tl_elf_find_sec(e, ".rela.plt");
  const TlElfSec *r;
  memset(pPlt, 0, sizeof(*pPlt));
  if( kRel==UINT32_MAX ) kRel = tl_elf_find_sec(e, ".rel.plt");
  if( kPlt==UINT32_MAX || kRel==UINT32_MAX ) return -1;
  r = &e->aSec[kRel];
  /* the relocations index the dynamic symbol table */
  if( (r->type!=TL_ELF_SHT_RELA && r->type!=TL_ELF_SHT_REL) || r->link>=e->nSec
   || e->aSec[r->link].type!=TL_ELF_SHT_DYNSYM ) return -1;
  pPlt->addr = e->aSec[kPlt].addr;
  switch( e->machine ){
    case 40:  pPlt->hdrsize = 20;  pPlt->entsize = 12; break;   /* ARM */
    case 183: pPlt->hdrsize = 32;  pPlt->entsize = 16; break;   /* AArch64 */
    case 2:   pPlt->hdrsize = 48;  pPlt->entsize = 12; break;   /* SPARC */
    case 43:  pPlt->hdrsize = 128; pPlt->entsize = 32; break;   /* SPARC V9 */
    default:  pPlt->hdrsize = pPlt->entsize = e->aSec[kPlt].entsize; break;
  }
  if( pPlt->entsize==0 ) return -1;
  pPlt->rel = tl_elf_sec(e, kRel);
  pPlt->bRela = r->type==TL_ELF_SHT_RELA;
  pPlt->iDynsym = r->link;
  return 0;
}

int tl_elf_plt_next(const TlElf *e, TlElfPlt *pPlt, uint32_t *piSym){
  /* r_offset, r_info (and r_addend): words of the file's width; the
  ** symbol is r_info's high 32 bits (64-bit) or its high 24 (32-bit) */
  size_t nWord = e->b64 ? 8 : 4;
  TlBytes s;
  int bErr = 0;
  uint64_t info;
  if( tl_bytes_sub(&pPlt->rel, nWord * (pPlt->bRela ? 3 : 2), &s) ) return -1;
  (void)tl_elf_word(&s, e->b64, &bErr);       /* r_offset */
  info = tl_elf_word(&s, e->b64, &bErr);
  if( bErr ) return -1;
  *piSym = (uint32_t)(e->b64 ? info>>32 : info>>8);
  return 0;
}

int tl_elf_off_to_vaddr(const TlElf *e, uint64_t off, uint64_t *pVaddr){
  uint32_t k;
  for(k=0; k<e->nSeg; k++){
    const TlElfSeg *s = &e->aSeg[k];
    if( off>=s->off && off - s->off < s->filesz ){
      *pVaddr = off - s->off + s->vaddr;
      return 0;
    }
  }
  return -1;
}

/* ---- reading the parts of an ELF file that are used ------------------- */

#define ELF_LOAD_CHUNK ((size_t)1<<20)  /* bytes read per pread call */
#define ELF_LOAD_MAX_PARTS 65536        /* ranges kept before merging */

typedef struct ElfPart ElfPart;
struct ElfPart { uint64_t off, end; };

typedef struct ElfLoad ElfLoad;
struct ElfLoad {
  TlSource *pSrc;
  TlWin w;
  uint8_t *a;                     /* the file's size, untouched pages unread */
  ElfPart *aPart; size_t nPart, nPartAlloc;
  uint64_t nRead, nMax;           /* bytes read, and the most that may be */
};

/* Copy [off, off+n) of the file (clipped to it) into l->a. */
static int load_range(ElfLoad *l, uint64_t off, uint64_t n, TlErr *pErr){
  uint64_t nSize = l->pSrc->nSize;
  if( off>=nSize ) return TL_OK;
  if( n > nSize - off ) n = nSize - off;
  if( n > l->nMax - l->nRead ){
    return tl_err_set(pErr, TL_ELIMIT, off, "%s: more than the %llu bytes of an ELF file read",
                      l->pSrc->zPath, (unsigned long long)l->nMax);
  }
  l->nRead += n;
  while( n ){
    size_t k = n < ELF_LOAD_CHUNK ? (size_t)n : ELF_LOAD_CHUNK;
    int rc = tl_win_read_to(&l->w, off, k, l->a + off, pErr);   /* (no copy) */
    if( rc ) return rc;
    off += k;
    n -= k;
  }
  return TL_OK;
}

/* Remember [off, off+n) to read; 0, or -1 when out of memory. */
static int load_want(ElfLoad *l, uint64_t off, uint64_t n){
  if( n==0 || off>=l->pSrc->nSize ) return 0;
  if( l->nPart==l->nPartAlloc ){
    size_t nNew = l->nPartAlloc ? l->nPartAlloc*2 : 64;
    ElfPart *aNew = nNew<=ELF_LOAD_MAX_PARTS ? realloc(l->aPart, nNew*sizeof(ElfPart)) : 0;
    if( aNew==0 ) return -1;
    l->aPart = aNew;
    l->nPartAlloc = nNew;
  }
  l->aPart[l->nPart].off = off;
  l->aPart[l->nPart].end = n > UINT64_MAX - off ? UINT64_MAX : off + n;
  l->nPart++;
  return 0;
}

static int cmp_part(const void *x, const void *y){
  const ElfPart *a = x, *b = y;
  return a->off < b->off ? -1 : a->off > b->off;
}

/* Read the ranges wanted, each byte once. */
static int load_parts(ElfLoad *l, TlErr *pErr){
  size_t i = 0;
  int rc = TL_OK;
  if( l->nPart>1 ) qsort(l->aPart, l->nPart, sizeof(ElfPart), cmp_part);
  while( rc==TL_OK && i<l->nPart ){
    uint64_t off = l->aPart[i].off, end = l->aPart[i].end;
    for(i++; i<l->nPart && l->aPart[i].off<=end; i++){
      if( l->aPart[i].end > end ) end = l->aPart[i].end;
    }
    rc = load_range(l, off, end - off, pErr);
  }
  l->nPart = 0;
  return rc;
}

/* Is section k DWARF that symbols and unwinding do without? */
static int elf_skipped(const TlElf *e, uint32_t k){
  const char *z = tl_elf_str(e, e->iShstr, e->aSec[k].name);
  if( e->aSec[k].type==8 ) return 1;                /* SHT_NOBITS */
  if( z==0 ) return 0;
  if( strncmp(z, ".zdebug_", 8)==0 ) return 1;
  return strncmp(z, ".debug_", 7)==0 && strcmp(z, ".debug_frame")!=0;
}

/* The headers, then every section but skipped ones and every PT_LOAD. */
static int elf_load_parts(ElfLoad *l, TlErr *pErr){
  TlElf e;
  TlErr err;
  TlBytes h;
  uint64_t phoff, shoff;
  uint16_t phentsize, phnum, shentsize, shnum;
  int b64, bErr = 0, rc;
  uint32_t k;
  rc = load_range(l, 0, 64, pErr);
  if( rc ) return rc;
  b64 = l->a[4]==2;
  h = tl_bytes(l->a, 64, l->a[5]==2 ? TL_BE : TL_LE);
  if( tl_bytes_skip(&h, 24) ) return 1;
  (void)tl_elf_word(&h, b64, &bErr);              /* e_entry */
  phoff = tl_elf_word(&h, b64, &bErr);
  shoff = tl_elf_word(&h, b64, &bErr);
  if( bErr || tl_bytes_skip(&h, 6) || tl_bytes_u16e(&h, &phentsize) || tl_bytes_u16e(&h, &phnum)
   || tl_bytes_u16e(&h, &shentsize) || tl_bytes_u16e(&h, &shnum) ) return 1;
  if( load_want(l, phoff, (uint64_t)phentsize*phnum) || load_want(l, shoff, (uint64_t)shentsize*shnum) ){
    return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  rc = load_parts(l, pErr);
  tl_err_clear(&err);
  if( rc || tl_elf_parse(&e, l->a, (size_t)l->pSrc->nSize, l->pSrc->zPath, &err) ) return rc ? rc : 1;
  if( e.iShstr<e.nSec ){
    rc = load_range(l, e.aSec[e.iShstr].off, e.aSec[e.iShstr].size, pErr);
  }
  for(k=0; rc==TL_OK && k<e.nSec; k++){
    if( k!=e.iShstr && !elf_skipped(&e, k) && load_want(l, e.aSec[k].off, e.aSec[k].size) ){
      rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }
  }
  for(k=0; rc==TL_OK && k<e.nSeg; k++){
    if( load_want(l, e.aSeg[k].off, e.aSeg[k].filesz) ){
      rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }
  }
  tl_elf_free(&e);
  return rc ? rc : load_parts(l, pErr);
}

int tl_elf_load(TlSource *p, uint64_t nMax, TlErr *pErr){
  ElfLoad l;
  TlBytes b;
  int rc;
  if( p->aMap ) return TL_OK;
  memset(&l, 0, sizeof(l));
  l.pSrc = p;
  l.nMax = nMax;
  tl_win_init(&l.w, p);
  rc = tl_win_read(&l.w, 0, 64, TL_LE, &b, pErr);
  if( rc==TL_OK && (b.n<64 || memcmp(b.a, "\177ELF", 4) || p->nSize > TL_ELF_MAX_VSIZE) ){
    tl_win_free(&l.w);
    return tl_source_load(p, nMax, pErr);         /* not ELF, or huge: as a whole */
  }
  if( rc==TL_OK ){
    l.a = tl_big_alloc((size_t)p->nSize);
    if( l.a==0 ) rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  if( rc==TL_OK ) rc = elf_load_parts(&l, pErr);
  if( rc==1 ){                                    /* damaged headers: as a whole, for its error */
    tl_big_free(l.a, (size_t)p->nSize);
    l.a = 0;
    rc = tl_source_load(p, nMax, pErr);
  }
  if( rc==TL_OK && l.a ) rc = tl_source_check(p, pErr);
  tl_win_free(&l.w);
  free(l.aPart);
  if( rc ){
    if( l.a ) tl_big_free(l.a, (size_t)p->nSize);
    return rc;
  }
  if( l.a ){
    (void)mprotect(l.a, (size_t)p->nSize, PROT_READ);
    p->aMap = l.a;                                /* tl_big_free() at close */
    p->pOwn = l.a;
    p->bMapped = TL_SOURCE_BIG;
  }
  return TL_OK;
}
