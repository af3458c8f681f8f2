/*
** xray_map.c: the XRay instrumentation map of an ELF binary, and the
** names of its functions.
**
** ELF (System V gABI), 32 or 64 bits, either byte order: the section
** headers, the section named "xray_instr_map" and the symbol tables
** (.symtab, else .dynsym). The map is an array of sleds:
**
**   64-bit, 32 bytes: u64 address; u64 function; u8 kind; u8 always_instrument;
**                     u8 version; u8 pad[13];
**   32-bit, 16 bytes: u32 address; u32 function; u8 kind; u8 always_instrument;
**                     u8 version; u8 pad[5];
**
** From sled version 2 the addresses are relative to the field that holds
** them; before, a position-independent binary has them filled in by RELATIVE
** relocations (REL or RELA sections), which are applied here. Function ids are given as llvm-xray gives them: 1 for the function
** of the first sled, and one more each time the sled's function differs
** from the previous sled's. Kinds: 0 function-enter, 1 function-exit,
** 2 tail-exit, 3 log-args-enter, 4 custom-event, 5 typed-event.
**
** Names come from the symbol whose value is the function's address,
** demangled as llvm-xray demangles them (model_demangle.h).
*/
#include "xray_int.h"
#include "elf.h"
#include "model_demangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XM_MAX_SLEDS (1u<<24)

/* as llvm-xray extract names them (it has no name for 5, typed-event) */
static const char *const azSledKind[] = {
  "function-enter", "function-exit", "tail-exit", "log-args-enter",
  "custom-event", "typed-event"
};

const char *xray_sled_kind(unsigned k){
  return k<6 ? azSledKind[k] : 0;
}

/* ---- ELF (src/elf.c) ------------------------------------------------------ */

/* The RELATIVE relocation type of the machine, or 0 if not known. */
static uint32_t relative_type(uint16_t machine){
  switch( machine ){
    case 62:  return 8;            /* x86-64: R_X86_64_RELATIVE */
    case 3:   return 8;            /* i386: R_386_RELATIVE */
    case 183: return 1027;         /* AArch64: R_AARCH64_RELATIVE */
    case 40:  return 23;           /* ARM: R_ARM_RELATIVE */
    case 21:  return 22;           /* PowerPC64: R_PPC64_RELATIVE */
    default:  return 0;
  }
}

