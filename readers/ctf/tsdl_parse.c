/*
** tsdl_parse.c: TSDL text to the trace model (ctf_model.h).
**
** Supported so far: typealias, integer, floating_point, string, struct,
** enum, fixed arrays, and the trace, clock, env, stream and event blocks
** (callsite blocks are skipped). Variants and sequences are reported as
** unsupported.
*/
#include "ctf/tsdl_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"

#define TSDL_MAX_DEPTH 64

typedef struct TsdlAlias TsdlAlias;
struct TsdlAlias {
  char *zName;
  TlCtfField *pType;
};

typedef struct TsdlParse TsdlParse;
struct TsdlParse {
  TlTsdlLex lx;
  TlTsdlTok tok;                  /* current token */
  TlErr *pErr;
  TlCtfModel *pModel;
  int nAlias;
  TsdlAlias *aAlias;
  int nDepth;
  int iScope;                     /* scope being parsed, -1 outside one */
  const TlCtfField *apScope[TL_CTF_NSCOPE]; /* roots of scopes already parsed */
  int nStack;                     /* structs/variants being parsed */
  TlCtfField *aStack[TSDL_MAX_DEPTH+1];
  int aInParent[TSDL_MAX_DEPTH+1];/* member index of each in its parent */
};

static char *tsdl_dup(const char *z, size_t n){
  char *p = malloc(n+1);
  if( p ){ memcpy(p, z, n); p[n] = 0; }
  return p;
}

static int tsdl_next(TsdlParse *p){
  return tl_tsdl_lex_next(&p->lx, &p->tok, p->pErr);
}

static int tsdl_fail(TsdlParse *p, const char *zWhat){
  return tl_err_set(p->pErr, TL_ECORRUPT, p->tok.iOff,
                    "metadata line %d: expected %s, found '%.*s'",
                    p->tok.iLine, zWhat, (int)(p->tok.n>40 ? 40 : p->tok.n), p->tok.z);
}

static int tsdl_is(TsdlParse *p, const char *z){
  return (p->tok.eKind==TL_TSDL_PUNCT || p->tok.eKind==TL_TSDL_IDENT)
      && tl_tsdl_tok_is(&p->tok, p->tok.eKind, z);
}

static int tsdl_expect(TsdlParse *p, const char *z){
  if( !tsdl_is(p, z) ) return tsdl_fail(p, z);
  return tsdl_next(p);
}

void tl_ctf_field_free(TlCtfField *f){
  int i;
  if( f==0 ) return;
  for(i=0; i<f->nRange; i++) free(f->aRange[i].zLabel);
  free(f->aRange);
  for(i=0; i<f->nMember; i++){
    int k;
    free(f->aMember[i].zName);
    tl_ctf_field_free(f->aMember[i].pType);
    for(k=0; k<f->aMember[i].nRange; k++) free(f->aMember[i].aRange[k].zLabel);
    free(f->aMember[i].aRange);
  }
  free(f->aMember);
  free(f->ref.aPath);
  free(f->aSelRange);
  tl_ctf_field_free(f->pElem);
  free(f);
}

static TlCtfField *tsdl_copy(const TlCtfField *f){
  TlCtfField *c;
  int i;
  if( f==0 ) return 0;
  c = calloc(1, sizeof(*c));
  if( c==0 ) return 0;
  *c = *f;
  c->aRange = 0; c->nRange = 0; c->aMember = 0; c->nMember = 0;
  c->ref.aPath = 0; c->ref.nPath = 0; c->pElem = 0;
  if( f->nRange ){
    c->aRange = calloc((size_t)f->nRange, sizeof(TlCtfRange));
    if( c->aRange==0 ) goto oom;
    c->nRange = f->nRange;
    for(i=0; i<f->nRange; i++){
      c->aRange[i] = f->aRange[i];
      c->aRange[i].zLabel = tsdl_dup(f->aRange[i].zLabel, strlen(f->aRange[i].zLabel));
      if( c->aRange[i].zLabel==0 ) goto oom;
    }
  }
  if( f->nMember ){
    c->aMember = calloc((size_t)f->nMember, sizeof(TlCtfMember));
    if( c->aMember==0 ) goto oom;
    c->nMember = f->nMember;
    for(i=0; i<f->nMember; i++){
      c->aMember[i].zName = tsdl_dup(f->aMember[i].zName, strlen(f->aMember[i].zName));
      c->aMember[i].pType = tsdl_copy(f->aMember[i].pType);
      if( c->aMember[i].zName==0 || c->aMember[i].pType==0 ) goto oom;
    }
  }
  if( f->ref.nPath ){
    c->ref.aPath = malloc(sizeof(int)*(size_t)f->ref.nPath);
    if( c->ref.aPath==0 ) goto oom;
    memcpy(c->ref.aPath, f->ref.aPath, sizeof(int)*(size_t)f->ref.nPath);
    c->ref.nPath = f->ref.nPath;
  }
  if( f->pElem ){
    c->pElem = tsdl_copy(f->pElem);
    if( c->pElem==0 ) goto oom;
  }
  return c;
oom:
  tl_ctf_field_free(c);
  return 0;
}

/* Parse "= value ;" where value is a possibly negated integer. */
static int tsdl_int_value(TsdlParse *p, int64_t *pV, uint64_t *pU){
  int bNeg = 0, rc;
  if( tsdl_is(p, "-") ){ bNeg = 1; if( (rc = tsdl_next(p)) ) return rc; }
  else if( tsdl_is(p, "+") ){ if( (rc = tsdl_next(p)) ) return rc; }
  if( p->tok.eKind!=TL_TSDL_INT ) return tsdl_fail(p, "an integer");
  if( pU ) *pU = p->tok.iVal;
  if( pV ) *pV = bNeg ? -(int64_t)p->tok.iVal : (int64_t)p->tok.iVal;
  return tsdl_next(p);
}

static int tsdl_byte_order(TsdlParse *p, int *pBo){
  if( tsdl_is(p, "le") ) *pBo = TL_LE;
  else if( tsdl_is(p, "be") || tsdl_is(p, "network") ) *pBo = TL_BE;
  else if( tsdl_is(p, "native") ) *pBo = p->pModel->bo;
  else return tsdl_fail(p, "a byte order (le, be, network, native)");
  return tsdl_next(p);
}

static int tsdl_field_type(TsdlParse *p, TlCtfField **ppOut);

