/*
** ctf2_meta.c: CTF 2 metadata (a JSON text sequence) to the trace model.
**
** The metadata is a sequence of JSON objects ("fragments"), each preceded
** by the record separator 0x1E: a preamble (version 2), then the trace
** class, clock classes, data stream classes, event record classes and
** field class aliases. Each fragment is parsed (json.c) and turned into
** the same model the TSDL parser makes (ctf_model.h), so that decoding,
** the index and every table work on both versions unchanged.
**
** Field classes become model nodes: fixed-length bit arrays, integers
** (with mappings: enums), booleans and bit maps are TL_CTF_INT/ENUM;
** variable-length integers TL_CTF_VARINT; the three kinds of strings
** TL_CTF_STRING (eLength, nCharBytes); BLOBs TL_CTF_BLOB; optionals
** TL_CTF_OPTIONAL; variants choose their option by integer ranges. Field
** locations (origin + path, or a path relative to the enclosing
** structure, where null means "the parent") are resolved here to member
** index paths, as the TSDL parser resolves its references.
**
** Also read: the release candidate that Trace Compass's CTF 2 test traces
** follow (clock "name", "default-clock-class-name", fixed-length
** enumeration types, locations as [origin, names...]).
*/
#include "ctf/ctf2_meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "ctf/tsdl_parse.h"
#include "json.h"
#include "str.h"

#define C2_MAX_FRAMES  64         /* nested structures in one scope */
#define C2_MAX_DEPTH   64         /* nested field classes */
#define C2_MAX_ALIASES 65536

typedef struct C2Frame C2Frame;
struct C2Frame {
  TlCtfField *f;                  /* a structure being built */
  int nDone;                      /* its members converted so far */
  const char *zCur;               /* the member being converted */
};

typedef struct C2Alias C2Alias;
struct C2Alias { const char *zName; const TlJv *pFc; };

typedef struct C2 C2;
struct C2 {
  TlErr *pErr;
  TlCtfModel *m;
  C2Alias *aAlias; int nAlias, nAliasAlloc;
  int iScope;                     /* scope being converted */
  int iClock;                     /* the data stream class's clock, or -1 */
  C2Frame aFrame[C2_MAX_FRAMES]; int nFrame;
  const TlCtfField *aRoot[TL_CTF_NSCOPE];   /* finished scopes */
  int nDepth;
  int bTraceClass;                /* the trace class was read */
};

static int c2_err(C2 *c, const TlJv *v, const char *zFmt, const char *zArg){
  if( c->pErr->rc ) return c->pErr->rc;
  return tl_err_set(c->pErr, TL_ECORRUPT, v ? v->iOff : TL_NO_OFFSET, zFmt, zArg ? zArg : "");
}