/*
** In a position-independent binary, sleds of versions 0 and 1 hold absolute
** addresses that the dynamic loader fills in from RELATIVE relocations:
** apply those that land in the map section to a copy of it (*paCopy, to be
** freed). Returns TL_OK with *paCopy NULL when nothing applies.
*/
static int apply_relocations(const TlElf *e, uint32_t iMap, uint8_t **paCopy, TlErr *pErr){
  const TlElfSec *m = &e->aSec[iMap];
  TlBytes map = tl_elf_sec(e, iMap);
  uint32_t k, rel = relative_type(e->machine);
  size_t szField = e->b64 ? 8 : 4;
  *paCopy = 0;
  if( rel==0 || map.n<szField ) return TL_OK;
  for(k=0; k<e->nSec; k++){
    const TlElfSec *r = &e->aSec[k];
    TlBytes b;
    int bRela = r->type==4;
    size_t szEnt = e->b64 ? (bRela ? 24 : 16) : (bRela ? 12 : 8);
    if( r->type!=4 && r->type!=9 ) continue;    /* SHT_RELA, SHT_REL */
    b = tl_elf_sec(e, k);
    while( tl_bytes_left(&b)>=szEnt ){
      int bErr = 0;
      uint64_t off = tl_elf_word(&b, e->b64, &bErr);
      uint64_t info = tl_elf_word(&b, e->b64, &bErr);
      uint64_t addend = 0, iField;
      uint32_t type = (uint32_t)(e->b64 ? (info & 0xFFFFFFFFu) : (info & 0xFFu));
      if( bRela ) addend = tl_elf_word(&b, e->b64, &bErr);
      if( bErr || type!=rel || off<m->addr || off - m->addr > map.n - szField ) continue;
      iField = off - m->addr;
      if( *paCopy==0 ){
        *paCopy = malloc(map.n);
        if( *paCopy==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
        memcpy(*paCopy, map.a, map.n);
      }
      if( !bRela ){                         /* REL: the addend is in place */
        addend = e->b64 ? tl_load_u64_unchecked(*paCopy + iField, map.bo)
                        : tl_load_u32_unchecked(*paCopy + iField, map.bo);
      }
      {
        int i;
        for(i=0; i<(int)szField; i++){
          int sh = map.bo==TL_LE ? 8*i : 8*((int)szField-1-i);
          (*paCopy)[iField + (size_t)i] = (uint8_t)(addend >> sh);
        }
      }
    }
  }
  return TL_OK;
}

static int cmp_func_addr(const void *x, const void *y){
  uint64_t a = ((const XrFunc*)x)->addr, b = ((const XrFunc*)y)->addr;
  return a<b ? -1 : a>b;
}

/* Name functions from a symbol table section (type 2 SYMTAB or 11 DYNSYM). */
static int name_from_symtab(const TlElf *e, XrMap *m, uint32_t iSym, TlErr *pErr){
  const TlElfSec *s = &e->aSec[iSym];
  TlBytes b = tl_elf_sec(e, iSym);
  TlElfSym sym;
  XrFunc *aSorted;
  int i;
  if( m->nFunc==0 ) return TL_OK;
  aSorted = malloc((size_t)(m->nFunc ? m->nFunc : 1)*sizeof(XrFunc));
  if( aSorted==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  memcpy(aSorted, m->aFunc, (size_t)m->nFunc*sizeof(XrFunc));
  for(i=0; i<m->nFunc; i++) aSorted[i].id = i;           /* index back into aFunc */
  qsort(aSorted, (size_t)m->nFunc, sizeof(XrFunc), cmp_func_addr);
  while( tl_elf_sym_next(e, &b, &sym)==0 ){
    uint32_t nameOff = sym.nameOff;
    uint64_t value = sym.value;
    int lo = 0, hi = m->nFunc;
    if( (sym.info & 15)!=TL_ELF_STT_FUNC || value==0 ) continue;
    while( lo<hi ){
      int mid = (lo+hi)/2;
      if( aSorted[mid].addr<value ) lo = mid+1; else hi = mid;
    }
    while( lo<m->nFunc && aSorted[lo].addr==value ){
      XrFunc *f = &m->aFunc[aSorted[lo].id];
      const char *zSym = tl_elf_str(e, s->link, nameOff);
      if( f->zName==0 && zSym ){
        f->zName = tl_demangle_llvm(zSym);
        if( f->zName==0 ){ free(aSorted); return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); }
      }
      lo++;
    }
  }
  free(aSorted);
  return TL_OK;
}

void xray_map_free(XrMap *m){
  int i;
  if( m==0 ) return;
  for(i=0; i<m->nFunc; i++) free(m->aFunc[i].zName);
  free(m->aFunc);
  memset(m, 0, sizeof(*m));
}

int xray_map_parse(const uint8_t *a, size_t n, const char *zPath, XrMap *m, TlErr *pErr){
  TlElf e;
  TlBytes sled;
  uint32_t k, iMap = UINT32_MAX;
  size_t szSled;
  uint64_t curFn = 0;
  int32_t funcId = 1;
  int rc, nAlloc = 0;
  uint8_t *aRelocated = 0;
  memset(m, 0, sizeof(*m));
  rc = tl_elf_parse(&e, a, n, zPath, pErr);
  if( rc ) goto load_done;
  for(k=0; k<e.nSec; k++){
    const char *z = tl_elf_str(&e, e.iShstr, e.aSec[k].name);
    if( z && strcmp(z, "xray_instr_map")==0 ){ iMap = k; break; }
  }
  if( iMap==UINT32_MAX ){
    rc = tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
        "binary %s has no xray_instr_map section: not built with -fxray-instrument", zPath);
    goto load_done;
  }
  szSled = e.b64 ? 32 : 16;
  sled = tl_elf_sec(&e, iMap);
  rc = apply_relocations(&e, iMap, &aRelocated, pErr);
  if( rc ) goto load_done;
  if( aRelocated ) sled = tl_bytes(aRelocated, sled.n, sled.bo);
  if( sled.n % szSled ){
    tl_err_set(pErr, TL_ECORRUPT, e.aSec[iMap].off, "binary %s: xray_instr_map of %zu bytes is not a whole number of %zu-byte sleds",
               zPath, sled.n, szSled);
    rc = TL_ECORRUPT;
    goto load_done;
  }
  if( sled.n/szSled > XM_MAX_SLEDS ){
    rc = tl_err_set(pErr, TL_ECORRUPT, e.aSec[iMap].off, "binary %s: more than %u sleds", zPath, XM_MAX_SLEDS);
    goto load_done;
  }
  for(k=0; (size_t)k < sled.n/szSled; k++){
    TlBytes s = tl_bytes(sled.a + (size_t)k*szSled, szSled, sled.bo);
    int bErr = 0;
    uint64_t addr = tl_elf_word(&s, e.b64, &bErr);
    uint64_t fn = tl_elf_word(&s, e.b64, &bErr);
    uint8_t kind = 0, always = 0, version = 0;
    uint64_t here = e.aSec[iMap].addr + (uint64_t)k*szSled;
    XrFunc *f;
    if( tl_bytes_u8(&s, &kind) || tl_bytes_u8(&s, &always) || tl_bytes_u8(&s, &version) || bErr ){
      /* a guard: a sled of szSled bytes holds its two words and three bytes */
      rc = tl_err_set(pErr, TL_ECORRUPT, e.aSec[iMap].off + (uint64_t)k*szSled,
                      "binary %s: sled %d is shorter than its fields", zPath, k);
      goto load_done;
    }
    if( version>=2 ){
      addr += here;
      fn += here + (e.b64 ? 8 : 4);
      if( !e.b64 ){ addr &= 0xFFFFFFFFu; fn &= 0xFFFFFFFFu; }
    }
    if( curFn==0 ) curFn = fn;
    if( fn!=curFn ){ funcId++; curFn = fn; }
    if( m->nFunc==0 || m->aFunc[m->nFunc-1].id!=funcId ){
      if( m->nFunc==nAlloc ){
        int nNew = nAlloc ? nAlloc*2 : 32;
        XrFunc *aNew = realloc(m->aFunc, (size_t)nNew*sizeof(XrFunc));
        if( aNew==0 ){ rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); goto load_done; }
        m->aFunc = aNew;
        nAlloc = nNew;
      }
      f = &m->aFunc[m->nFunc++];
      memset(f, 0, sizeof(*f));
      f->id = funcId;
      f->addr = fn;
    }
    f = &m->aFunc[m->nFunc-1];
    f->nSleds++;
    if( kind<32 ) f->mKinds |= 1u<<kind;
    if( always ) f->bAlways = 1;
  }
  /* names: .symtab, then .dynsym for what is left */
  for(k=0; k<e.nSec && rc==TL_OK; k++) if( e.aSec[k].type==TL_ELF_SHT_SYMTAB ) rc = name_from_symtab(&e, m, k, pErr);
  for(k=0; k<e.nSec && rc==TL_OK; k++) if( e.aSec[k].type==TL_ELF_SHT_DYNSYM ) rc = name_from_symtab(&e, m, k, pErr);