/* integer { ... } or floating_point { ... } */
static int tsdl_number_attrs(TsdlParse *p, TlCtfField *f){
  int rc;
  if( (rc = tsdl_expect(p, "{")) ) return rc;
  while( !tsdl_is(p, "}") ){
    TlTsdlTok key = p->tok;
    int64_t v = 0;
    if( key.eKind!=TL_TSDL_IDENT ) return tsdl_fail(p, "an attribute name");
    if( (rc = tsdl_next(p)) || (rc = tsdl_expect(p, "=")) ) return rc;
    if( tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "byte_order") ){
      rc = tsdl_byte_order(p, &f->bo);
    }else if( tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "signed") ){
      if( tsdl_is(p, "true") || tsdl_is(p, "TRUE") ){ f->bSigned = 1; rc = tsdl_next(p); }
      else if( tsdl_is(p, "false") || tsdl_is(p, "FALSE") ){ f->bSigned = 0; rc = tsdl_next(p); }
      else{ rc = tsdl_int_value(p, &v, 0); f->bSigned = v!=0; }
    }else if( tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "base") ){
      if( p->tok.eKind==TL_TSDL_INT ){ f->nBase = (int)p->tok.iVal; rc = tsdl_next(p); }
      else{
        if( tsdl_is(p, "x") || tsdl_is(p, "X") || tsdl_is(p, "hex") || tsdl_is(p, "hexadecimal") ) f->nBase = 16;
        else if( tsdl_is(p, "decimal") || tsdl_is(p, "d") || tsdl_is(p, "i") || tsdl_is(p, "u") ) f->nBase = 10;
        else if( tsdl_is(p, "octal") || tsdl_is(p, "o") ) f->nBase = 8;
        else if( tsdl_is(p, "binary") || tsdl_is(p, "b") ) f->nBase = 2;
        else return tsdl_fail(p, "an integer base");
        rc = tsdl_next(p);
      }
      if( rc==0 && f->nBase!=2 && f->nBase!=8 && f->nBase!=10 && f->nBase!=16 ){
        return tl_err_set(p->pErr, TL_ECORRUPT, key.iOff, "metadata line %d: bad base", key.iLine);
      }
    }else if( tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "encoding") ){
      f->bText = tsdl_is(p, "UTF8") || tsdl_is(p, "ASCII")
              || tsdl_is(p, "utf8") || tsdl_is(p, "ascii");   /* as babeltrace2 and yactfr accept */
      rc = tsdl_next(p);
    }else if( tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "map") ){
      /* map = clock.NAME.value: the clock is looked up by name. */
      int i;
      TlTsdlTok name;
      if( (rc = tsdl_expect(p, "clock")) || (rc = tsdl_expect(p, ".")) ) return rc;
      name = p->tok;
      if( name.eKind!=TL_TSDL_IDENT ) return tsdl_fail(p, "a clock name");
      if( (rc = tsdl_next(p)) || (rc = tsdl_expect(p, ".")) || (rc = tsdl_expect(p, "value")) ) return rc;
      f->iClock = -1;
      for(i=0; i<p->pModel->nClock; i++){
        const char *z = p->pModel->aClock[i].zName;
        if( strlen(z)==name.n && memcmp(z, name.z, name.n)==0 ) f->iClock = i;
      }
      if( f->iClock<0 ){
        return tl_err_set(p->pErr, TL_ECORRUPT, name.iOff,
                          "metadata line %d: map names undefined clock '%.*s'",
                          name.iLine, (int)name.n, name.z);
      }
    }else if( !tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "size")
           && !tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "align")
           && !tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "exp_dig")
           && !tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "mant_dig") ){
      /* Unknown attribute: ignored, as babeltrace2 does (with a warning). */
      if( tsdl_is(p, "-") || tsdl_is(p, "+") ) rc = tsdl_next(p);
      if( rc==0 ) rc = tsdl_next(p);
    }else{
      rc = tsdl_int_value(p, &v, 0);
      if( rc==0 ){
        if( v<0 || v>1024 ){
          return tl_err_set(p->pErr, TL_ECORRUPT, key.iOff,
                            "metadata line %d: %.*s out of range", key.iLine, (int)key.n, key.z);
        }
        if( tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "size") ) f->nBits = (int)v;
        else if( tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "align") ) f->nAlign = (int)v;
        else if( tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "exp_dig") ) f->nExpDig = (int)v;
        else if( tl_tsdl_tok_is(&key, TL_TSDL_IDENT, "mant_dig") ) f->nMantDig = (int)v;
      }
    }
    if( rc || (rc = tsdl_expect(p, ";")) ) return rc;
  }
  return tsdl_next(p);
}

static TlCtfField *tsdl_new(int eKind, int bo){
  TlCtfField *f = calloc(1, sizeof(*f));
  if( f ){ f->eKind = eKind; f->nAlign = 8; f->bo = bo; f->nBase = 10; f->iClock = -1; }
  return f;
}