static int c2_oom(C2 *c){
  if( c->pErr->rc ) return c->pErr->rc;
  return tl_err_set(c->pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
}

static char *c2_dup(const char *z){
  size_t n = strlen(z);
  char *p = malloc(n + 1);
  if( p ) memcpy(p, z, n + 1);
  return p;
}

/* The scope a location origin names, or -1. */
static int c2_origin(const char *z){
  static const char *const az[TL_CTF_NSCOPE] = {
    "packet-header", "packet-context", "event-record-header",
    "event-record-common-context", "event-record-specific-context", "event-record-payload",
  };
  int i;
  for(i=0; i<TL_CTF_NSCOPE; i++) if( strcmp(z, az[i])==0 ) return i;
  return -1;
}

/* Index of the member named z among the first n of struct f, or -1. */
static int c2_member(const TlCtfField *f, int n, const char *z){
  int i;
  for(i=0; i<n && i<f->nMember; i++) if( f->aMember[i].zName && strcmp(f->aMember[i].zName, z)==0 ) return i;
  return -1;
}

/* Through arrays and optionals to what they hold. */
static const TlCtfField *c2_through(const TlCtfField *f){
  int k = 0;
  while( f && (f->eKind==TL_CTF_ARRAY || f->eKind==TL_CTF_SEQUENCE || f->eKind==TL_CTF_OPTIONAL) && k++<C2_MAX_DEPTH ){
    f = f->pElem;
  }
  return f;
}

/*
** Resolve a field location to a reference: {"origin": O, "path": [...]}
** (absolute from scope O's root), {"path": [...]} (relative to the
** structure holding the field, null going to its parent), or the release
** candidate's [O, name, ...]. The walk keeps a stack of where it is: a
** structure still being built (a frame: only its members before the one
** being converted exist) or a finished field. Through a variant, a name
** is looked up in every option (the reference's -1 marker, then one index
** per option), as the TSDL parser does for CTF 1.8.
*/
#define C2_MAX_PATH (C2_MAX_FRAMES*4)
static int c2_location(C2 *c, const TlJv *loc, TlCtfRef *pRef){
  const TlJv *e;
  int iScope, nPath = 0, nStack = 0, aPath[C2_MAX_PATH], nEl = 0, iEl;
  const TlJv *aEl[C2_MAX_PATH];
  const TlCtfField *aAt[C2_MAX_PATH];   /* finished field at each level, or NULL */
  int aFrame[C2_MAX_PATH];              /* frame index at each level (aAt NULL) */
  int aPathLen[C2_MAX_PATH];            /* nPath when the level was entered */
  const TlCtfField *pTarget;
  if( loc==0 ) return c2_err(c, 0, "a dynamic field class without its field location%s", 0);
  if( loc->eType==TL_JV_ARRAY ){
    if( loc->pFirst==0 || loc->pFirst->eType!=TL_JV_STRING ) return c2_err(c, loc, "expected a field location%s", 0);
    iScope = c2_origin(loc->pFirst->z);
    if( iScope<0 ) return c2_err(c, loc, "unknown field location origin \"%s\"", loc->pFirst->z);
    e = loc->pFirst->pNext;
  }else{
    const TlJv *o = tl_jv_get(loc, "origin"), *path = tl_jv_get(loc, "path");
    if( path==0 || path->eType!=TL_JV_ARRAY ) return c2_err(c, loc, "expected a field location path%s", 0);
    e = path->pFirst;
    iScope = -1;                  /* relative */
    if( o && (o->eType!=TL_JV_STRING || (iScope = c2_origin(o->z))<0) ){
      return c2_err(c, o, "unknown field location origin \"%s\"", o->eType==TL_JV_STRING ? o->z : "?");
    }
  }
  if( iScope>=0 && iScope!=c->iScope ){
    if( iScope>c->iScope || c->aRoot[iScope]==0 ){
      return c2_err(c, loc, "the field location names a scope after this one, or one that is absent%s", 0);
    }
    aAt[0] = c->aRoot[iScope];    /* another scope, finished */
    aPathLen[0] = 0;
    nStack = 1;
  }else{
    int k, kTop = iScope>=0 ? 0 : c->nFrame - 1;
    if( c->nFrame==0 ) return c2_err(c, loc, "bad field location%s", 0);
    for(k=0; k<=kTop; k++){
      aAt[k] = 0;
      aFrame[k] = k;
      aPathLen[k] = k;          /* the path to frame k: the members being built above it */
      if( k<kTop ) aPath[nPath++] = c->aFrame[k].nDone;
    }
    nStack = kTop + 1;
    iScope = c->iScope;
  }
  /* A name followed by null cancels out, whether or not it exists (as
  ** yactfr reads yactfr's pass-rel-data-loc-5): normalize first. */
  for(; e; e=e->pNext){
    if( e->eType==TL_JV_NULL && nEl>0 && aEl[nEl-1]->eType!=TL_JV_NULL ){ nEl--; continue; }
    if( nEl>=C2_MAX_PATH ) return c2_err(c, e, "field location too long%s", 0);
    aEl[nEl++] = e;
  }
  for(iEl=0; iEl<nEl; iEl++){
    const TlCtfField *f;
    int j;
    e = aEl[iEl];
    if( e->eType==TL_JV_NULL ){
      if( nStack<=1 ) return c2_err(c, e, "the field location goes above its scope's root%s", 0);
      nStack--;
      nPath = aPathLen[nStack-1];
      continue;
    }
    if( e->eType!=TL_JV_STRING || nStack>=C2_MAX_PATH || nPath + 1 + C2_MAX_FRAMES > C2_MAX_PATH ){
      return c2_err(c, e, "bad field location path element%s", 0);
    }
    f = aAt[nStack-1];
    if( f==0 ){
      /* a structure being built */
      const C2Frame *fr = &c->aFrame[aFrame[nStack-1]];
      j = c2_member(fr->f, fr->nDone, e->z);
      if( j>=0 ){
        aPath[nPath++] = j;
        aPathLen[nStack] = nPath;
        aAt[nStack++] = c2_through(fr->f->aMember[j].pType);
      }else if( fr->zCur && strcmp(fr->zCur, e->z)==0 && aFrame[nStack-1]+1<c->nFrame ){
        aPath[nPath++] = fr->nDone;
        aPathLen[nStack] = nPath;
        aFrame[nStack] = aFrame[nStack-1] + 1;
        aAt[nStack++] = 0;
      }else{
        return c2_err(c, e, "the field location names \"%s\", not found before the field", e->z);
      }
    }else if( f->eKind==TL_CTF_STRUCT ){
      if( (j = c2_member(f, f->nMember, e->z))<0 ){
        return c2_err(c, e, "the field location names \"%s\", which is not there", e->z);
      }
      aPath[nPath++] = j;
      aPathLen[nStack] = nPath;
      aAt[nStack++] = c2_through(f->aMember[j].pType);
    }else if( f->eKind==TL_CTF_VARIANT ){
      /* -1, then the member's index in each option (-1 where it has none) */
      const TlCtfField *pNext = 0;
      int k;
      if( nPath + 1 + f->nMember > C2_MAX_PATH ) return c2_err(c, e, "field location too long%s", 0);
      aPath[nPath++] = -1;
      for(k=0; k<f->nMember; k++){
        const TlCtfField *o = c2_through(f->aMember[k].pType);
        j = o && o->eKind==TL_CTF_STRUCT ? c2_member(o, o->nMember, e->z) : -1;
        aPath[nPath++] = j;
        if( j>=0 && pNext==0 ) pNext = c2_through(o->aMember[j].pType);
      }
      if( pNext==0 ) return c2_err(c, e, "the field location names \"%s\", in no option of the variant", e->z);
      aPathLen[nStack] = nPath;
      aAt[nStack++] = pNext;
    }else{
      return c2_err(c, e, "the field location names \"%s\" inside a field that has no members", e->z);
    }
  }
  pTarget = aAt[nStack-1];
  if( pTarget==0 ) return c2_err(c, loc, "the field location does not name a field%s", 0);
  if( pTarget->eKind!=TL_CTF_INT && pTarget->eKind!=TL_CTF_ENUM && pTarget->eKind!=TL_CTF_VARINT ){
    return c2_err(c, loc, "the field location names a field that is not an integer or boolean%s", 0);
  }
  pRef->iScope = iScope;
  pRef->nPath = nPath;
  pRef->aPath = malloc(sizeof(int)*(size_t)(nPath ? nPath : 1));
  if( pRef->aPath==0 ) return c2_oom(c);
  memcpy(pRef->aPath, aPath, sizeof(int)*(size_t)nPath);
  return TL_OK;
}

/* Integer ranges [[lo, hi], ...] into *paRange (labels NULL). */
static int c2_ranges(C2 *c, const TlJv *v, int bSigned, TlCtfRange **paRange, int *pn, const char *zLabel){
  const TlJv *r;
  int n = 0;
  TlCtfRange *a;
  if( v==0 || v->eType!=TL_JV_ARRAY ) return c2_err(c, v, "expected integer ranges%s", 0);
  a = realloc(*paRange, sizeof(TlCtfRange)*((size_t)*pn + v->nChild + 1));
  if( a==0 ) return c2_oom(c);
  *paRange = a;
  for(r=v->pFirst; r; r=r->pNext){
    TlCtfRange *x = &a[*pn + n];
    const TlJv *lo = r->eType==TL_JV_ARRAY ? r->pFirst : 0, *hi = lo ? lo->pNext : 0;
    int64_t i;
    if( lo==0 || hi==0 || hi->pNext ) return c2_err(c, r, "expected an integer range [lower, upper]%s", 0);
    memset(x, 0, sizeof(*x));
    if( tl_jv_int(lo, &i)==0 && (bSigned || i>=0) ) x->lo = (uint64_t)i;
    else if( !bSigned && tl_jv_uint(lo, &x->lo)==0 ) {}
    else return c2_err(c, lo, "range bound out of range%s", 0);
    if( tl_jv_int(hi, &i)==0 && (bSigned || i>=0) ) x->hi = (uint64_t)i;
    else if( !bSigned && tl_jv_uint(hi, &x->hi)==0 ) {}
    else return c2_err(c, hi, "range bound out of range%s", 0);
    if( zLabel && (x->zLabel = c2_dup(zLabel))==0 ) return c2_oom(c);
    n++;
  }
  *pn += n;
  return TL_OK;
}

static int c2_uint_prop(C2 *c, const TlJv *o, const char *zKey, uint64_t dflt, uint64_t *pV){
  const TlJv *v = tl_jv_get(o, zKey);
  if( v==0 ){ *pV = dflt; return TL_OK; }
  if( tl_jv_uint(v, pV) ) return c2_err(c, v, "expected a non-negative integer for \"%s\"", zKey);
  return TL_OK;
}

/* Roles of a field class, for the scope being converted. */
static int c2_roles(C2 *c, const TlJv *o, TlCtfField *f){
  static const struct { int iScope; const char *z; int eRole; } aMap[] = {
    { TL_CTF_SCOPE_PKT_HEADER,  "packet-magic-number", TL_CTF_ROLE_MAGIC },
    { TL_CTF_SCOPE_PKT_HEADER,  "data-stream-class-id", TL_CTF_ROLE_SC_ID },
    { TL_CTF_SCOPE_PKT_HEADER,  "data-stream-id", TL_CTF_ROLE_STREAM_ID },
    { TL_CTF_SCOPE_PKT_HEADER,  "metadata-stream-uuid", TL_CTF_ROLE_UUID },
    { TL_CTF_SCOPE_PKT_CONTEXT, "packet-total-length", TL_CTF_ROLE_PKT_SIZE },
    { TL_CTF_SCOPE_PKT_CONTEXT, "packet-content-length", TL_CTF_ROLE_CONTENT },
    { TL_CTF_SCOPE_PKT_CONTEXT, "default-clock-timestamp", TL_CTF_ROLE_TS_BEGIN },
    { TL_CTF_SCOPE_PKT_CONTEXT, "packet-end-default-clock-timestamp", TL_CTF_ROLE_TS_END },
    { TL_CTF_SCOPE_PKT_CONTEXT, "discarded-event-record-counter-snapshot", TL_CTF_ROLE_DISCARDED },
    { TL_CTF_SCOPE_PKT_CONTEXT, "packet-sequence-number", TL_CTF_ROLE_SEQ },
    { TL_CTF_SCOPE_EV_HEADER,   "event-record-class-id", TL_CTF_ROLE_ID },
    { TL_CTF_SCOPE_EV_HEADER,   "default-clock-timestamp", TL_CTF_ROLE_CLOCK },
  };
  const TlJv *r = tl_jv_get(o, "roles"), *e;
  size_t k;
  if( r==0 ) return TL_OK;
  if( r->eType!=TL_JV_ARRAY ) return c2_err(c, r, "expected an array of roles%s", 0);
  for(e=r->pFirst; e; e=e->pNext){
    if( e->eType!=TL_JV_STRING ) return c2_err(c, e, "expected a role name%s", 0);
    for(k=0; k<sizeof(aMap)/sizeof(aMap[0]); k++){
      if( aMap[k].iScope==c->iScope && strcmp(aMap[k].z, e->z)==0 ){
        f->eRole = aMap[k].eRole;
        if( (f->eRole==TL_CTF_ROLE_CLOCK || f->eRole==TL_CTF_ROLE_TS_BEGIN || f->eRole==TL_CTF_ROLE_TS_END) ){
          f->iClock = c->iClock;
        }
      }
    }
  }
  return TL_OK;
}

static int c2_byte_order(C2 *c, const TlJv *o, TlCtfField *f){
  const TlJv *bo = tl_jv_get(o, "byte-order"), *bit = tl_jv_get(o, "bit-order");
  if( bo==0 ) return c2_err(c, o, "a fixed-length field class without a byte order%s", 0);
  if( tl_jv_is(bo, "big-endian") ) f->bo = TL_BE;
  else if( tl_jv_is(bo, "little-endian") ) f->bo = TL_LE;
  else return c2_err(c, bo, "unknown byte order%s", 0);
  if( bit ){
    int bFirst;
    if( tl_jv_is(bit, "first-to-last") ) bFirst = 1;
    else if( tl_jv_is(bit, "last-to-first") ) bFirst = 0;
    else return c2_err(c, bit, "unknown bit order%s", 0);
    /* the natural order: first-to-last for little-endian, last-to-first for big */
    f->bRevBits = bFirst != (f->bo==TL_LE);
  }
  return TL_OK;
}

static TlCtfField *c2_field(C2 *c, const TlJv *fc);

/* Members of a structure, converted with a frame so locations can name them. */
static int c2_struct(C2 *c, const TlJv *o, TlCtfField *f){
  const TlJv *mc = tl_jv_get(o, "member-classes"), *e;
  uint64_t minAlign;
  C2Frame *fr;
  if( c2_uint_prop(c, o, "minimum-alignment", 1, &minAlign) ) return c->pErr->rc;
  if( minAlign==0 || (minAlign & (minAlign-1)) || minAlign>(1u<<20) ) return c2_err(c, o, "bad alignment%s", 0);
  f->nAlign = (int)minAlign;
  if( mc==0 ) return TL_OK;
  if( mc->eType!=TL_JV_ARRAY ) return c2_err(c, mc, "expected an array of member classes%s", 0);
  if( c->nFrame>=C2_MAX_FRAMES ) return c2_err(c, o, "structures nested deeper than the limit%s", 0);
  f->aMember = calloc(mc->nChild ? mc->nChild : 1, sizeof(TlCtfMember));
  if( f->aMember==0 ) return c2_oom(c);
  fr = &c->aFrame[c->nFrame++];
  fr->f = f;
  fr->nDone = 0;
  for(e=mc->pFirst; e; e=e->pNext){
    const TlJv *zn = tl_jv_get(e, "name"), *ft = tl_jv_get(e, "field-class");
    TlCtfField *m;
    if( zn==0 || zn->eType!=TL_JV_STRING || ft==0 ){
      c->nFrame--;
      return c2_err(c, e, "a member class needs a name and a field class%s", 0);
    }
    if( c2_member(f, f->nMember, zn->z)>=0 ){
      c->nFrame--;
      return c2_err(c, zn, "two members named \"%s\"", zn->z);
    }
    fr = &c->aFrame[c->nFrame-1];
    fr->zCur = zn->z;
    m = c2_field(c, ft);
    fr = &c->aFrame[c->nFrame-1];
    fr->zCur = 0;
    if( m==0 ){ c->nFrame--; return c->pErr->rc; }
    f->aMember[f->nMember].pType = m;
    f->aMember[f->nMember].zName = c2_dup(zn->z);
    f->nMember++;
    fr->nDone = f->nMember;
    if( f->aMember[f->nMember-1].zName==0 ){ c->nFrame--; return c2_oom(c); }
  }
  c->nFrame--;
  return TL_OK;
}

static const TlJv *c2_alias(C2 *c, const char *z){
  int i;
  for(i=c->nAlias-1; i>=0; i--) if( strcmp(c->aAlias[i].zName, z)==0 ) return c->aAlias[i].pFc;
  return 0;
}

static int c2_field_body(C2 *c, const TlJv *fc, TlCtfField *f){
  const TlJv *t = tl_jv_get(fc, "type");
  const char *z;
  uint64_t u;
  if( t==0 || t->eType!=TL_JV_STRING ) return c2_err(c, fc, "a field class without a type%s", 0);
  z = t->z;
  f->iClock = -1;
  f->nAlign = 1;
  f->nBase = 10;
  if( strcmp(z, "fixed-length-bit-array")==0 || strcmp(z, "fixed-length-boolean")==0
   || strcmp(z, "fixed-length-unsigned-integer")==0 || strcmp(z, "fixed-length-signed-integer")==0
   || strcmp(z, "fixed-length-bit-map")==0
   || strcmp(z, "fixed-length-unsigned-enumeration")==0 || strcmp(z, "fixed-length-signed-enumeration")==0 ){
    const TlJv *mp = tl_jv_get(fc, "mappings"), *b = tl_jv_get(fc, "preferred-display-base");
    f->eKind = TL_CTF_INT;
    if( c2_uint_prop(c, fc, "length", 0, &u) ) return c->pErr->rc;
    if( u<1 || u>64 ) return c2_err(c, fc, "fixed-length field of a length this reader does not read (1 to 64 bits)%s", 0);
    f->nBits = (int)u;
    if( c2_uint_prop(c, fc, "alignment", 1, &u) ) return c->pErr->rc;
    if( u==0 || (u & (u-1)) || u>(1u<<20) ) return c2_err(c, fc, "bad alignment%s", 0);
    f->nAlign = (int)u;
    if( c2_byte_order(c, fc, f) ) return c->pErr->rc;
    f->bSigned = strstr(z, "-signed-")!=0;
    f->bBool = strcmp(z, "fixed-length-boolean")==0;
    if( b && tl_jv_uint(b, &u)==0 && (u==2 || u==8 || u==10 || u==16) ) f->nBase = (int)u;
    if( strcmp(z, "fixed-length-bit-map")==0 ){
      const TlJv *fl = tl_jv_get(fc, "flags"), *e;
      f->bFlags = 1;
      if( fl==0 || fl->eType!=TL_JV_OBJECT ) return c2_err(c, fc, "a bit map without flags%s", 0);
      for(e=fl->pFirst; e; e=e->pNext){
        if( c2_ranges(c, e, 0, &f->aRange, &f->nRange, e->zKey) ) return c->pErr->rc;
      }
    }else if( mp ){
      const TlJv *e;
      if( mp->eType!=TL_JV_OBJECT ) return c2_err(c, mp, "expected mappings as an object%s", 0);
      for(e=mp->pFirst; e; e=e->pNext){
        if( c2_ranges(c, e, f->bSigned, &f->aRange, &f->nRange, e->zKey) ) return c->pErr->rc;
      }
      if( f->nRange ) f->eKind = TL_CTF_ENUM;
    }
    return c2_roles(c, fc, f);
  }
  if( strcmp(z, "variable-length-unsigned-integer")==0 || strcmp(z, "variable-length-signed-integer")==0
   || strcmp(z, "variable-length-unsigned-enumeration")==0 || strcmp(z, "variable-length-signed-enumeration")==0 ){
    const TlJv *b = tl_jv_get(fc, "preferred-display-base");
    f->eKind = TL_CTF_VARINT;
    f->bSigned = strstr(z, "-signed-")!=0;
    f->nAlign = 8;
    f->nBits = 64;
    if( b && tl_jv_uint(b, &u)==0 && (u==2 || u==8 || u==10 || u==16) ) f->nBase = (int)u;
    return c2_roles(c, fc, f);
  }
  if( strcmp(z, "fixed-length-floating-point-number")==0 ){
    f->eKind = TL_CTF_FLOAT;
    if( c2_uint_prop(c, fc, "length", 0, &u) ) return c->pErr->rc;
    if( u!=32 && u!=64 ) return c2_err(c, fc, "floating point numbers of 32 or 64 bits only%s", 0);
    f->nBits = (int)u;
    f->nExpDig = u==32 ? 8 : 11;
    f->nMantDig = u==32 ? 24 : 53;
    if( c2_uint_prop(c, fc, "alignment", 1, &u) ) return c->pErr->rc;
    if( u==0 || (u & (u-1)) || u>(1u<<20) ) return c2_err(c, fc, "bad alignment%s", 0);
    f->nAlign = (int)u;
    return c2_byte_order(c, fc, f);
  }
  if( strcmp(z, "null-terminated-string")==0 || strcmp(z, "static-length-string")==0
   || strcmp(z, "dynamic-length-string")==0 || strcmp(z, "string")==0 ){
    const TlJv *enc = tl_jv_get(fc, "encoding");
    f->eKind = TL_CTF_STRING;
    f->nAlign = 8;
    f->nCharBytes = 1;
    f->bo = TL_LE;
    if( enc ){
      if( tl_jv_is(enc, "utf-8") ){}
      else if( tl_jv_is(enc, "utf-16be") ){ f->nCharBytes = 2; f->bo = TL_BE; }
      else if( tl_jv_is(enc, "utf-16le") ){ f->nCharBytes = 2; }
      else if( tl_jv_is(enc, "utf-32be") ){ f->nCharBytes = 4; f->bo = TL_BE; }
      else if( tl_jv_is(enc, "utf-32le") ){ f->nCharBytes = 4; }
      else return c2_err(c, enc, "unknown string encoding%s", 0);
    }
    if( z[0]=='s' && z[1]=='t' && z[2]=='a' ){
      f->eLength = 1;
      if( c2_uint_prop(c, fc, "length", 0, &f->nLen) ) return c->pErr->rc;
    }else if( z[0]=='d' ){
      f->eLength = 2;
      return c2_location(c, tl_jv_get(fc, "length-field-location"), &f->ref);
    }
    return TL_OK;
  }
  if( strcmp(z, "static-length-blob")==0 || strcmp(z, "dynamic-length-blob")==0 ){
    f->eKind = TL_CTF_BLOB;
    f->nAlign = 8;
    if( z[0]=='s' ){
      f->eLength = 1;
      if( c2_uint_prop(c, fc, "length", 0, &f->nLen) ) return c->pErr->rc;
    }else{
      f->eLength = 2;
      if( c2_location(c, tl_jv_get(fc, "length-field-location"), &f->ref) ) return c->pErr->rc;
    }
    return c2_roles(c, fc, f);
  }
  if( strcmp(z, "structure")==0 ){
    f->eKind = TL_CTF_STRUCT;
    return c2_struct(c, fc, f);
  }
  if( strcmp(z, "static-length-array")==0 || strcmp(z, "dynamic-length-array")==0 ){
    const TlJv *el = tl_jv_get(fc, "element-field-class");
    uint64_t minAlign;
    if( c2_uint_prop(c, fc, "minimum-alignment", 1, &minAlign) ) return c->pErr->rc;
    if( minAlign==0 || (minAlign & (minAlign-1)) || minAlign>(1u<<20) ) return c2_err(c, fc, "bad alignment%s", 0);
    f->nAlign = (int)minAlign;
    if( z[0]=='s' ){
      f->eKind = TL_CTF_ARRAY;
      if( c2_uint_prop(c, fc, "length", 0, &f->nLen) ) return c->pErr->rc;
    }else{
      f->eKind = TL_CTF_SEQUENCE;
      if( c2_location(c, tl_jv_get(fc, "length-field-location"), &f->ref) ) return c->pErr->rc;
    }
    if( el==0 ) return c2_err(c, fc, "an array without an element field class%s", 0);
    f->pElem = c2_field(c, el);
    return f->pElem ? TL_OK : c->pErr->rc;
  }
  if( strcmp(z, "optional")==0 ){
    const TlJv *in = tl_jv_get(fc, "field-class"), *sr = tl_jv_get(fc, "selector-field-ranges");
    f->eKind = TL_CTF_OPTIONAL;
    if( c2_location(c, tl_jv_get(fc, "selector-field-location"), &f->ref) ) return c->pErr->rc;
    if( sr ){
      f->bSelRanges = 1;
      if( c2_ranges(c, sr, 1, &f->aSelRange, &f->nSelRange, 0) ) return c->pErr->rc;
    }
    if( in==0 ) return c2_err(c, fc, "an optional without its field class%s", 0);
    f->pElem = c2_field(c, in);
    return f->pElem ? TL_OK : c->pErr->rc;
  }
  if( strcmp(z, "variant")==0 ){
    const TlJv *op = tl_jv_get(fc, "options"), *e;
    f->eKind = TL_CTF_VARIANT;
    f->bSelRanges = 1;
    if( c2_location(c, tl_jv_get(fc, "selector-field-location"), &f->ref) ) return c->pErr->rc;
    if( op==0 || op->eType!=TL_JV_ARRAY || op->nChild==0 ) return c2_err(c, fc, "a variant without options%s", 0);
    f->aMember = calloc(op->nChild, sizeof(TlCtfMember));
    if( f->aMember==0 ) return c2_oom(c);
    for(e=op->pFirst; e; e=e->pNext){
      const TlJv *zn = tl_jv_get(e, "name"), *ft = tl_jv_get(e, "field-class");
      TlCtfMember *m = &f->aMember[f->nMember];
      char zAnon[32];
      if( ft==0 ) return c2_err(c, e, "a variant option without a field class%s", 0);
      snprintf(zAnon, sizeof(zAnon), "%d", f->nMember);
      m->zName = c2_dup(zn && zn->eType==TL_JV_STRING ? zn->z : zAnon);
      if( m->zName==0 ) return c2_oom(c);
      f->nMember++;
      if( c2_ranges(c, tl_jv_get(e, "selector-field-ranges"), 1, &m->aRange, &m->nRange, 0) ) return c->pErr->rc;
      m->pType = c2_field(c, ft);
      if( m->pType==0 ) return c->pErr->rc;
    }
    return TL_OK;
  }
  return c2_err(c, t, "unknown field class type \"%s\"", z);
}

/* A field class (an object, or the name of an alias) to a new model node. */
static TlCtfField *c2_field(C2 *c, const TlJv *fc){
  TlCtfField *f;
  int rc;
  if( c->nDepth >= C2_MAX_DEPTH ){
    c2_err(c, fc, "field classes nested deeper than the limit%s", 0);
    return 0;
  }
  if( fc->eType==TL_JV_STRING ){
    const TlJv *a = c2_alias(c, fc->z);
    if( a==0 ){
      c2_err(c, fc, "unknown field class alias \"%s\"", fc->z);
      return 0;
    }
    fc = a;
  }
  if( fc->eType!=TL_JV_OBJECT ){
    c2_err(c, fc, "expected a field class%s", 0);
    return 0;
  }
  f = calloc(1, sizeof(*f));
  if( f==0 ){ c2_oom(c); return 0; }
  c->nDepth++;
  rc = c2_field_body(c, fc, f);
  c->nDepth--;
  if( rc ){
    tl_ctf_field_free(f);
    return 0;
  }
  return f;
}

/* A scope's field class, or NULL when the property is absent (rc in *pRc). */
static TlCtfField *c2_scope(C2 *c, const TlJv *o, const char *zKey, int iScope, int *pRc){
  const TlJv *fc = tl_jv_get(o, zKey);
  TlCtfField *f;
  *pRc = TL_OK;
  if( fc==0 || fc->eType==TL_JV_NULL ) return 0;
  c->iScope = iScope;
  c->nFrame = 0;
  f = c2_field(c, fc);
  if( f==0 ){ *pRc = c->pErr->rc ? c->pErr->rc : TL_ECORRUPT; return 0; }
  if( f->eKind!=TL_CTF_STRUCT ){
    tl_ctf_field_free(f);
    *pRc = c2_err(c, fc, "the %s is not a structure", zKey);
    return 0;
  }
  c->aRoot[iScope] = f;
  return f;
}

static int c2_uuid(C2 *c, const TlJv *v, uint8_t *a){
  const TlJv *e;
  int k = 0;
  if( v->eType!=TL_JV_ARRAY || v->nChild!=16 ) return c2_err(c, v, "expected a UUID as 16 integers%s", 0);
  for(e=v->pFirst; e; e=e->pNext){
    uint64_t u;
    if( tl_jv_uint(e, &u) || u>255 ) return c2_err(c, e, "expected a UUID byte%s", 0);
    a[k++] = (uint8_t)u;
  }
  return TL_OK;
}

static int c2_clock_index(C2 *c, const char *z){
  int i;
  for(i=0; i<c->m->nClock; i++) if( strcmp(c->m->aClock[i].zName, z)==0 ) return i;
  return -1;
}

/*
** An event record class's user attributes: kept as JSON text (event_types
** shows them), and the log level babeltrace2 and LTTng put there, as the
** number CTF 1.8's loglevel holds.
*/
static int c2_user_attrs(C2 *c, const TlJv *ua, TlCtfEventClass *e){
  static const char *const azLevel[] = {
    "emergency", "alert", "critical", "error", "warning", "notice", "info",
    "debug:system", "debug:program", "debug:process", "debug:module",
    "debug:unit", "debug:function", "debug:line", "debug",
  };
  static const char *const azNs[] = { "babeltrace.org,2020", "lttng.org,2009" };
  TlStr js;
  size_t k, j;
  if( ua==0 ) return TL_OK;
  for(k=0; k<sizeof(azNs)/sizeof(azNs[0]); k++){
    const TlJv *lv = tl_jv_get(tl_jv_get(ua, azNs[k]), "log-level");
    int64_t v;
    if( lv && tl_jv_int(lv, &v)==0 ) e->logLevel = v;
    for(j=0; lv && lv->eType==TL_JV_STRING && j<sizeof(azLevel)/sizeof(azLevel[0]); j++){
      if( strcmp(lv->z, azLevel[j])==0 ) e->logLevel = (int64_t)j;
    }
  }
  tl_str_init(&js);
  tl_jv_write(&js, ua);
  if( js.bErr ){ tl_str_free(&js); return c2_oom(c); }
  e->zUserAttrs = c2_dup(js.z ? js.z : "null");
  tl_str_free(&js);
  return e->zUserAttrs ? TL_OK : c2_oom(c);
}

static int c2_fragment(C2 *c, const TlJv *o, int bFirst){
  TlCtfModel *m = c->m;
  const TlJv *t = tl_jv_get(o, "type");
  int rc = TL_OK, i;
  if( o->eType!=TL_JV_OBJECT || t==0 || t->eType!=TL_JV_STRING ){
    return c2_err(c, o, "expected a fragment object with a type%s", 0);
  }
  if( bFirst!=tl_jv_is(t, "preamble") ){
    return c2_err(c, o, bFirst ? "the first fragment is not a preamble%s" : "a second preamble%s", 0);
  }
  if( tl_jv_is(t, "preamble") ){
    uint64_t v;
    const TlJv *u = tl_jv_get(o, "uuid");
    if( tl_jv_uint(tl_jv_get(o, "version"), &v) || v!=2 ){
      return c2_err(c, o, "the preamble's version is not 2%s", 0);
    }
    m->major = 2;
    m->minor = 0;
    if( u ){ if( c2_uuid(c, u, m->aUuid) ) return c->pErr->rc; m->bUuid = 1; }
    return TL_OK;
  }
  if( tl_jv_is(t, "trace-class") ){
    const TlJv *u = tl_jv_get(o, "uuid"), *env = tl_jv_get(o, "environment"), *e;
    if( c->bTraceClass ) return c2_err(c, o, "a second trace class%s", 0);
    if( m->nClock || m->nStream ) return c2_err(c, o, "the trace class comes after other classes%s", 0);
    c->bTraceClass = 1;
    if( u ){ if( c2_uuid(c, u, m->aUuid) ) return c->pErr->rc; m->bUuid = 1; }
    c->iClock = -1;
    m->pPktHeader = c2_scope(c, o, "packet-header-field-class", TL_CTF_SCOPE_PKT_HEADER, &rc);
    if( rc ) return rc;
    if( env && env->eType==TL_JV_OBJECT && env->nChild ){
      m->azEnvKey = calloc(env->nChild, sizeof(char*));
      m->azEnvVal = calloc(env->nChild, sizeof(char*));
      if( m->azEnvKey==0 || m->azEnvVal==0 ) return c2_oom(c);
      for(e=env->pFirst; e; e=e->pNext){
        char zNum[32];
        const char *zVal = zNum;
        if( e->eType==TL_JV_STRING ) zVal = e->z;
        else if( e->eType==TL_JV_NUMBER && e->bInt ) snprintf(zNum, sizeof(zNum), "%lld", e->bNeg ? (long long)e->i : (long long)e->u);
        else continue;
        m->azEnvKey[m->nEnv] = c2_dup(e->zKey);
        m->azEnvVal[m->nEnv] = c2_dup(zVal);
        m->nEnv++;
        if( m->azEnvKey[m->nEnv-1]==0 || m->azEnvVal[m->nEnv-1]==0 ) return c2_oom(c);
      }
    }
    return TL_OK;
  }
  if( tl_jv_is(t, "clock-class") ){
    const TlJv *id = tl_jv_get(o, "id"), *off = tl_jv_get(o, "offset-from-origin"), *org = tl_jv_get(o, "origin");
    TlCtfClock *a, *k;
    if( id==0 ) id = tl_jv_get(o, "name");
    if( id==0 || id->eType!=TL_JV_STRING ) return c2_err(c, o, "a clock class without an id%s", 0);
    if( c2_clock_index(c, id->z)>=0 ) return c2_err(c, id, "two clock classes \"%s\"", id->z);
    if( m->nClock>=1024 ) return c2_err(c, o, "too many clock classes%s", 0);
    a = realloc(m->aClock, sizeof(TlCtfClock)*(size_t)(m->nClock + 1));
    if( a==0 ) return c2_oom(c);
    m->aClock = a;
    k = &a[m->nClock];
    memset(k, 0, sizeof(*k));
    if( (k->zName = c2_dup(id->z))==0 ) return c2_oom(c);
    m->nClock++;
    if( tl_jv_uint(tl_jv_get(o, "frequency"), &k->freq) || k->freq==0 ){
      return c2_err(c, o, "a clock class without a positive frequency%s", 0);
    }
    if( off ){
      int64_t s = 0;
      const TlJv *sv = tl_jv_get(off, "seconds");
      if( sv && tl_jv_int(sv, &s) ) return c2_err(c, sv, "bad clock offset seconds%s", 0);
      k->offsetS = s;
      if( c2_uint_prop(c, off, "cycles", 0, &k->offset) ) return c->pErr->rc;
    }
    k->bAbsolute = tl_jv_is(org, "unix-epoch");
    if( tl_jv_get(o, "uuid") && c2_uuid(c, tl_jv_get(o, "uuid"), k->aUuid)==TL_OK ) k->bUuid = 1;
    return c->pErr->rc;
  }
  if( tl_jv_is(t, "data-stream-class") ){
    TlCtfStreamClass *a, *s;
    const TlJv *dc = tl_jv_get(o, "default-clock-class-id");
    uint64_t id;
    if( c2_uint_prop(c, o, "id", 0, &id) ) return c->pErr->rc;
    for(i=0; i<m->nStream; i++) if( m->aStream[i].id==id ) return c2_err(c, o, "two data stream classes of one id%s", 0);
    if( m->nStream>=65536 ) return c2_err(c, o, "too many data stream classes%s", 0);
    a = realloc(m->aStream, sizeof(TlCtfStreamClass)*(size_t)(m->nStream + 1));
    if( a==0 ) return c2_oom(c);
    m->aStream = a;
    s = &a[m->nStream++];
    memset(s, 0, sizeof(*s));
    s->id = id;
    if( dc==0 ) dc = tl_jv_get(o, "default-clock-class-name");
    c->iClock = -1;
    if( dc ){
      if( dc->eType!=TL_JV_STRING || (c->iClock = c2_clock_index(c, dc->z))<0 ){
        return c2_err(c, dc, "the default clock class \"%s\" is not defined before", dc->eType==TL_JV_STRING ? dc->z : "?");
      }
    }
    c->aRoot[TL_CTF_SCOPE_PKT_HEADER] = m->pPktHeader;
    for(i=TL_CTF_SCOPE_PKT_CONTEXT; i<TL_CTF_NSCOPE; i++) c->aRoot[i] = 0;
    s->pPktContext = c2_scope(c, o, "packet-context-field-class", TL_CTF_SCOPE_PKT_CONTEXT, &rc);
    if( rc==TL_OK ) s->pEvHeader = c2_scope(c, o, "event-record-header-field-class", TL_CTF_SCOPE_EV_HEADER, &rc);
    if( rc==TL_OK ) s->pEvContext = c2_scope(c, o, "event-record-common-context-field-class", TL_CTF_SCOPE_EV_SCONTEXT, &rc);
    return rc;
  }
  if( tl_jv_is(t, "event-record-class") ){
    TlCtfStreamClass *s = 0;
    TlCtfEventClass *a, *e;
    const TlJv *nm = tl_jv_get(o, "name");
    uint64_t id, sid;
    if( c2_uint_prop(c, o, "id", 0, &id) || c2_uint_prop(c, o, "data-stream-class-id", 0, &sid) ) return c->pErr->rc;
    for(i=0; i<m->nStream; i++) if( m->aStream[i].id==sid ) s = &m->aStream[i];
    if( s==0 ) return c2_err(c, o, "an event record class of a data stream class not defined before%s", 0);
    for(i=0; i<s->nEvent; i++) if( s->aEvent[i].id==id ) return c2_err(c, o, "two event record classes of one id%s", 0);
    if( s->nEvent>=(1<<20) ) return c2_err(c, o, "too many event record classes%s", 0);
    a = realloc(s->aEvent, sizeof(TlCtfEventClass)*(size_t)(s->nEvent + 1));
    if( a==0 ) return c2_oom(c);
    s->aEvent = a;
    e = &a[s->nEvent++];
    memset(e, 0, sizeof(*e));
    e->id = id;
    e->logLevel = INT64_MIN;
    if( nm && nm->eType==TL_JV_STRING && (e->zName = c2_dup(nm->z))==0 ) return c2_oom(c);
    if( (rc = c2_user_attrs(c, tl_jv_get(o, "user-attributes"), e))!=TL_OK ) return rc;
    c->iClock = -1;
    c->aRoot[TL_CTF_SCOPE_PKT_HEADER] = m->pPktHeader;
    c->aRoot[TL_CTF_SCOPE_PKT_CONTEXT] = s->pPktContext;
    c->aRoot[TL_CTF_SCOPE_EV_HEADER] = s->pEvHeader;
    c->aRoot[TL_CTF_SCOPE_EV_SCONTEXT] = s->pEvContext;
    c->aRoot[TL_CTF_SCOPE_EV_CONTEXT] = 0;
    c->aRoot[TL_CTF_SCOPE_EV_PAYLOAD] = 0;
    e->pContext = c2_scope(c, o, "specific-context-field-class", TL_CTF_SCOPE_EV_CONTEXT, &rc);
    if( rc==TL_OK ) e->pPayload = c2_scope(c, o, "payload-field-class", TL_CTF_SCOPE_EV_PAYLOAD, &rc);
    return rc;
  }
  if( tl_jv_is(t, "field-class-alias") ){
    const TlJv *nm = tl_jv_get(o, "name"), *fc = tl_jv_get(o, "field-class");
    if( nm==0 || nm->eType!=TL_JV_STRING || fc==0 ) return c2_err(c, o, "a field class alias needs a name and a field class%s", 0);
    if( fc->eType==TL_JV_STRING ){
      /* an alias of an alias: resolve now, so there are no chains or cycles */
      fc = c2_alias(c, fc->z);
      if( fc==0 ) return c2_err(c, nm, "alias \"%s\" names an unknown alias", nm->z);
    }
    if( c->nAlias>=C2_MAX_ALIASES ) return c2_err(c, o, "too many field class aliases%s", 0);
    if( c->nAlias==c->nAliasAlloc ){
      int nNew = c->nAliasAlloc ? c->nAliasAlloc*2 : 16;
      C2Alias *aNew = realloc(c->aAlias, sizeof(C2Alias)*(size_t)nNew);
      if( aNew==0 ) return c2_oom(c);
      c->aAlias = aNew;
      c->nAliasAlloc = nNew;
    }
    c->aAlias[c->nAlias].zName = nm->z;
    c->aAlias[c->nAlias].pFc = fc;
    c->nAlias++;
    return TL_OK;
  }
  /* Unknown fragment types are extensions: ignored. */
  return TL_OK;
}

int tl_ctf2_parse(const char *z, size_t n, TlCtfModel *pModel, TlErr *pErr){
  C2 c;
  TlJvDoc *aDoc = 0;
  size_t nDoc = 0, nDocAlloc = 0, i = 0;
  int rc = TL_OK;
  memset(pModel, 0, sizeof(*pModel));
  memset(&c, 0, sizeof(c));
  c.pErr = pErr;
  c.m = pModel;
  c.iClock = -1;
  /* Fragments: 0x1E, then JSON up to the next 0x1E or the end. The
  ** documents stay parsed until the end: aliases point into them. */
  while( i<n && rc==TL_OK ){
    size_t iStart, iEnd;
    TlJvDoc doc;
    if( z[i]!=0x1e ){
      if( z[i]==' ' || z[i]=='\n' || z[i]=='\r' || z[i]=='\t' ){ i++; continue; }
      rc = tl_err_set(pErr, TL_ECORRUPT, i, "CTF 2 metadata: expected the record separator 0x1E");
      break;
    }
    iStart = ++i;
    while( i<n && z[i]!=0x1e ) i++;
    iEnd = i;
    rc = tl_jv_parse(&doc, z + iStart, iEnd - iStart, iStart, pErr);
    if( rc ) break;
    if( nDoc==nDocAlloc ){
      size_t nNew = nDocAlloc ? nDocAlloc*2 : 16;
      TlJvDoc *aNew = realloc(aDoc, sizeof(TlJvDoc)*nNew);
      if( aNew==0 ){ tl_jv_free(&doc); rc = c2_oom(&c); break; }
      aDoc = aNew;
      nDocAlloc = nNew;
    }
    aDoc[nDoc++] = doc;
    rc = c2_fragment(&c, doc.pRoot, nDoc==1);
  }
  if( rc==TL_OK && nDoc==0 ) rc = tl_err_set(pErr, TL_ECORRUPT, 0, "CTF 2 metadata without fragments");
  if( rc==TL_OK && pModel->nStream==0 && pModel->pPktHeader==0 && nDoc<2 ){
    rc = tl_err_set(pErr, TL_ECORRUPT, 0, "CTF 2 metadata without a trace class");
  }
  for(i=0; i<nDoc; i++) tl_jv_free(&aDoc[i]);
  free(aDoc);
  free(c.aAlias);
  if( rc ) tl_ctf_model_free(pModel);
  else pModel->bo = TL_LE;
  return rc;
}