load_done:
  tl_elf_free(&e);
  free(aRelocated);
  if( rc ) xray_map_free(m);
  return rc;
}

/* The start of the value of "key: " in a YAML flow-mapping line [z, zEnd),
** or NULL. */
static const char *yaml_find(const char *z, const char *zEnd, const char *zKey){
  size_t nKey = strlen(zKey);
  const char *p = z;
  while( (size_t)(zEnd - p) >= nKey + 2 ){
    if( memcmp(p, zKey, nKey)==0 && p[nKey]==':' && p[nKey+1]==' '
     && (p==z || p[-1]==' ' || p[-1]=='{') ){
      return p + nKey + 2;
    }
    p++;
  }
  return 0;
}

/* The value of "key: " (plain, or single-quoted with '' for a quote) in a
** YAML flow-mapping line [z, zEnd), appended to pOut, of any length. */
static int yaml_string(const char *z, const char *zEnd, const char *zKey, TlStr *pOut){
  const char *p = yaml_find(z, zEnd, zKey), *q;
  if( p==0 ) return -1;
  if( p<zEnd && *p=='\'' ){
    for(p++; p<zEnd; p = q + 1){
      q = memchr(p, '\'', (size_t)(zEnd - p));
      if( q==0 ) q = zEnd;
      tl_str_append(pOut, p, (size_t)(q - p));
      if( q+1>=zEnd || q[1]!='\'' ) break;
      tl_str_appendc(pOut, '\'');
      q++;
    }
  }else{
    for(q=p; q<zEnd && *q!=',' && *q!=' ' && *q!='}'; q++){}
    tl_str_append(pOut, p, (size_t)(q - p));
  }
  return 0;
}

/* The value of "key: " in a YAML flow-mapping line [z, zEnd), into zOut
** (cut to nOut-1 bytes: for short fields). */
static int yaml_value(const char *z, const char *zEnd, const char *zKey,
                      char *zOut, size_t nOut){
  TlStr o;
  int rc;
  tl_str_init(&o);
  rc = yaml_string(z, zEnd, zKey, &o);
  if( rc==0 ){
    size_t n = o.bErr ? 0 : o.n < nOut ? o.n : nOut - 1;
    if( n ) memcpy(zOut, o.z, n);
    zOut[n] = 0;
  }
  tl_str_free(&o);
  return rc;
}