static int tsdl_oom(TsdlParse *p){
  return tl_err_set(p->pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
}

static int tsdl_struct_members(TsdlParse *p, TlCtfField *f);

/* Members of f, with f on the stack for field references. */
static int tsdl_struct_body(TsdlParse *p, TlCtfField *f){
  int rc;
  if( p->nStack>TSDL_MAX_DEPTH ){
    return tl_err_set(p->pErr, TL_ECORRUPT, p->tok.iOff,
                      "metadata line %d: types nested deeper than %d", p->tok.iLine, TSDL_MAX_DEPTH);
  }
  p->aInParent[p->nStack] = p->nStack>0 ? p->aStack[p->nStack-1]->nMember : 0;
  p->aStack[p->nStack++] = f;
  rc = tsdl_struct_members(p, f);
  p->nStack--;
  return rc;
}

/* Index of member z[0..n) in struct/variant f, or -1. */
static int tsdl_member(const TlCtfField *f, const char *z, size_t n){
  int i;
  if( f==0 || (f->eKind!=TL_CTF_STRUCT && f->eKind!=TL_CTF_VARIANT) ) return -1;
  for(i=0; i<f->nMember; i++){
    if( strlen(f->aMember[i].zName)==n && memcmp(f->aMember[i].zName, z, n)==0 ) return i;
  }
  return -1;
}

/*
** A field reference (a.b or event.fields.a.b) at the current token, to a
** field already parsed in an enclosing struct of the scope being parsed.
** *ppTarget is the referenced field class.
*/
static int tsdl_ref(TsdlParse *p, TlCtfRef *pRef, const TlCtfField **ppTarget){
  static const char *const azScope[TL_CTF_NSCOPE] = {
    "trace.packet.header.", "stream.packet.context.", "stream.event.header.",
    "stream.event.context.", "event.context.", "event.fields.",
  };
  char z[256];
  TlTsdlTok first = p->tok;
  int aPath[TSDL_MAX_DEPTH+16];
  int nPath = 0, k, rc, j, bAbs = 0, bOther = 0;
  const char *zRest;
  const TlCtfField *f = 0;
  size_t n = 0;
  for(;;){
    if( p->tok.eKind!=TL_TSDL_IDENT ) return tsdl_fail(p, "a field name");
    if( n + p->tok.n + 2 > sizeof(z) ) return tsdl_fail(p, "a shorter field reference");
    memcpy(z+n, p->tok.z, p->tok.n); n += p->tok.n; z[n] = 0;
    if( (rc = tsdl_next(p)) ) return rc;
    if( !tsdl_is(p, ".") ) break;
    z[n++] = '.';
    if( (rc = tsdl_next(p)) ) return rc;
  }
  zRest = z;
  for(k=0; k<TL_CTF_NSCOPE; k++){
    size_t m = strlen(azScope[k]);
    if( strncmp(z, azScope[k], m)==0 ){
      zRest = z + m;
      if( k!=p->iScope || p->nStack==0 ){
        /* Another scope, parsed before this one. */
        f = p->apScope[k];
        if( k==p->iScope || f==0 ){
          return tl_err_set(p->pErr, TL_ECORRUPT, first.iOff,
                            "metadata line %d: field reference '%s' names no earlier field",
                            first.iLine, z);
        }
        pRef->iScope = k;
        bOther = 1;
        goto descend;
      }
      bAbs = 1;
    }
  }
  /* Find the first name, innermost struct first (absolute: the root). */
  {
    const char *zDot = strchr(zRest, '.');
    size_t n0 = zDot ? (size_t)(zDot-zRest) : strlen(zRest);
    for(k = bAbs ? 0 : p->nStack-1; k>=0; k--){
      j = tsdl_member(p->aStack[k], zRest, n0);
      if( j>=0 ) break;
      if( bAbs ) k = -1;
    }
    if( k<0 ){
      return tl_err_set(p->pErr, TL_ECORRUPT, first.iOff,
                        "metadata line %d: field reference '%s' names no earlier field",
                        first.iLine, z);
    }
    for(rc=1; rc<=k; rc++) aPath[nPath++] = p->aInParent[rc];
    aPath[nPath++] = j;
    f = p->aStack[k]->aMember[j].pType;
    zRest = zDot ? zDot+1 : 0;
  }
descend:
  while( zRest ){
    const char *zDot = strchr(zRest, '.');
    size_t n0 = zDot ? (size_t)(zDot-zRest) : strlen(zRest);
    j = tsdl_member(f, zRest, n0);
    if( j<0 && f->eKind==TL_CTF_VARIANT && f->nMember>0
     && nPath + 1 + f->nMember < (int)(sizeof(aPath)/sizeof(aPath[0])) ){
      /*
      ** A name inside the variant's options (`outer.len` where each option
      ** of variant outer is a struct with a len): -1, then per option the
      ** member's index in it (-1 where it has none); decoding follows the
      ** chosen option.
      */
      const TlCtfField *pFirst = 0;
      int o;
      aPath[nPath++] = -1;
      for(o=0; o<f->nMember; o++){
        const TlCtfField *opt = f->aMember[o].pType;
        int jo = opt->eKind==TL_CTF_STRUCT ? tsdl_member(opt, zRest, n0) : -1;
        aPath[nPath++] = jo;
        if( jo>=0 && pFirst==0 ) pFirst = opt->aMember[jo].pType;
      }
      if( pFirst ){
        f = pFirst;
        zRest = zDot ? zDot+1 : 0;
        continue;
      }
    }
    if( j<0 || nPath>=(int)(sizeof(aPath)/sizeof(aPath[0])) ){
      return tl_err_set(p->pErr, TL_ECORRUPT, first.iOff,
                        "metadata line %d: field reference '%s' names no earlier field",
                        first.iLine, z);
    }
    aPath[nPath++] = j;
    f = f->aMember[j].pType;
    zRest = zDot ? zDot+1 : 0;
  }
  free(pRef->aPath);
  pRef->aPath = malloc(sizeof(int)*(size_t)nPath);
  if( pRef->aPath==0 ) return tsdl_oom(p);
  memcpy(pRef->aPath, aPath, sizeof(int)*(size_t)nPath);
  pRef->nPath = nPath;
  if( !bOther ) pRef->iScope = p->iScope;
  *ppTarget = f;
  return TL_OK;
}

/* A struct body "{ type name; ... }" into f (a TL_CTF_STRUCT). */
static int tsdl_struct_members(TsdlParse *p, TlCtfField *f){
  int rc;
  if( (rc = tsdl_expect(p, "{")) ) return rc;
  while( !tsdl_is(p, "}") ){
    TlCtfField *t = 0;
    if( (rc = tsdl_field_type(p, &t)) ) return rc;
    for(;;){
      TlCtfMember *a;
      TlCtfField *m = tsdl_copy(t);
      TlTsdlTok name = p->tok;
      if( m==0 ){ tl_ctf_field_free(t); return tsdl_oom(p); }
      if( name.eKind!=TL_TSDL_IDENT ){ tl_ctf_field_free(t); tl_ctf_field_free(m); return tsdl_fail(p, "a field name"); }
      rc = tsdl_next(p);
      {
        /*
        ** Brackets: a[N][M] is N arrays of M (C's order), so the dimensions
        ** are collected, then wrapped innermost (last) first.
        */
        TlCtfRef aRef[8];
        uint64_t aLen[8];
        int nDim = 0, k;
        memset(aRef, 0, sizeof(aRef));
        while( rc==0 && tsdl_is(p, "[") ){
          if( nDim>=8 ){ rc = tsdl_fail(p, "at most 8 array dimensions"); break; }
          if( (rc = tsdl_next(p)) ) break;
          if( p->tok.eKind!=TL_TSDL_INT ){
            const TlCtfField *pLen = 0;
            aRef[nDim].iScope = -1;
            if( (rc = tsdl_ref(p, &aRef[nDim], &pLen)) ){ nDim++; break; }
            nDim++;
            if( pLen->eKind!=TL_CTF_INT && pLen->eKind!=TL_CTF_ENUM ){
              rc = tl_err_set(p->pErr, TL_ECORRUPT, p->tok.iOff,
                              "metadata line %d: sequence length must be an integer", p->tok.iLine);
              break;
            }
            rc = tsdl_expect(p, "]");
            continue;
          }
          aLen[nDim++] = p->tok.iVal;
          if( (rc = tsdl_next(p)) == 0 ) rc = tsdl_expect(p, "]");
        }
        for(k=nDim-1; k>=0; k--){
          TlCtfField *arr = 0;
          if( rc==0 ){
            arr = tsdl_new(aRef[k].nPath ? TL_CTF_SEQUENCE : TL_CTF_ARRAY, m->bo);
            if( arr==0 ) rc = tsdl_oom(p);
          }
          if( arr ){
            arr->nAlign = m->nAlign;
            arr->pElem = m;
            if( aRef[k].nPath ){
              arr->ref = aRef[k];
              aRef[k].aPath = 0;
            }else{
              arr->nLen = aLen[k];
            }
            m = arr;
          }
          free(aRef[k].aPath);
        }
      }
      if( rc==0 ){
        a = realloc(f->aMember, sizeof(TlCtfMember)*(size_t)(f->nMember+1));
        if( a==0 ) rc = tsdl_oom(p);
        else{
          f->aMember = a;
          memset(&a[f->nMember], 0, sizeof(TlCtfMember));
          a[f->nMember].zName = tsdl_dup(name.z, name.n);
          a[f->nMember].pType = m;
          f->nMember++;
          m = 0;
          if( a[f->nMember-1].zName==0 ) rc = tsdl_oom(p);
        }
      }
      tl_ctf_field_free(m);
      if( rc ){ tl_ctf_field_free(t); return rc; }
      if( !tsdl_is(p, ",") ) break;
      if( (rc = tsdl_next(p)) ){ tl_ctf_field_free(t); return rc; }
    }
    tl_ctf_field_free(t);
    if( (rc = tsdl_expect(p, ";")) ) return rc;
  }
  rc = tsdl_next(p);
  if( rc==0 && tsdl_is(p, "align") ){
    int64_t v;
    if( (rc = tsdl_next(p)) || (rc = tsdl_expect(p, "(")) || (rc = tsdl_int_value(p, &v, 0))
     || (rc = tsdl_expect(p, ")")) ) return rc;
    f->nAlign = (int)v;
  }
  return rc;
}

/* Add an alias (takes pType, frees it on failure). */
static int tsdl_add_alias(TsdlParse *p, const char *z, size_t n, TlCtfField *pType){
  TsdlAlias *a = realloc(p->aAlias, sizeof(TsdlAlias)*(size_t)(p->nAlias+1));
  if( a==0 ){ tl_ctf_field_free(pType); return tsdl_oom(p); }
  p->aAlias = a;
  a[p->nAlias].zName = tsdl_dup(z, n);
  if( a[p->nAlias].zName==0 ){ tl_ctf_field_free(pType); return tsdl_oom(p); }
  a[p->nAlias].pType = pType;
  p->nAlias++;
  return TL_OK;
}

/* The latest alias named z[0..n), or NULL. */
static const TlCtfField *tsdl_find_alias(TsdlParse *p, const char *z, size_t n){
  int i;
  for(i=p->nAlias-1; i>=0; i--){
    if( strlen(p->aAlias[i].zName)==n && memcmp(p->aAlias[i].zName, z, n)==0 ){
      return p->aAlias[i].pType;
    }
  }
  return 0;
}

/*
** The type specifiers, one kind each. Each sets *pf to the field it builds
** as soon as it has one, so that on an error the caller frees it.
*/

/* integer { size = N; align = A; signed = B; ... } */
static int tsdl_type_integer(TsdlParse *p, TlCtfField **pf){
  int rc;
  TlCtfField *f = *pf = tsdl_new(TL_CTF_INT, p->pModel->bo);
  if( f==0 ) return tsdl_oom(p);
  f->nAlign = 0;
  if( (rc = tsdl_next(p)) || (rc = tsdl_number_attrs(p, f)) ) return rc;
  if( f->nBits<1 || f->nBits>64 ){
    return tl_err_set(p->pErr, TL_ECORRUPT, p->tok.iOff,
                      "metadata line %d: integer size must be 1..64", p->tok.iLine);
  }
  if( f->nAlign==0 ) f->nAlign = (f->nBits%8)==0 ? 8 : 1;
  return TL_OK;
}

/* floating_point { exp_dig = E; mant_dig = M; ... } */
static int tsdl_type_float(TsdlParse *p, TlCtfField **pf){
  int rc;
  TlCtfField *f = *pf = tsdl_new(TL_CTF_FLOAT, p->pModel->bo);
  if( f==0 ) return tsdl_oom(p);
  if( (rc = tsdl_next(p)) || (rc = tsdl_number_attrs(p, f)) ) return rc;
  f->nBits = f->nExpDig + f->nMantDig;
  if( f->nBits!=32 && f->nBits!=64 ){
    return tl_err_set(p->pErr, TL_EUNSUPPORTED, p->tok.iOff,
                      "metadata line %d: only 32- and 64-bit floats", p->tok.iLine);
  }
  return TL_OK;
}

/* string, or string { encoding = ...; } (the attributes are skipped) */
static int tsdl_type_string(TsdlParse *p, TlCtfField **pf){
  int rc;
  *pf = tsdl_new(TL_CTF_STRING, p->pModel->bo);
  if( *pf==0 ) return tsdl_oom(p);
  if( (rc = tsdl_next(p)) ) return rc;
  if( tsdl_is(p, "{") ){
    while( !tsdl_is(p, "}") ){
      if( p->tok.eKind==TL_TSDL_EOF ) return tsdl_fail(p, "}");
      if( (rc = tsdl_next(p)) ) return rc;
    }
    rc = tsdl_next(p);
  }
  return rc;
}

/* struct { ... }, struct NAME { ... } (declares NAME), or struct NAME */
static int tsdl_type_struct(TsdlParse *p, TlCtfField **pf){
  int rc;
  char zName[80];
  TlTsdlTok name;
  TlCtfField *f = *pf = tsdl_new(TL_CTF_STRUCT, p->pModel->bo);
  const TlCtfField *d;
  if( f==0 ) return tsdl_oom(p);
  f->nAlign = 1;
  if( (rc = tsdl_next(p)) ) return rc;
  if( p->tok.eKind!=TL_TSDL_IDENT ) return tsdl_struct_body(p, f);
  name = p->tok;
  if( name.n > sizeof(zName)-8 ) return tsdl_fail(p, "a shorter struct name");
  snprintf(zName, sizeof(zName), "struct %.*s", (int)name.n, name.z);
  if( (rc = tsdl_next(p)) ) return rc;
  if( tsdl_is(p, "{") ){
    TlCtfField *c;
    if( (rc = tsdl_struct_body(p, f)) ) return rc;
    c = tsdl_copy(f);
    if( c==0 ) return tsdl_oom(p);
    return tsdl_add_alias(p, zName, strlen(zName), c);
  }
  d = tsdl_find_alias(p, zName, strlen(zName));
  if( d==0 ){
    return tl_err_set(p->pErr, TL_ECORRUPT, name.iOff,
                      "metadata line %d: undeclared struct '%.*s'", name.iLine,
                      (int)name.n, name.z);
  }
  tl_ctf_field_free(f);
  *pf = tsdl_copy(d);
  return *pf ? TL_OK : tsdl_oom(p);
}

/* The { LABEL [= V [... W]], ... } of enum f, appended to its ranges. */
static int tsdl_enum_ranges(TsdlParse *p, TlCtfField *f){
  uint64_t next = 0;
  int rc;
  if( (rc = tsdl_expect(p, "{")) ) return rc;
  while( !tsdl_is(p, "}") ){
    TlCtfRange *a;
    TlTsdlTok lab = p->tok;
    int64_t lo, hi;
    if( lab.eKind!=TL_TSDL_IDENT && lab.eKind!=TL_TSDL_STRING ) return tsdl_fail(p, "an enum label");
    if( (rc = tsdl_next(p)) ) return rc;
    lo = hi = (int64_t)next;
    if( tsdl_is(p, "=") ){
      if( (rc = tsdl_next(p)) || (rc = tsdl_int_value(p, &lo, 0)) ) return rc;
      hi = lo;
      if( tsdl_is(p, "...") ){
        if( (rc = tsdl_next(p)) || (rc = tsdl_int_value(p, &hi, 0)) ) return rc;
      }
    }
    next = (uint64_t)hi + 1;
    a = realloc(f->aRange, sizeof(TlCtfRange)*(size_t)(f->nRange+1));
    if( a==0 ) return tsdl_oom(p);
    f->aRange = a;
    a[f->nRange].lo = (uint64_t)lo;
    a[f->nRange].hi = (uint64_t)hi;
    a[f->nRange].zLabel = tsdl_dup(lab.z, lab.n);
    f->nRange++;
    if( a[f->nRange-1].zLabel==0 ) return tsdl_oom(p);
    if( !tsdl_is(p, ",") ) break;
    if( (rc = tsdl_next(p)) ) return rc;
  }
  return tsdl_expect(p, "}");
}

/*
** enum [NAME] [: container] { ranges } (with NAME: declares it), or
** enum NAME alone (uses a declared one).
*/
static int tsdl_type_enum(TsdlParse *p, TlCtfField **pf){
  TlCtfField *c = 0;
  char zEnum[80];
  int rc;
  zEnum[0] = 0;
  if( (rc = tsdl_next(p)) ) return rc;
  if( p->tok.eKind==TL_TSDL_IDENT && !tsdl_is(p, ":") ){
    TlTsdlTok name = p->tok;
    if( name.n > sizeof(zEnum)-8 ) return tsdl_fail(p, "a shorter enum name");
    snprintf(zEnum, sizeof(zEnum), "enum %.*s", (int)name.n, name.z);
    if( (rc = tsdl_next(p)) ) return rc;
    if( !tsdl_is(p, ":") && !tsdl_is(p, "{") ){
      const TlCtfField *d = tsdl_find_alias(p, zEnum, strlen(zEnum));
      if( d==0 ){
        return tl_err_set(p->pErr, TL_ECORRUPT, name.iOff,
                          "metadata line %d: undeclared enum '%.*s'", name.iLine,
                          (int)name.n, name.z);
      }
      *pf = tsdl_copy(d);
      return *pf ? TL_OK : tsdl_oom(p);
    }
  }
  if( tsdl_is(p, "{") ){
    /* no container: an int, as CTF 1.8 says (unless an "int" alias exists) */
    const TlCtfField *d = tsdl_find_alias(p, "int", 3);
    c = d ? tsdl_copy(d) : tsdl_new(TL_CTF_INT, p->pModel->bo);
    if( c==0 ) return tsdl_oom(p);
    if( d==0 ){ c->nBits = 32; c->nAlign = 8; c->bSigned = 1; }
  }else if( (rc = tsdl_expect(p, ":")) || (rc = tsdl_field_type(p, &c)) ){
    return rc;
  }
  if( c->eKind!=TL_CTF_INT ){ tl_ctf_field_free(c); return tsdl_fail(p, "an integer enum container"); }
  *pf = c;
  c->eKind = TL_CTF_ENUM;
  if( (rc = tsdl_enum_ranges(p, c)) ) return rc;
  if( zEnum[0] ){
    TlCtfField *d = tsdl_copy(c);
    if( d==0 ) return tsdl_oom(p);
    return tsdl_add_alias(p, zEnum, strlen(zEnum), d);
  }
  return TL_OK;
}

/*
** variant [NAME] [<tag>] { options } (with NAME: declares it, without its
** tag), or variant NAME <tag> (a declared one with this tag).
*/
static int tsdl_type_variant(TsdlParse *p, TlCtfField **pf){
  const TlCtfField *pTag = 0, *d;
  char zName[80];
  TlTsdlTok name;
  TlCtfField *f = *pf = tsdl_new(TL_CTF_VARIANT, p->pModel->bo), *c;
  int rc;
  zName[0] = 0;
  if( f==0 ) return tsdl_oom(p);
  f->nAlign = 1;
  f->ref.iScope = -1;
  if( (rc = tsdl_next(p)) ) return rc;
  name = p->tok;
  if( name.eKind==TL_TSDL_IDENT ){
    if( name.n > sizeof(zName)-9 ) return tsdl_fail(p, "a shorter variant name");
    snprintf(zName, sizeof(zName), "variant %.*s", (int)name.n, name.z);
    if( (rc = tsdl_next(p)) ) return rc;
  }
  if( tsdl_is(p, "<") ){
    if( (rc = tsdl_next(p)) || (rc = tsdl_ref(p, &f->ref, &pTag)) ) return rc;
    if( pTag->eKind!=TL_CTF_ENUM ){
      return tl_err_set(p->pErr, TL_ECORRUPT, name.iOff,
                        "metadata line %d: variant tag must be an enum", name.iLine);
    }
    if( (rc = tsdl_expect(p, ">")) ) return rc;
  }
  if( tsdl_is(p, "{") ){
    if( (rc = tsdl_struct_body(p, f)) ) return rc;
    f->eKind = TL_CTF_VARIANT;
    f->nAlign = 1;
    if( zName[0]==0 ) return TL_OK;
    c = tsdl_copy(f);
    if( c==0 ) return tsdl_oom(p);
    free(c->ref.aPath); c->ref.aPath = 0; c->ref.nPath = 0;
    return tsdl_add_alias(p, zName, strlen(zName), c);
  }
  d = zName[0] ? tsdl_find_alias(p, zName, strlen(zName)) : 0;
  if( d==0 ){
    return tl_err_set(p->pErr, TL_ECORRUPT, name.iOff,
                      "metadata line %d: undeclared variant", name.iLine);
  }
  c = tsdl_copy(d);
  if( c==0 ) return tsdl_oom(p);
  c->ref = f->ref;
  f->ref.aPath = 0; f->ref.nPath = 0;
  tl_ctf_field_free(f);
  *pf = c;
  return TL_OK;
}

/*
** An alias name, which may be several words ("unsigned long"): the longest
** run of up to 4 identifiers that names an alias, the lexer rewound to
** just after it.
*/
static int tsdl_type_alias(TsdlParse *p, TlCtfField **pf){
  TlTsdlLex aLx[4];
  TlTsdlTok aTok[4];
  char zName[256];
  size_t an[4], n = 0;
  int nTok = 0, k, rc;
  const TlCtfField *d = 0;
  TlTsdlTok first = p->tok;
  while( nTok<4 && p->tok.eKind==TL_TSDL_IDENT && n + p->tok.n + 2 <= sizeof(zName) ){
    if( nTok ) zName[n++] = ' ';
    memcpy(zName+n, p->tok.z, p->tok.n);
    n += p->tok.n;
    an[nTok] = n;
    if( (rc = tsdl_next(p)) ) return rc;
    aLx[nTok] = p->lx;
    aTok[nTok] = p->tok;
    nTok++;
  }
  for(k=nTok-1; k>=0 && d==0; k--){
    d = tsdl_find_alias(p, zName, an[k]);
    if( d ){ p->lx = aLx[k]; p->tok = aTok[k]; }
  }
  if( d==0 ){
    return tl_err_set(p->pErr, TL_ECORRUPT, first.iOff,
                      "metadata line %d: unknown type '%.*s'", first.iLine,
                      (int)(first.n>40 ? 40 : first.n), first.z);
  }
  *pf = tsdl_copy(d);
  return *pf ? TL_OK : tsdl_oom(p);
}

/* A type specifier: builtin, struct, enum, variant or alias name. */
static int tsdl_field_type_inner(TsdlParse *p, TlCtfField **ppOut){
  TlCtfField *f = 0;
  int rc;
  *ppOut = 0;
  if( tsdl_is(p, "integer") ) rc = tsdl_type_integer(p, &f);
  else if( tsdl_is(p, "floating_point") ) rc = tsdl_type_float(p, &f);
  else if( tsdl_is(p, "string") ) rc = tsdl_type_string(p, &f);
  else if( tsdl_is(p, "struct") ) rc = tsdl_type_struct(p, &f);
  else if( tsdl_is(p, "enum") ) rc = tsdl_type_enum(p, &f);
  else if( tsdl_is(p, "variant") ) rc = tsdl_type_variant(p, &f);
  else if( p->tok.eKind==TL_TSDL_IDENT ) rc = tsdl_type_alias(p, &f);
  else return tsdl_fail(p, "a type");
  if( rc ){
    tl_ctf_field_free(f);
    return rc;
  }
  *ppOut = f;
  return TL_OK;
}

static int tsdl_field_type(TsdlParse *p, TlCtfField **ppOut){
  int rc;
  if( ++p->nDepth > TSDL_MAX_DEPTH ){
    return tl_err_set(p->pErr, TL_ECORRUPT, p->tok.iOff,
                      "metadata line %d: types nested deeper than %d", p->tok.iLine, TSDL_MAX_DEPTH);
  }
  rc = tsdl_field_type_inner(p, ppOut);
  p->nDepth--;
  return rc;
}

/* typealias TYPE := NAME ; */
static int tsdl_typealias(TsdlParse *p){
  TlCtfField *t = 0;
  int rc;
  if( (rc = tsdl_next(p)) || (rc = tsdl_field_type(p, &t)) ) return rc;
  if( (rc = tsdl_expect(p, ":=")) ) goto fail;
  {
    /* The alias name: one or more identifiers ("unsigned long"). */
    char zName[256];
    size_t n = 0;
    if( p->tok.eKind!=TL_TSDL_IDENT ){ rc = tsdl_fail(p, "an alias name"); goto fail; }
    while( p->tok.eKind==TL_TSDL_IDENT ){
      if( n + p->tok.n + 2 > sizeof(zName) ){ rc = tsdl_fail(p, "a shorter alias name"); goto fail; }
      if( n ) zName[n++] = ' ';
      memcpy(zName+n, p->tok.z, p->tok.n);
      n += p->tok.n;
      if( (rc = tsdl_next(p)) ) goto fail;
    }
    if( (rc = tsdl_add_alias(p, zName, n, t)) ) return rc;
  }
  return tsdl_expect(p, ";");
fail:
  tl_ctf_field_free(t);
  return rc;
}

/*
** typedef TYPE NAME ; and typedef TYPE NAME[N]... ; (C's declarator order:
** the first bracket is the outermost array).
*/
static int tsdl_typedef(TsdlParse *p){
  TlCtfField *t = 0;
  TlTsdlTok name;
  uint64_t aDim[8];
  int nDim = 0, rc;
  if( (rc = tsdl_next(p)) || (rc = tsdl_field_type(p, &t)) ) return rc;
  name = p->tok;
  if( name.eKind!=TL_TSDL_IDENT ){ rc = tsdl_fail(p, "a type name"); goto fail; }
  if( (rc = tsdl_next(p)) ) goto fail;
  while( tsdl_is(p, "[") ){
    if( (rc = tsdl_next(p)) ) goto fail;
    if( p->tok.eKind!=TL_TSDL_INT || nDim>=8 ){ rc = tsdl_fail(p, "a fixed array length"); goto fail; }
    aDim[nDim++] = p->tok.iVal;
    if( (rc = tsdl_next(p)) || (rc = tsdl_expect(p, "]")) ) goto fail;
  }
  while( nDim>0 ){
    TlCtfField *arr = tsdl_new(TL_CTF_ARRAY, t->bo);
    if( arr==0 ){ rc = tsdl_oom(p); goto fail; }
    arr->nLen = aDim[--nDim];
    arr->nAlign = t->nAlign;
    arr->pElem = t;
    t = arr;
  }
  if( (rc = tsdl_add_alias(p, name.z, name.n, t)) ) return rc;
  return tsdl_expect(p, ";");
fail:
  tl_ctf_field_free(t);
  return rc;
}

/* Skip a balanced { ... } block and the ';' after it. */
static int tsdl_skip_block(TsdlParse *p){
  int n = 0, rc;
  if( (rc = tsdl_next(p)) ) return rc;
  if( !tsdl_is(p, "{") ) return tsdl_fail(p, "{");
  do{
    if( p->tok.eKind==TL_TSDL_EOF ) return tsdl_fail(p, "}");
    if( tsdl_is(p, "{") ) n++;
    if( tsdl_is(p, "}") ) n--;
    if( (rc = tsdl_next(p)) ) return rc;
  }while( n>0 );
  return tsdl_expect(p, ";");
}

/* The dotted key of an attribute into z (e.g. "packet.header"). */
static int tsdl_key(TsdlParse *p, char *z, size_t nz, TlTsdlTok *pFirst){
  size_t i = 0;
  int rc;
  *pFirst = p->tok;
  for(;;){
    if( p->tok.eKind!=TL_TSDL_IDENT ) return tsdl_fail(p, "an attribute name");
    if( i + p->tok.n + 2 > nz ) return tsdl_fail(p, "a shorter attribute name");
    memcpy(z+i, p->tok.z, p->tok.n); i += p->tok.n; z[i] = 0;
    if( (rc = tsdl_next(p)) ) return rc;
    if( !tsdl_is(p, ".") ) break;
    z[i++] = '.';
    if( (rc = tsdl_next(p)) ) return rc;
  }
  return TL_OK;
}

/* clock { name = ...; freq = ...; ... }; */
static int tsdl_clock(TsdlParse *p){
  TlCtfModel *m = p->pModel;
  TlCtfClock *c, *a;
  int rc;
  char zKey[64];
  TlTsdlTok first;
  a = realloc(m->aClock, sizeof(TlCtfClock)*(size_t)(m->nClock+1));
  if( a==0 ) return tsdl_oom(p);
  m->aClock = a;
  c = &a[m->nClock];
  memset(c, 0, sizeof(*c));
  c->freq = 1000000000;
  c->bAbsolute = 0;
  m->nClock++;
  if( (rc = tsdl_next(p)) || (rc = tsdl_expect(p, "{")) ) return rc;
  while( !tsdl_is(p, "}") ){
    if( (rc = tsdl_key(p, zKey, sizeof(zKey), &first)) || (rc = tsdl_expect(p, "=")) ) return rc;
    if( strcmp(zKey, "name")==0 ){
      if( p->tok.eKind!=TL_TSDL_IDENT && p->tok.eKind!=TL_TSDL_STRING ) return tsdl_fail(p, "a clock name");
      free(c->zName);
      c->zName = tsdl_dup(p->tok.z, p->tok.n);
      if( c->zName==0 ) return tsdl_oom(p);
      rc = tsdl_next(p);
    }else if( strcmp(zKey, "freq")==0 ){
      rc = tsdl_int_value(p, 0, &c->freq);
      if( rc==0 && c->freq==0 ){
        return tl_err_set(p->pErr, TL_ECORRUPT, first.iOff, "metadata line %d: clock freq is 0", first.iLine);
      }
    }else if( strcmp(zKey, "offset_s")==0 ){
      rc = tsdl_int_value(p, &c->offsetS, 0);
    }else if( strcmp(zKey, "offset")==0 ){
      rc = tsdl_int_value(p, 0, &c->offset);
    }else if( strcmp(zKey, "absolute")==0 ){
      c->bAbsolute = tsdl_is(p, "true") || tsdl_is(p, "TRUE") || (p->tok.eKind==TL_TSDL_INT && p->tok.iVal);
      rc = tsdl_next(p);
    }else{
      /* uuid, description, precision: not needed for decoding. */
      if( tsdl_is(p, "-") || tsdl_is(p, "+") ) rc = tsdl_next(p);
      if( rc==0 ) rc = tsdl_next(p);
    }
    if( rc || (rc = tsdl_expect(p, ";")) ) return rc;
  }
  if( c->zName==0 ){
    return tl_err_set(p->pErr, TL_ECORRUPT, p->tok.iOff, "metadata line %d: clock without a name", p->tok.iLine);
  }
  if( (rc = tsdl_next(p)) ) return rc;
  return tsdl_expect(p, ";");
}

/* env { key = value; ... }; values kept as text. */
static int tsdl_env(TsdlParse *p){
  TlCtfModel *m = p->pModel;
  int rc;
  if( (rc = tsdl_next(p)) || (rc = tsdl_expect(p, "{")) ) return rc;
  while( !tsdl_is(p, "}") ){
    char **aK, **aV;
    TlTsdlTok key = p->tok, val;
    int bNeg = 0;
    if( key.eKind!=TL_TSDL_IDENT ) return tsdl_fail(p, "an env key");
    if( (rc = tsdl_next(p)) || (rc = tsdl_expect(p, "=")) ) return rc;
    if( tsdl_is(p, "-") ){ bNeg = 1; if( (rc = tsdl_next(p)) ) return rc; }
    else if( tsdl_is(p, "+") ){ if( (rc = tsdl_next(p)) ) return rc; }
    val = p->tok;
    if( val.eKind!=TL_TSDL_INT && val.eKind!=TL_TSDL_STRING && val.eKind!=TL_TSDL_IDENT ){
      return tsdl_fail(p, "an env value");
    }
    aK = realloc(m->azEnvKey, sizeof(char*)*(size_t)(m->nEnv+1));
    if( aK==0 ) return tsdl_oom(p);
    m->azEnvKey = aK;
    aV = realloc(m->azEnvVal, sizeof(char*)*(size_t)(m->nEnv+1));
    if( aV==0 ) return tsdl_oom(p);
    m->azEnvVal = aV;
    aK[m->nEnv] = tsdl_dup(key.z, key.n);
    if( val.eKind==TL_TSDL_INT ){
      char zNum[32];
      snprintf(zNum, sizeof(zNum), "%s%llu", bNeg ? "-" : "", (unsigned long long)val.iVal);
      aV[m->nEnv] = tsdl_dup(zNum, strlen(zNum));
    }else{
      aV[m->nEnv] = tsdl_dup(val.z, val.n);
    }
    m->nEnv++;
    if( aK[m->nEnv-1]==0 || aV[m->nEnv-1]==0 ) return tsdl_oom(p);
    if( (rc = tsdl_next(p)) || (rc = tsdl_expect(p, ";")) ) return rc;
  }
  if( (rc = tsdl_next(p)) ) return rc;
  return tsdl_expect(p, ";");
}

/* Find or add the stream class with this id. */
static TlCtfStreamClass *tsdl_stream(TsdlParse *p, uint64_t id){
  TlCtfModel *m = p->pModel;
  TlCtfStreamClass *a;
  int i;
  for(i=0; i<m->nStream; i++){
    if( m->aStream[i].id==id ) return &m->aStream[i];
  }
  a = realloc(m->aStream, sizeof(TlCtfStreamClass)*(size_t)(m->nStream+1));
  if( a==0 ) return 0;
  m->aStream = a;
  memset(&a[m->nStream], 0, sizeof(a[0]));
  a[m->nStream].id = id;
  return &a[m->nStream++];
}

/*
** References made where the scope was not known (in a struct declared
** outside any scope) are relative to that struct; once it is used as a
** scope's root they belong to that scope.
*/
static void tsdl_fix_scope(TlCtfField *f, int iScope){
  int i;
  if( f==0 ) return;
  if( f->ref.nPath>0 && f->ref.iScope<0 ) f->ref.iScope = iScope;
  for(i=0; i<f->nMember; i++) tsdl_fix_scope(f->aMember[i].pType, iScope);
  tsdl_fix_scope(f->pElem, iScope);
}

/* Set *pp to a parsed type, complaining if it was set before. */
static int tsdl_scope(TsdlParse *p, TlCtfField **pp, const TlTsdlTok *pKey){
  int rc;
  TlCtfField *f = 0;
  if( *pp ){
    return tl_err_set(p->pErr, TL_ECORRUPT, pKey->iOff,
                      "metadata line %d: scope defined twice", pKey->iLine);
  }
  if( (rc = tsdl_field_type(p, &f)) ) return rc;
  if( f->eKind!=TL_CTF_STRUCT ){
    tl_ctf_field_free(f);
    return tl_err_set(p->pErr, TL_ECORRUPT, pKey->iOff,
                      "metadata line %d: a scope must be a struct", pKey->iLine);
  }
  tsdl_fix_scope(f, p->iScope);
  *pp = f;
  return TL_OK;
}

/*
** The scopes an absolute reference can reach from a block: the trace's
** packet header, the stream class's scopes (those of the block being
** parsed, or of stream class iStream for an event), the event's context.
*/
static void tsdl_scopes(TsdlParse *p, int eBlock, uint64_t iStream,
                        const TlCtfField *pPktCtx, const TlCtfField *pEvHdr,
                        const TlCtfField *pSCtx, const TlCtfField *pEvCtx){
  TlCtfModel *m = p->pModel;
  int i;
  memset((void*)p->apScope, 0, sizeof(p->apScope));
  p->apScope[TL_CTF_SCOPE_PKT_HEADER] = m->pPktHeader;
  if( eBlock==1 ){
    p->apScope[TL_CTF_SCOPE_PKT_CONTEXT] = pPktCtx;
    p->apScope[TL_CTF_SCOPE_EV_HEADER] = pEvHdr;
    p->apScope[TL_CTF_SCOPE_EV_SCONTEXT] = pSCtx;
  }else if( eBlock==2 ){
    for(i=0; i<m->nStream; i++){
      if( m->aStream[i].id==iStream ){
        p->apScope[TL_CTF_SCOPE_PKT_CONTEXT] = m->aStream[i].pPktContext;
        p->apScope[TL_CTF_SCOPE_EV_HEADER] = m->aStream[i].pEvHeader;
        p->apScope[TL_CTF_SCOPE_EV_SCONTEXT] = m->aStream[i].pEvContext;
      }
    }
    p->apScope[TL_CTF_SCOPE_EV_CONTEXT] = pEvCtx;
  }
}

/* trace, stream and event blocks. eBlock: 0 trace, 1 stream, 2 event. */
static int tsdl_block(TsdlParse *p, int eBlock){
  TlCtfModel *m = p->pModel;
  TlCtfField *pPktCtx = 0, *pEvHdr = 0, *pEvCtx = 0, *pPayload = 0;
  uint64_t id = 0, streamId = 0;
  int bId = 0, bStreamId = 0, rc;
  char *zName = 0;
  int64_t logLevel = INT64_MIN;
  char *zEmf = 0;
  char zKey[64];
  TlTsdlTok first;
  if( (rc = tsdl_next(p)) || (rc = tsdl_expect(p, "{")) ) return rc;
  while( !tsdl_is(p, "}") ){
    if( (rc = tsdl_key(p, zKey, sizeof(zKey), &first)) ) goto out;
    if( tsdl_is(p, ":=") ){
      TlCtfField **pp = 0;
      if( (rc = tsdl_next(p)) ) goto out;
      if( eBlock==0 && strcmp(zKey, "packet.header")==0 ) pp = &m->pPktHeader;
      else if( eBlock==1 && strcmp(zKey, "packet.context")==0 ) pp = &pPktCtx;
      else if( eBlock==1 && strcmp(zKey, "event.header")==0 ) pp = &pEvHdr;
      else if( eBlock==1 && strcmp(zKey, "event.context")==0 ) pp = &pEvCtx;
      else if( eBlock==2 && strcmp(zKey, "context")==0 ) pp = &pEvCtx;
      else if( eBlock==2 && strcmp(zKey, "fields")==0 ) pp = &pPayload;
      else{
        /* Unknown type attribute: parsed and ignored, as babeltrace2 does. */
        TlCtfField *t = 0;
        rc = tsdl_field_type(p, &t);
        tl_ctf_field_free(t);
        if( rc ) goto out;
      }
      if( pp==0 ){
        if( (rc = tsdl_expect(p, ";")) ) goto out;
        continue;
      }
      p->iScope = pp==&m->pPktHeader ? TL_CTF_SCOPE_PKT_HEADER
                : pp==&pPktCtx ? TL_CTF_SCOPE_PKT_CONTEXT
                : pp==&pEvHdr ? TL_CTF_SCOPE_EV_HEADER
                : pp==&pEvCtx ? (eBlock==1 ? TL_CTF_SCOPE_EV_SCONTEXT : TL_CTF_SCOPE_EV_CONTEXT)
                : TL_CTF_SCOPE_EV_PAYLOAD;
      tsdl_scopes(p, eBlock, bStreamId ? streamId : (eBlock==1 && bId ? id : 0),
                  eBlock==1 ? pPktCtx : 0, eBlock==1 ? pEvHdr : 0,
                  eBlock==1 ? pEvCtx : 0, eBlock==2 ? pEvCtx : 0);
      rc = tsdl_scope(p, pp, &first);
      p->iScope = -1;
      if( rc ) goto out;
    }else{
      if( (rc = tsdl_expect(p, "=")) ) goto out;
      if( eBlock==0 && strcmp(zKey, "byte_order")==0 ){
        rc = tsdl_byte_order(p, &m->bo);
      }else if( eBlock==0 && strcmp(zKey, "major")==0 ){
        int64_t v; rc = tsdl_int_value(p, &v, 0); m->major = (int)v;
      }else if( eBlock==0 && strcmp(zKey, "minor")==0 ){
        int64_t v; rc = tsdl_int_value(p, &v, 0); m->minor = (int)v;
      }else if( eBlock==0 && strcmp(zKey, "uuid")==0 && p->tok.eKind==TL_TSDL_STRING ){
        /* "2a6422d0-6cee-11e0-8c08-cb07d7b3a564": 32 hex digits, dashes anywhere */
        size_t i;
        int nHex = 0;
        memset(m->aUuid, 0, sizeof(m->aUuid));
        for(i=0; i<p->tok.n && nHex<=32; i++){
          char c = p->tok.z[i];
          int v = c>='0' && c<='9' ? c-'0' : c>='a' && c<='f' ? c-'a'+10
                : c>='A' && c<='F' ? c-'A'+10 : c=='-' ? -2 : -1;
          if( v==-2 ) continue;
          if( v<0 || nHex>=32 ){ nHex = -1; break; }
          m->aUuid[nHex/2] = (uint8_t)(m->aUuid[nHex/2] | (v << ((nHex&1) ? 0 : 4)));
          nHex++;
        }
        m->bUuid = nHex==32;
        rc = tsdl_next(p);
      }else if( eBlock>0 && strcmp(zKey, "id")==0 ){
        rc = tsdl_int_value(p, 0, &id); bId = 1;
      }else if( eBlock==2 && strcmp(zKey, "stream_id")==0 ){
        rc = tsdl_int_value(p, 0, &streamId); bStreamId = 1;
      }else if( eBlock==2 && strcmp(zKey, "name")==0 ){
        if( p->tok.eKind!=TL_TSDL_STRING && p->tok.eKind!=TL_TSDL_IDENT ){
          rc = tsdl_fail(p, "an event name"); goto out;
        }
        free(zName);
        zName = tsdl_dup(p->tok.z, p->tok.n);
        if( zName==0 ){ rc = tsdl_oom(p); goto out; }
        rc = tsdl_next(p);
      }else if( eBlock==2 && strcmp(zKey, "loglevel")==0 ){
        rc = tsdl_int_value(p, &logLevel, 0);
      }else if( eBlock==2 && strcmp(zKey, "model.emf.uri")==0 && p->tok.eKind==TL_TSDL_STRING ){
        free(zEmf);
        zEmf = tsdl_dup(p->tok.z, p->tok.n);
        if( zEmf==0 ){ rc = tsdl_oom(p); goto out; }
        rc = tsdl_next(p);
      }else{
        /* uuid, model.emf.uri and the like: one value, not needed. */
        if( tsdl_is(p, "-") || tsdl_is(p, "+") ) rc = tsdl_next(p);
        if( rc==0 ) rc = tsdl_next(p);
      }
      if( rc ) goto out;
    }
    if( (rc = tsdl_expect(p, ";")) ) goto out;
  }
  if( (rc = tsdl_next(p)) || (rc = tsdl_expect(p, ";")) ) goto out;
  if( eBlock==1 ){
    TlCtfStreamClass *s = tsdl_stream(p, bId ? id : 0);
    if( s==0 ){ rc = tsdl_oom(p); goto out; }
    if( s->pPktContext || s->pEvHeader || s->pEvContext ){
      rc = tl_err_set(p->pErr, TL_ECORRUPT, first.iOff,
                      "metadata: stream %llu defined twice", (unsigned long long)s->id);
      goto out;
    }
    s->pPktContext = pPktCtx; s->pEvHeader = pEvHdr; s->pEvContext = pEvCtx;
    pPktCtx = pEvHdr = pEvCtx = 0;
  }else if( eBlock==2 ){
    TlCtfStreamClass *s = tsdl_stream(p, bStreamId ? streamId : 0);
    TlCtfEventClass *a;
    int i;
    if( s==0 ){ rc = tsdl_oom(p); goto out; }
    for(i=0; i<s->nEvent; i++){
      if( s->aEvent[i].id==(bId ? id : 0) ){
        rc = tl_err_set(p->pErr, TL_ECORRUPT, first.iOff,
                        "metadata: event id %llu defined twice in stream %llu",
                        (unsigned long long)s->aEvent[i].id, (unsigned long long)s->id);
        goto out;
      }
    }
    a = realloc(s->aEvent, sizeof(TlCtfEventClass)*(size_t)(s->nEvent+1));
    if( a==0 ){ rc = tsdl_oom(p); goto out; }
    s->aEvent = a;
    memset(&a[s->nEvent], 0, sizeof(TlCtfEventClass));
    a[s->nEvent].id = bId ? id : 0;
    a[s->nEvent].zName = zName;
    a[s->nEvent].logLevel = logLevel;
    a[s->nEvent].zEmfUri = zEmf;
    zEmf = 0;
    a[s->nEvent].pContext = pEvCtx;
    a[s->nEvent].pPayload = pPayload;
    s->nEvent++;
    zName = 0; pEvCtx = pPayload = 0;
  }
out:
  free(zName);
  free(zEmf);
  tl_ctf_field_free(pPktCtx);
  tl_ctf_field_free(pEvHdr);
  tl_ctf_field_free(pEvCtx);
  tl_ctf_field_free(pPayload);
  return rc;
}

void tl_ctf_model_free(TlCtfModel *m){
  int i, j;
  tl_ctf_field_free(m->pPktHeader);
  for(i=0; i<m->nClock; i++) free(m->aClock[i].zName);
  free(m->aClock);
  for(i=0; i<m->nStream; i++){
    TlCtfStreamClass *s = &m->aStream[i];
    tl_ctf_field_free(s->pPktContext);
    tl_ctf_field_free(s->pEvHeader);
    tl_ctf_field_free(s->pEvContext);
    for(j=0; j<s->nEvent; j++){
      free(s->aEvent[j].zName);
      free(s->aEvent[j].zEmfUri);
      free(s->aEvent[j].zUserAttrs);
      tl_ctf_field_free(s->aEvent[j].pContext);
      tl_ctf_field_free(s->aEvent[j].pPayload);
    }
    free(s->aEvent);
  }
  free(m->aStream);
  for(i=0; i<m->nEnv; i++){ free(m->azEnvKey[i]); free(m->azEnvVal[i]); }
  free(m->azEnvKey);
  free(m->azEnvVal);
  memset(m, 0, sizeof(*m));
}

/*
** The trace block's byte_order, found before parsing: types declared
** before the trace block still default to (and "native" means) the
** trace's byte order. Lexing errors are left for the real pass.
*/
static int tsdl_trace_order(const char *z, size_t n){
  TlTsdlLex lx;
  TlTsdlTok t, prev[3];
  TlErr e;
  int nDepth = 0, bTrace = 0, bInTrace = 0;
  tl_err_clear(&e);
  tl_tsdl_lex_init(&lx, z, n);
  memset(prev, 0, sizeof(prev));
  while( tl_tsdl_lex_next(&lx, &t, &e)==TL_OK && t.eKind!=TL_TSDL_EOF ){
    if( tl_tsdl_tok_is(&t, TL_TSDL_PUNCT, "{") ){
      nDepth++;
      if( nDepth==1 && bTrace ) bInTrace = 1;
    }else if( tl_tsdl_tok_is(&t, TL_TSDL_PUNCT, "}") ){
      nDepth--;
      if( nDepth==0 ) bInTrace = 0;
    }
    bTrace = nDepth==0 && tl_tsdl_tok_is(&t, TL_TSDL_IDENT, "trace");
    if( bInTrace && nDepth==1
     && tl_tsdl_tok_is(&prev[1], TL_TSDL_IDENT, "byte_order")
     && tl_tsdl_tok_is(&prev[0], TL_TSDL_PUNCT, "=") ){
      if( tl_tsdl_tok_is(&t, TL_TSDL_IDENT, "be") || tl_tsdl_tok_is(&t, TL_TSDL_IDENT, "network") ){
        return TL_BE;
      }
      return TL_LE;
    }
    prev[1] = prev[0];
    prev[0] = t;
  }
  return TL_LE;
}

int tl_tsdl_parse(const char *z, size_t n, TlCtfModel *pModel, TlErr *pErr){
  TsdlParse p;
  int rc, i;
  memset(&p, 0, sizeof(p));
  memset(pModel, 0, sizeof(*pModel));
  pModel->bo = tsdl_trace_order(z, n);
  p.pErr = pErr;
  p.pModel = pModel;
  p.iScope = -1;
  tl_tsdl_lex_init(&p.lx, z, n);
  rc = tsdl_next(&p);
  while( rc==0 && p.tok.eKind!=TL_TSDL_EOF ){
    if( tsdl_is(&p, "typealias") ) rc = tsdl_typealias(&p);
    else if( tsdl_is(&p, "typedef") ) rc = tsdl_typedef(&p);
    else if( tsdl_is(&p, "trace") ) rc = tsdl_block(&p, 0);
    else if( tsdl_is(&p, "stream") ) rc = tsdl_block(&p, 1);
    else if( tsdl_is(&p, "event") ) rc = tsdl_block(&p, 2);
    else if( tsdl_is(&p, "clock") ) rc = tsdl_clock(&p);
    else if( tsdl_is(&p, "env") ) rc = tsdl_env(&p);
    else if( tsdl_is(&p, "callsite") ) rc = tsdl_skip_block(&p);
    else if( tsdl_is(&p, "struct") || tsdl_is(&p, "enum") || tsdl_is(&p, "variant") ){
      TlCtfField *t = 0;
      rc = tsdl_field_type(&p, &t);
      tl_ctf_field_free(t);
      if( rc==0 ) rc = tsdl_expect(&p, ";");
    }
    else rc = tsdl_fail(&p, "a top-level block (trace, stream, event, clock, env, typealias)");
  }
  for(i=0; i<p.nAlias; i++){
    free(p.aAlias[i].zName);
    tl_ctf_field_free(p.aAlias[i].pType);
  }
  free(p.aAlias);
  if( rc ) tl_ctf_model_free(pModel);
  return rc;
}