/*
** An instrumentation map as `llvm-xray extract` writes it (YAML, one sled
** per line: id, address, function, kind, always-instrument, function-name),
** which llvm-xray also accepts in place of the binary.
*/
static int map_parse_yaml(const uint8_t *a, size_t n, const char *zPath, XrMap *m, TlErr *pErr){
  const char *z = (const char*)a, *zEnd = z + n;
  int nAlloc = 0;
  while( z<zEnd ){
    const char *zEol = memchr(z, '\n', (size_t)(zEnd - z));
    char zId[32], zFn[32], zKind[32], zAlways[16];
    long id;
    XrFunc *f;
    unsigned k;
    if( zEol==0 ) zEol = zEnd;
    if( zEol - z > 3 && memcmp(z, "- {", 3)==0
     && yaml_value(z, zEol, "id", zId, sizeof(zId))==0
     && yaml_value(z, zEol, "function", zFn, sizeof(zFn))==0
     && yaml_value(z, zEol, "kind", zKind, sizeof(zKind))==0 ){
      id = strtol(zId, 0, 10);
      if( id<1 || id>(long)XM_MAX_SLEDS ){
        xray_map_free(m);
        return tl_err_set(pErr, TL_ECORRUPT, (uint64_t)(z - (const char*)a),
                          "%s: function id %s is outside 1..%u", zPath, zId, XM_MAX_SLEDS);
      }
      if( m->nFunc==0 || m->aFunc[m->nFunc-1].id!=(int32_t)id ){
        if( id!=m->nFunc+1 ){
          xray_map_free(m);
          return tl_err_set(pErr, TL_ECORRUPT, (uint64_t)(z - (const char*)a),
                            "%s: expected function id %d next, found %ld", zPath, m->nFunc+1, id);
        }
        if( m->nFunc==nAlloc ){
          int nNew = nAlloc ? nAlloc*2 : 32;
          XrFunc *aNew = realloc(m->aFunc, (size_t)nNew*sizeof(XrFunc));
          if( aNew==0 ){ xray_map_free(m); return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); }
          m->aFunc = aNew;
          nAlloc = nNew;
        }
        f = &m->aFunc[m->nFunc++];
        memset(f, 0, sizeof(*f));
        f->id = (int32_t)id;
        f->addr = strtoull(zFn, 0, 0);
        {
          TlStr name;
          tl_str_init(&name);
          if( yaml_string(z, zEol, "function-name", &name)==0 && name.n ){
            f->zName = name.bErr ? 0 : tl_strndup(name.z, name.n);
            if( f->zName==0 ){
              tl_str_free(&name);
              xray_map_free(m);
              return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
            }
          }
          tl_str_free(&name);
        }
      }
      f = &m->aFunc[m->nFunc-1];
      f->nSleds++;
      for(k=0; k<6; k++) if( strcmp(zKind, azSledKind[k])==0 ) f->mKinds |= 1u<<k;
      if( yaml_value(z, zEol, "always-instrument", zAlways, sizeof(zAlways))==0
       && strcmp(zAlways, "true")==0 ) f->bAlways = 1;
    }
    z = zEol + 1;
  }
  if( m->nFunc==0 ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
        "%s: expected an ELF binary (binary=) or an llvm-xray extract map", zPath);
  }
  return TL_OK;
}

int xray_map_load(const char *zPath, int bMap, XrMap *m, TlErr *pErr){
  TlSource *pSrc = 0;
  TlErr err;
  TlWin w;
  TlBytes b;
  int rc, bElf;
  memset(m, 0, sizeof(*m));
  tl_err_clear(&err);
  rc = tl_source_open(zPath, &pSrc, &err);
  if( rc ) return tl_err_set(pErr, rc, TL_NO_OFFSET, "binary %s: %s", zPath, err.zMsg);
  /* the kind first, from 4 bytes: a map in text is read whole only under
  ** its own cap, so a huge file of anything else fails at once */
  tl_win_init(&w, pSrc);
  rc = tl_win_read(&w, 0, 4, TL_LE, &b, &err);
  bElf = rc==TL_OK && b.n>=4 && memcmp(b.a, "\177ELF", 4)==0;
  tl_win_free(&w);
  if( rc==TL_OK && bMap ) (void)tl_source_map(pSrc);
  if( rc==TL_OK ){
    rc = bElf ? tl_elf_load(pSrc, TL_WIN_MAX, &err) : tl_source_load(pSrc, XR_MAP_TEXT_MAX, &err);
  }
  if( rc ){
    tl_source_close(pSrc);
    return tl_err_set(pErr, rc, TL_NO_OFFSET, "binary %s: %s", zPath, err.zMsg);
  }
  if( pSrc->aMap==0 ){
    rc = tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "binary %s: the file is empty", zPath);
  }else if( bElf ){
    rc = xray_map_parse(pSrc->aMap, (size_t)pSrc->nSize, zPath, m, pErr);
  }else{
    rc = map_parse_yaml(pSrc->aMap, (size_t)pSrc->nSize, zPath, m, pErr);
  }
  tl_source_close(pSrc);
  return rc;
}



const XrFunc *xray_map_func(const XrMap *m, int32_t id){
  /* ids are consecutive from 1 in aFunc */
  if( id<1 || id>m->nFunc || m->aFunc[id-1].id!=id ) return 0;
  return &m->aFunc[id-1];
}
