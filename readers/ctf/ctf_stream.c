/*
** ctf_stream.c: field classes to value nodes over the bit cursor.
**
** Decoding is a recursive walk of the field class tree, bounded by the
** model's nesting cap (64 levels). Nodes live in one growing array; a
** compound node's nSub is 0 while its children are being decoded, which
** is how field references find the element currently being decoded.
*/
#include "ctf/ctf_stream.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"

void tl_ctf_dec_init(TlCtfDec *d){
  int i;
  memset(d, 0, sizeof(*d));
  for(i=0; i<TL_CTF_NSCOPE; i++) d->aRoot[i] = -1;
}

void tl_ctf_dec_free(TlCtfDec *d){
  if( d->pnShared ) __atomic_sub_fetch(d->pnShared, sizeof(TlCtfVal)*(uint64_t)d->nAlloc, __ATOMIC_RELAXED);
  free(d->aVal);
  tl_ctf_dec_init(d);
}

void tl_ctf_dec_truncate(TlCtfDec *d, uint32_t n){
  int i;
  if( n < d->nVal ) d->nVal = n;
  d->nValMark = d->nVal;
  d->iBitMark = d->bits.iBit;
  for(i=0; i<TL_CTF_NSCOPE; i++){
    if( d->aRoot[i] >= 0 && (uint32_t)d->aRoot[i] >= n ) d->aRoot[i] = -1;
  }
}

int tl_ctf_dec_is_int(const TlCtfDec *d, int i){
  int k;
  if( i<0 || (uint32_t)i>=d->nVal ) return 0;
  k = d->aVal[i].pField->eKind;
  return k==TL_CTF_INT || k==TL_CTF_ENUM;
}

int tl_ctf_dec_member(const TlCtfDec *d, int iNode, const char *zName){
  uint32_t c, end;
  if( iNode<0 || (uint32_t)iNode>=d->nVal ) return -1;
  if( d->aVal[iNode].pField->eKind!=TL_CTF_STRUCT ) return -1;
  end = (uint32_t)iNode + d->aVal[iNode].nSub;
  if( d->aVal[iNode].nSub==0 || end > d->nVal ) end = d->nVal;
  for(c=(uint32_t)iNode+1; c<end; c+=d->aVal[c].nSub){
    const char *z = d->aVal[c].zName;
    if( z && strcmp(z, zName)==0 ) return (int)c;
    if( d->aVal[c].nSub==0 ) break;
  }
  return -1;
}

/* File offset of the cursor, for messages. */
static uint64_t dec_off(const TlCtfDec *d){
  return d->iFileOff + d->bits.iBit/8;
}

static int dec_past_end(TlCtfDec *d, TlErr *pErr, const char *zWhat, const char *zName){
  d->bPastEnd = 1;
  return tl_err_set(pErr, TL_ECORRUPT, dec_off(d),
                    "%s%s%s runs past the end of the packet content",
                    zWhat, zName ? " " : "", zName ? zName : "");
}

/* A new node for class f; its index, or -1 (error set). */
static int64_t dec_node(TlCtfDec *d, const TlCtfField *f, const char *zName, TlErr *pErr){
  TlCtfVal *p;
  uint32_t nMax = d->nMaxVals ? d->nMaxVals : TL_CTF_MAX_VALS;
  uint32_t nEv = d->nVal >= d->nValMark ? d->nVal - d->nValMark : d->nVal;
  if( nEv >= TL_CTF_FREE_VALS ){
    uint64_t nBits = d->bits.iBit >= d->iBitMark ? d->bits.iBit - d->iBitMark : d->bits.iBit;
    if( (nEv - TL_CTF_FREE_VALS)/TL_CTF_VALS_PER_BIT > nBits ){
      tl_err_set(pErr, TL_ELIMIT, dec_off(d),
          "an event decodes %u fields from %llu bits: past %u fields, at most %u "
          "a bit (fields of no size repeated are refused)", nEv,
          (unsigned long long)nBits, TL_CTF_FREE_VALS, TL_CTF_VALS_PER_BIT);
      return -1;
    }
  }
  if( d->nVal >= nMax ){
    tl_err_set(pErr, TL_ELIMIT, dec_off(d),
               "more than %u fields in one event (max_fields=)", nMax);
    return -1;
  }
  if( d->nVal >= d->nAlloc ){
    uint32_t n = d->nAlloc ? d->nAlloc*2 : 256;
    TlCtfVal *a;
    if( n > nMax ) n = nMax;
    if( d->pnShared ){
      uint64_t nMore = sizeof(*a)*(uint64_t)(n - d->nAlloc);
      /* (the decoders of a scan's two counting threads share the count) */
      if( __atomic_add_fetch(d->pnShared, nMore, __ATOMIC_RELAXED) > d->nSharedMax ){
        __atomic_sub_fetch(d->pnShared, nMore, __ATOMIC_RELAXED);
        tl_err_set(pErr, TL_ELIMIT, dec_off(d),
                   "decoding this trace's events needs more than %llu MiB of field buffers (max_memory=)",
                   (unsigned long long)(d->nSharedMax>>20));
        return -1;
      }
    }
    a = realloc(d->aVal, sizeof(*a)*n);
    if( a==0 ){
      if( d->pnShared ) __atomic_sub_fetch(d->pnShared, sizeof(*a)*(uint64_t)(n - d->nAlloc), __ATOMIC_RELAXED);
      tl_err_set(pErr, TL_ENOMEM, dec_off(d), "out of memory");
      return -1;
    }
    d->aVal = a;
    d->nAlloc = n;
  }
  p = &d->aVal[d->nVal];
  p->pField = f;
  p->zName = zName;
  p->nSub = 0;
  p->iOpt = 0;
  p->v.u = 0;
  p->z = 0;
  p->n = 0;
  return d->nVal++;
}

/* The element of array node c being decoded or last decoded, or -1. */
static int64_t dec_last_elem(const TlCtfDec *d, uint32_t c){
  uint32_t i = c + 1;
  int64_t prev = -1;
  uint32_t end = d->aVal[c].nSub ? c + d->aVal[c].nSub : d->nVal;
  if( end > d->nVal ) end = d->nVal;
  while( i < end ){
    prev = i;
    if( d->aVal[i].nSub==0 ) break;
    i += d->aVal[i].nSub;
  }
  return prev;
}

/*
** Follow a resolved reference to an integer node already decoded. -1 when
** the field is not there (not decoded yet, or in a variant option not
** chosen).
*/
static int64_t dec_ref(const TlCtfDec *d, const TlCtfRef *r){
  int64_t c;
  int k;
  if( r->iScope<0 || r->iScope>=TL_CTF_NSCOPE ) return -1;
  c = d->aRoot[r->iScope];
  if( c<0 ) return -1;
  for(k=0; k<r->nPath; k++){
    int j = r->aPath[k], t;
    const TlCtfField *f = d->aVal[c].pField;
    while( (f->eKind==TL_CTF_ARRAY || f->eKind==TL_CTF_SEQUENCE) && d->aVal[c].z==0 ){
      c = dec_last_elem(d, (uint32_t)c);
      if( c<0 ) return -1;
      f = d->aVal[c].pField;
    }
    while( f->eKind==TL_CTF_OPTIONAL ){
      /* CTF 2: into an optional's field, when it is there */
      if( d->aVal[c].iOpt==0 ) return -1;
      c++;
      if( (uint32_t)c>=d->nVal ) return -1;
      f = d->aVal[c].pField;
    }
    if( f->eKind==TL_CTF_VARIANT && j==-1 ){
      /* into the chosen option (a struct), at its index in the list after -1 */
      int iOpt = (int)d->aVal[c].iOpt;
      if( iOpt>=f->nMember || k+1+f->nMember > r->nPath ) return -1;
      j = r->aPath[k+1+iOpt];
      k += f->nMember;
      c++;
      if( j<0 || (uint32_t)c>=d->nVal ) return -1;
      f = d->aVal[c].pField;
    }
    if( f->eKind==TL_CTF_STRUCT ){
      if( j<0 || j>=f->nMember ) return -1;
      c++;
      for(t=0; t<j; t++){
        if( (uint32_t)c >= d->nVal || d->aVal[c].nSub==0 ) return -1;
        c += d->aVal[c].nSub;
      }
    }else if( f->eKind==TL_CTF_VARIANT ){
      if( (int)d->aVal[c].iOpt!=j ) return -1;
      c++;
    }else{
      return -1;
    }
    if( (uint32_t)c >= d->nVal ) return -1;
  }
  return c;
}

/* Does an enum label name a variant option (CTF 1.8 allows a leading '_')? */
static int dec_opt_match(const char *zOpt, const char *zLabel){
  if( strcmp(zOpt, zLabel)==0 ) return 1;
  if( zOpt[0]=='_' && strcmp(zOpt+1, zLabel)==0 ) return 1;
  if( zLabel[0]=='_' && strcmp(zOpt, zLabel+1)==0 ) return 1;
  return 0;
}

/* The option of variant f selected by enum node value; -1 if none. */
static int dec_variant_opt(const TlCtfField *f, const TlCtfField *pTag, uint64_t v){
  int i, j;
  for(i=0; i<pTag->nRange; i++){
    const TlCtfRange *r = &pTag->aRange[i];
    int bIn = pTag->bSigned ? ((int64_t)v >= (int64_t)r->lo && (int64_t)v <= (int64_t)r->hi)
                            : (v >= r->lo && v <= r->hi);
    if( !bIn || r->zLabel==0 ) continue;
    for(j=0; j<f->nMember; j++){
      if( dec_opt_match(f->aMember[j].zName, r->zLabel) ) return j;
    }
  }
  return -1;
}

static int dec_field(TlCtfDec*, const TlCtfField*, const char*, TlErr*);

/* Is node t an integer (or boolean) a selector or length can be read from? */
static int dec_is_intval(const TlCtfDec *d, int64_t t){
  int k;
  if( t<0 ) return 0;
  k = d->aVal[t].pField->eKind;
  return k==TL_CTF_INT || k==TL_CTF_ENUM || k==TL_CTF_VARINT;
}

/* Does value v fall in one of ranges a[0..n) (signed or not)? */
static int dec_in_ranges(const TlCtfRange *a, int n, int bSigned, uint64_t v){
  int i;
  for(i=0; i<n; i++){
    if( bSigned ? ((int64_t)v >= (int64_t)a[i].lo && (int64_t)v <= (int64_t)a[i].hi)
                : (v >= a[i].lo && v <= a[i].hi) ) return 1;
  }
  return 0;
}

/* A length from reference r (a sequence, or a CTF 2 dynamic string or BLOB). */
static int dec_length(TlCtfDec *d, const TlCtfRef *r, const char *zWhat, const char *zName,
                      uint64_t *pN, TlErr *pErr){
  int64_t t = dec_ref(d, r);
  if( !dec_is_intval(d, t) ){
    return tl_err_set(pErr, TL_ECORRUPT, dec_off(d),
                      "the length of %s %s is not available", zWhat, zName ? zName : "");
  }
  if( d->aVal[t].pField->bSigned && d->aVal[t].v.i < 0 ){
    return tl_err_set(pErr, TL_ECORRUPT, dec_off(d), "%s %s has a negative length", zWhat, zName ? zName : "");
  }
  *pN = d->aVal[t].v.u;
  return TL_OK;
}

/* Reverse the low n bits of v. */
static uint64_t dec_rev_bits(uint64_t v, unsigned n){
  uint64_t r = 0;
  unsigned k;
  for(k=0; k<n; k++){ r = (r << 1) | (v & 1); v >>= 1; }
  return r;
}

/*
** CTF 2 strings: NUL-terminated (a NUL code unit of nCharBytes bytes ends
** it), or nLen / a length field's value in bytes. The node keeps the bytes
** up to the first NUL unit; renderers convert UTF-16/32 to UTF-8.
*/
static int dec_string2(TlCtfDec *d, uint32_t i, const TlCtfField *f, const char *zName, TlErr *pErr){
  TlCtfBits *b = &d->bits;
  const uint8_t *a;
  uint64_t nMax, n = 0, k;
  unsigned w = (unsigned)(f->nCharBytes>0 ? f->nCharBytes : 1);
  if( tl_ctf_bits_align(b, 8) ) return dec_past_end(d, pErr, "string", zName);
  a = b->a + b->iBit/8;
  nMax = (b->nBitEnd - b->iBit)/8;
  if( f->eLength==0 ){
    for(k=0; ; k+=w){
      unsigned j, bZero = 1;
      if( nMax - k < w || k>=nMax ) return dec_past_end(d, pErr, "string", zName);
      for(j=0; j<w; j++) if( a[k+j] ) bZero = 0;
      if( bZero ) break;
    }
    d->aVal[i].z = (const char*)a;
    d->aVal[i].n = (size_t)k;
    b->iBit += (k + w)*8;
    return TL_OK;
  }
  if( f->eLength==1 ) n = f->nLen;
  else{
    int rc = dec_length(d, &f->ref, "string", zName, &n, pErr);
    if( rc ) return rc;
  }
  if( n > nMax ) return dec_past_end(d, pErr, "string", zName);
  for(k=0; k+w<=n; k+=w){
    unsigned j, bZero = 1;
    for(j=0; j<w; j++) if( a[k+j] ) bZero = 0;
    if( bZero ) break;
  }
  d->aVal[i].z = (const char*)a;
  d->aVal[i].n = (size_t)(k < n ? k : n);
  b->iBit += n*8;
  return TL_OK;
}

/* LEB128: at most 10 bytes, and the value must fit 64 bits. */
static int dec_varint(TlCtfDec *d, uint32_t i, const TlCtfField *f, const char *zName, TlErr *pErr){
  TlCtfBits *b = &d->bits;
  uint64_t v = 0;
  unsigned k, nShift = 0;
  if( tl_ctf_bits_align(b, 8) ) return dec_past_end(d, pErr, "variable-length integer", zName);
  for(k=0; ; k++){
    uint8_t x;
    if( b->nBitEnd - b->iBit < 8 ) return dec_past_end(d, pErr, "variable-length integer", zName);
    if( k>=10 ){
      return tl_err_set(pErr, TL_ECORRUPT, dec_off(d),
                        "variable-length integer %s is longer than 10 bytes", zName ? zName : "");
    }
    x = b->a[b->iBit/8];
    b->iBit += 8;
    /* the 10th byte holds bit 63 only: 0 or 1 unsigned, 0 or 0x7f signed */
    if( nShift==63 && (f->bSigned ? ((x & 0x7f)!=0 && (x & 0x7f)!=0x7f) : (x & 0x7e)!=0) ){
      return tl_err_set(pErr, TL_ECORRUPT, dec_off(d),
                        "variable-length integer %s does not fit 64 bits", zName ? zName : "");
    }
    if( nShift<64 ) v |= (uint64_t)(x & 0x7f) << nShift;
    nShift += 7;
    if( !(x & 0x80) ){
      if( f->bSigned && nShift<64 && (x & 0x40) ) v |= ~(uint64_t)0 << nShift;
      break;
    }
  }
  d->aVal[i].v.u = v;
  return TL_OK;
}

/* An array or sequence of n elements at node i. */
static int dec_array(TlCtfDec *d, uint32_t i, const TlCtfField *f, uint64_t n, TlErr *pErr){
  const TlCtfField *e = f->pElem;
  uint64_t k;
  d->aVal[i].v.u = n;
  if( e==0 ) return tl_err_set(pErr, TL_ECORRUPT, dec_off(d), "array without an element type");
  /* An array is aligned as its elements, even when it has none. */
  if( tl_ctf_bits_align(&d->bits, (unsigned)(e->nAlign > f->nAlign ? e->nAlign : f->nAlign)) ){
    return dec_past_end(d, pErr, "array", d->aVal[i].zName);
  }
  if( (f->bText || e->bText) && e->eKind==TL_CTF_INT && e->nBits==8 && e->nAlign<=8 ){
    TlCtfBits *b = &d->bits;
    if( tl_ctf_bits_align(b, 8) || n > (b->nBitEnd - b->iBit)/8 ){
      return dec_past_end(d, pErr, "text array", d->aVal[i].zName);
    }
    d->aVal[i].z = (const char*)b->a + b->iBit/8;
    d->aVal[i].n = strnlen(d->aVal[i].z, (size_t)n);
    b->iBit += n*8;
    return TL_OK;
  }
  for(k=0; k<n; k++){
    int rc = dec_field(d, e, 0, pErr);
    if( rc ) return rc;
  }
  return TL_OK;
}

static int dec_field(TlCtfDec *d, const TlCtfField *f, const char *zName, TlErr *pErr){
  TlCtfBits *b = &d->bits;
  int64_t i;
  int rc = TL_OK, j;
  /* CTF 1.8: a leading underscore is not part of a field's name. */
  if( zName && zName[0]=='_' ) zName++;
  i = dec_node(d, f, zName, pErr);
  if( i<0 ) return TL_ENOMEM;
  switch( f->eKind ){
    case TL_CTF_INT:
    case TL_CTF_ENUM: {
      uint64_t v;
      if( f->bo!=d->boLast && (b->iBit & 7) && f->nAlign<8 && d->bBoLast ){
        /* CTF 1.8: the byte order may change only at a byte boundary. */
        return tl_err_set(pErr, TL_ECORRUPT, dec_off(d),
                          "integer %s: the byte order changes inside a byte",
                          zName ? zName : "");
      }
      d->boLast = f->bo;
      d->bBoLast = 1;
      if( tl_ctf_bits_uint(b, (unsigned)f->nAlign, (unsigned)f->nBits, f->bo, &v) ){
        return dec_past_end(d, pErr, "integer", zName);
      }
      if( f->bRevBits ) v = dec_rev_bits(v, (unsigned)f->nBits);
      if( f->bSigned && f->nBits<64 && ((v >> (f->nBits-1)) & 1) ) v |= ~(uint64_t)0 << f->nBits;
      d->aVal[i].v.u = v;
      break;
    }
    case TL_CTF_FLOAT:
      if( tl_ctf_bits_float(b, (unsigned)f->nAlign, (unsigned)f->nBits, f->bo, &d->aVal[i].v.d) ){
        return dec_past_end(d, pErr, "floating point number", zName);
      }
      break;
    case TL_CTF_STRING:
      if( f->eLength || f->nCharBytes>1 ){
        rc = dec_string2(d, (uint32_t)i, f, zName, pErr);
      }else if( tl_ctf_bits_string(b, &d->aVal[i].z, &d->aVal[i].n) ){
        return dec_past_end(d, pErr, "string", zName);
      }
      break;
    case TL_CTF_VARINT:
      rc = dec_varint(d, (uint32_t)i, f, zName, pErr);
      break;
    case TL_CTF_BLOB: {
      uint64_t n = f->nLen;
      if( f->eLength==2 && (rc = dec_length(d, &f->ref, "BLOB", zName, &n, pErr))!=TL_OK ) return rc;
      if( tl_ctf_bits_align(b, 8) || n > (b->nBitEnd - b->iBit)/8 ) return dec_past_end(d, pErr, "BLOB", zName);
      d->aVal[i].z = (const char*)b->a + b->iBit/8;
      d->aVal[i].n = (size_t)n;
      d->aVal[i].v.u = n;
      b->iBit += n*8;
      break;
    }
    case TL_CTF_OPTIONAL: {
      int64_t t = dec_ref(d, &f->ref);
      int bOn;
      if( !dec_is_intval(d, t) ){
        return tl_err_set(pErr, TL_ECORRUPT, dec_off(d),
                          "the selector of optional %s is not available", zName ? zName : "");
      }
      bOn = f->bSelRanges ? dec_in_ranges(f->aSelRange, f->nSelRange, d->aVal[t].pField->bSigned, d->aVal[t].v.u)
                          : d->aVal[t].v.u!=0;
      d->aVal[i].iOpt = (uint32_t)bOn;
      if( bOn ) rc = dec_field(d, f->pElem, 0, pErr);
      break;
    }
    case TL_CTF_STRUCT:
      if( tl_ctf_bits_align(b, (unsigned)f->nAlign) ) return dec_past_end(d, pErr, "struct", zName);
      for(j=0; j<f->nMember && rc==TL_OK; j++){
        rc = dec_field(d, f->aMember[j].pType, f->aMember[j].zName, pErr);
      }
      break;
    case TL_CTF_VARIANT: {
      int64_t t = dec_ref(d, &f->ref);
      if( f->bSelRanges ){
        /* CTF 2: the option whose selector ranges hold the value */
        if( !dec_is_intval(d, t) ){
          return tl_err_set(pErr, TL_ECORRUPT, dec_off(d),
                            "the selector of variant %s is not available", zName ? zName : "");
        }
        for(j=0; j<f->nMember; j++){
          if( dec_in_ranges(f->aMember[j].aRange, f->aMember[j].nRange,
                            d->aVal[t].pField->bSigned, d->aVal[t].v.u) ) break;
        }
        if( j>=f->nMember ){
          return tl_err_set(pErr, TL_ECORRUPT, dec_off(d),
                            "variant %s: selector value %lld selects no option",
                            zName ? zName : "", (long long)d->aVal[t].v.i);
        }
        d->aVal[i].iOpt = (uint32_t)j;
        rc = dec_field(d, f->aMember[j].pType, f->aMember[j].zName, pErr);
        break;
      }
      if( t<0 || d->aVal[t].pField->eKind!=TL_CTF_ENUM ){
        return tl_err_set(pErr, TL_ECORRUPT, dec_off(d),
                          "the tag of variant %s is not available", zName ? zName : "");
      }
      j = dec_variant_opt(f, d->aVal[t].pField, d->aVal[t].v.u);
      if( j<0 ){
        return tl_err_set(pErr, TL_ECORRUPT, dec_off(d),
                          "variant %s: tag value %lld selects no option",
                          zName ? zName : "", (long long)d->aVal[t].v.i);
      }
      d->aVal[i].iOpt = (uint32_t)j;
      rc = dec_field(d, f->aMember[j].pType, f->aMember[j].zName, pErr);
      break;
    }
    case TL_CTF_ARRAY:
      rc = dec_array(d, (uint32_t)i, f, f->nLen, pErr);
      break;
    case TL_CTF_SEQUENCE: {
      uint64_t n;
      rc = dec_length(d, &f->ref, "sequence", zName, &n, pErr);
      if( rc==TL_OK ) rc = dec_array(d, (uint32_t)i, f, n, pErr);
      break;
    }
    default:
      return tl_err_set(pErr, TL_ECORRUPT, dec_off(d), "unknown field class");
  }
  if( rc ) return rc;
  d->aVal[i].nSub = d->nVal - (uint32_t)i;
  return TL_OK;
}

int tl_ctf_dec_scope(TlCtfDec *d, int iScope, const TlCtfField *f, TlErr *pErr){
  int rc;
  d->bPastEnd = 0;
  d->aRoot[iScope] = -1;
  if( f==0 ) return TL_OK;
  d->aRoot[iScope] = (int)d->nVal;
  rc = dec_field(d, f, 0, pErr);
  if( rc ) d->aRoot[iScope] = -1;
  return rc;
}

/* ------------------------------------------------------------ skip plans */

#define TL_CTF_SKIP_ALIGN  1      /* only align */
#define TL_CTF_SKIP_FIXED  2      /* n bits */
#define TL_CTF_SKIP_BYTES  3      /* n whole bytes */
#define TL_CTF_SKIP_CSTR   4      /* up to and past a NUL byte */

typedef struct SkipBuild SkipBuild;
struct SkipBuild {
  TlCtfSkip *p;
  int nAlloc;
  int nNode;                      /* nodes the general decoder would make */
  int bFail;                      /* a shape plans do not cover, or no memory */
};

static void skip_op(SkipBuild *s, int eOp, unsigned nAlign, uint64_t n){
  TlCtfSkip *p = s->p;
  if( s->bFail ) return;
  if( p->nOp >= s->nAlloc ){
    int nNew = s->nAlloc ? s->nAlloc*2 : 16;
    TlCtfSkipOp *a = realloc(p->aOp, sizeof(*a)*(size_t)nNew);
    if( a==0 ){ s->bFail = 1; return; }
    p->aOp = a;
    s->nAlloc = nNew;
  }
  p->aOp[p->nOp].eOp = (uint8_t)eOp;
  p->aOp[p->nOp].nAlign = nAlign ? nAlign : 1;
  p->aOp[p->nOp].n = n;
  p->nOp++;
}

static void skip_field(SkipBuild *s, const TlCtfField *f){
  uint64_t k;
  if( s->bFail ) return;
  if( ++s->nNode > TL_CTF_SKIP_MAX_NODES || f->nAlign<1 || (f->nAlign & (f->nAlign-1)) ){
    s->bFail = 1;
    return;
  }
  switch( f->eKind ){
    case TL_CTF_INT:
    case TL_CTF_ENUM:
      /* below byte alignment the byte order check needs the position */
      if( f->nBits<1 || f->nBits>64 || f->nAlign<8 ){ s->bFail = 1; return; }
      skip_op(s, TL_CTF_SKIP_FIXED, (unsigned)f->nAlign, (uint64_t)f->nBits);
      s->p->bo = f->bo;
      s->p->bBo = 1;
      return;
    case TL_CTF_FLOAT:
      if( f->nBits!=32 && f->nBits!=64 ){ s->bFail = 1; return; }
      skip_op(s, TL_CTF_SKIP_FIXED, (unsigned)f->nAlign, (uint64_t)f->nBits);
      return;
    case TL_CTF_STRING:
      if( f->eLength || f->nCharBytes>1 ){ s->bFail = 1; return; }
      skip_op(s, TL_CTF_SKIP_CSTR, 8, 0);
      return;
    case TL_CTF_BLOB:
      if( f->eLength==2 ){ s->bFail = 1; return; }
      skip_op(s, TL_CTF_SKIP_BYTES, 8, f->nLen);
      return;
    case TL_CTF_STRUCT:
      skip_op(s, TL_CTF_SKIP_ALIGN, (unsigned)f->nAlign, 0);
      for(k=0; k<(uint64_t)f->nMember; k++) skip_field(s, f->aMember[k].pType);
      return;
    case TL_CTF_ARRAY: {
      const TlCtfField *e = f->pElem;
      if( e==0 || e->nAlign<1 ){ s->bFail = 1; return; }
      skip_op(s, TL_CTF_SKIP_ALIGN, (unsigned)(e->nAlign > f->nAlign ? e->nAlign : f->nAlign), 0);
      if( (f->bText || e->bText) && e->eKind==TL_CTF_INT && e->nBits==8 && e->nAlign<=8 ){
        skip_op(s, TL_CTF_SKIP_BYTES, 8, f->nLen);
        return;
      }
      if( f->nLen > TL_CTF_SKIP_MAX_NODES ){ s->bFail = 1; return; }
      for(k=0; k<f->nLen; k++) skip_field(s, e);
      return;
    }
    default:
      /* variants, sequences, optionals, LEB128, dynamic lengths */
      s->bFail = 1;
      return;
  }
}

int tl_ctf_skip_compile(TlCtfSkip *p, const TlCtfField *const *a, int n){
  SkipBuild s;
  int i;
  memset(p, 0, sizeof(*p));
  memset(&s, 0, sizeof(s));
  s.p = p;
  for(i=0; i<n; i++){
    if( a[i] ) skip_field(&s, a[i]);
  }
  if( s.bFail ){
    free(p->aOp);
    memset(p, 0, sizeof(*p));
    return TL_OK;
  }
  {
    /* Fold runs of whole-byte moves into one: a move of whole bytes that
    ** starts byte-aligned leaves the cursor byte-aligned, so what follows
    ** at an alignment of at most a byte needs no alignment of its own. */
    int j = 0;
    for(i=0; i<p->nOp; i++){
      TlCtfSkipOp *o = &p->aOp[i];
      if( j>0 ){
        TlCtfSkipOp *q = &p->aOp[j-1];
        int bQBytes = (q->eOp==TL_CTF_SKIP_FIXED && q->n%8==0 && q->nAlign>=8)
                   || q->eOp==TL_CTF_SKIP_BYTES;
        if( bQBytes && o->eOp==TL_CTF_SKIP_ALIGN && o->nAlign<=8 ) continue;   /* a no-op there */
        if( bQBytes && o->nAlign<=8 && (o->eOp==TL_CTF_SKIP_FIXED || o->eOp==TL_CTF_SKIP_BYTES)
         && (o->eOp==TL_CTF_SKIP_BYTES || o->n%8==0) ){
          uint64_t nBits = (q->eOp==TL_CTF_SKIP_BYTES ? q->n*8 : q->n)
                         + (o->eOp==TL_CTF_SKIP_BYTES ? o->n*8 : o->n);
          if( nBits/8 < ((uint64_t)1<<60) ){
            q->eOp = TL_CTF_SKIP_FIXED;
            q->n = nBits;
            continue;
          }
        }
      }
      p->aOp[j++] = *o;
    }
    p->nOp = j;
  }
  p->bOk = 1;
  return TL_OK;
}

void tl_ctf_skip_free(TlCtfSkip *p){
  free(p->aOp);
  memset(p, 0, sizeof(*p));
}

static inline __attribute__((always_inline)) int skip_run(const TlCtfSkip *p, TlCtfDec *d){
  TlCtfBits *b = &d->bits;
  uint64_t i = b->iBit, end = b->nBitEnd;
  int k;
  for(k=0; k<p->nOp; k++){
    const TlCtfSkipOp *o = &p->aOp[k];
    uint64_t m = (uint64_t)o->nAlign - 1;
    if( i > UINT64_MAX - m ) return -1;
    i = (i + m) & ~m;
    if( i > end ) return -1;
    switch( o->eOp ){
      case TL_CTF_SKIP_FIXED:
        if( end - i < o->n ) return -1;
        i += o->n;
        break;
      case TL_CTF_SKIP_BYTES:
        if( o->n > (end - i)/8 ) return -1;
        i += o->n*8;
        break;
      case TL_CTF_SKIP_CSTR: {
        size_t nByte = (size_t)(end/8), j = (size_t)(i/8);
        const uint8_t *z;
        size_t t, nShort;
        if( j >= nByte ) return -1;
        /* most strings are short: a look at the first bytes, eight at a
        ** time while eight are left, then memchr for the rest */
        nShort = nByte - j < 32 ? nByte - j : 32;
        t = 0;
        while( nShort - t >= 8 ){
          uint64_t w = tl_load_u64_unchecked(b->a + j + t, TL_LE);
          uint64_t z0 = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
          if( z0 ){
            t += (size_t)__builtin_ctzll(z0)/8;      /* the first zero byte */
            break;
          }
          t += 8;
        }
        if( nShort - t < 8 ){
          for(; t<nShort && b->a[j+t]; t++){}
        }
        if( t<nShort ){
          i = (uint64_t)(j + t + 1)*8;
          break;
        }
        z = memchr(b->a + j + nShort, 0, nByte - j - nShort);
        if( z==0 ) return -1;
        i = (uint64_t)(z - b->a + 1)*8;
        break;
      }
      default:
        break;
    }
  }
  b->iBit = i;
  if( p->bBo ){
    d->boLast = p->bo;
    d->bBoLast = 1;
  }
  return 0;
}

/* ----------------------------------------------------------- header plans */

#define TL_CTF_HDR_ALIGN   1
#define TL_CTF_HDR_INT     2      /* read an integer (its value kept by op index) */
#define TL_CTF_HDR_VARIANT 3      /* jump by the value of op iArg */
#define TL_CTF_HDR_JUMP    4      /* to op iArg */

#define TL_CTF_HDR_MAX_OPS  64    /* also the size of a run's value array */
#define TL_CTF_HDR_MAX_PATH 8
#define TL_CTF_HDR_MAX_INT  16

typedef struct HdrBuild HdrBuild;
struct HdrBuild {
  TlCtfHdrPlan *p;
  int bFail;                      /* a shape plans do not cover, or no memory */
  int nPath;                      /* member path of the field being built, */
  int aPath[TL_CTF_HDR_MAX_PATH]; /* -1 inside a variant option */
  int nInt;                       /* integers a selector may name */
  struct {
    int iOp, nPath, aPath[TL_CTF_HDR_MAX_PATH];
    const TlCtfField *pField;
  } aInt[TL_CTF_HDR_MAX_INT];
};

static int hdr_op(HdrBuild *s, int eOp){
  TlCtfHdrPlan *p = s->p;
  if( s->bFail ) return -1;
  if( p->nOp >= TL_CTF_HDR_MAX_OPS ){ s->bFail = 1; return -1; }
  memset(&p->aOp[p->nOp], 0, sizeof(p->aOp[0]));
  p->aOp[p->nOp].eOp = (uint8_t)eOp;
  p->aOp[p->nOp].nAlign = 1;
  return p->nOp++;
}

/* The entry of the integer reference r names (header scope), or -1. */
static int hdr_find_int(const HdrBuild *s, const TlCtfRef *r){
  int i, k;
  if( r->iScope!=TL_CTF_SCOPE_EV_HEADER ) return -1;
  for(i=s->nInt-1; i>=0; i--){
    if( s->aInt[i].nPath!=r->nPath ) continue;
    for(k=0; k<r->nPath && s->aInt[i].aPath[k]==r->aPath[k]; k++){}
    if( k==r->nPath ) return i;
  }
  return -1;
}

static void hdr_field(HdrBuild *s, const TlCtfField *f, int nDepth);


static void hdr_variant(HdrBuild *s, const TlCtfField *f, int nDepth){
  int iTag = hdr_find_int(s, &f->ref), iVar, j, k, nSel = 0;
  int aStart[16], aEnd[16];
  const TlCtfField *pTag;
  TlCtfHdrSel *aSel;
  if( iTag<0 || f->nMember<1 || f->nMember>16 || s->nPath>=TL_CTF_HDR_MAX_PATH ){
    s->bFail = 1;
    return;
  }
  pTag = s->aInt[iTag].pField;
  if( !f->bSelRanges && pTag->eKind!=TL_CTF_ENUM ){ s->bFail = 1; return; }
  iVar = hdr_op(s, TL_CTF_HDR_VARIANT);
  if( iVar<0 ) return;
  s->aPath[s->nPath++] = -1;
  for(j=0; j<f->nMember && !s->bFail; j++){
    aStart[j] = s->p->nOp;
    hdr_field(s, f->aMember[j].pType, nDepth+1);
    aEnd[j] = hdr_op(s, TL_CTF_HDR_JUMP);
  }
  s->nPath--;
  if( s->bFail ) return;
  for(j=0; j<f->nMember; j++) s->p->aOp[aEnd[j]].iArg = s->p->nOp;
  /* the selector's ranges, in the order the general decoder tries them */
  if( f->bSelRanges ){
    for(j=0; j<f->nMember; j++) nSel += f->aMember[j].nRange;
  }else{
    nSel = pTag->nRange;
  }
  aSel = calloc((size_t)(nSel ? nSel : 1), sizeof(*aSel));
  if( aSel==0 ){ s->bFail = 1; return; }
  s->p->aOp[iVar].aSel = aSel;
  s->p->aOp[iVar].iArg = s->aInt[iTag].iOp;
  s->p->aOp[iVar].bSigned = (uint8_t)pTag->bSigned;
  nSel = 0;
  if( f->bSelRanges ){
    for(j=0; j<f->nMember; j++){
      for(k=0; k<f->aMember[j].nRange; k++){
        aSel[nSel].lo = f->aMember[j].aRange[k].lo;
        aSel[nSel].hi = f->aMember[j].aRange[k].hi;
        aSel[nSel].iOp = aStart[j];
        nSel++;
      }
    }
  }else{
    for(k=0; k<pTag->nRange; k++){
      const TlCtfRange *r = &pTag->aRange[k];
      if( r->zLabel==0 ) continue;
      for(j=0; j<f->nMember; j++){
        if( dec_opt_match(f->aMember[j].zName, r->zLabel) ) break;
      }
      if( j>=f->nMember ) continue;
      aSel[nSel].lo = r->lo;
      aSel[nSel].hi = r->hi;
      aSel[nSel].iOp = aStart[j];
      nSel++;
    }
  }
  s->p->aOp[iVar].nSel = nSel;
}

static void hdr_field(HdrBuild *s, const TlCtfField *f, int nDepth){
  int i, j;
  if( s->bFail ) return;
  if( nDepth>TL_CTF_HDR_MAX_PATH || f->nAlign<1 || (f->nAlign & (f->nAlign-1)) ){
    s->bFail = 1;
    return;
  }
  switch( f->eKind ){
    case TL_CTF_INT:
    case TL_CTF_ENUM:
      if( f->nBits<1 || f->nBits>64 || f->bRevBits ){ s->bFail = 1; return; }
      i = hdr_op(s, TL_CTF_HDR_INT);
      if( i<0 ) return;
      s->p->aOp[i].nAlign = (uint32_t)f->nAlign;
      s->p->aOp[i].nBits = (uint32_t)f->nBits;
      s->p->aOp[i].bo = (uint8_t)f->bo;
      s->p->aOp[i].bSigned = (uint8_t)(f->bSigned!=0);
      s->p->aOp[i].eRole = (uint8_t)(f->eRole==TL_CTF_ROLE_ID || f->eRole==TL_CTF_ROLE_CLOCK ? f->eRole : 0);
      if( s->nInt < TL_CTF_HDR_MAX_INT ){
        s->aInt[s->nInt].iOp = i;
        s->aInt[s->nInt].nPath = s->nPath;
        memcpy(s->aInt[s->nInt].aPath, s->aPath, sizeof(s->aPath));
        s->aInt[s->nInt].pField = f;
        for(j=0; j<s->nPath && s->aPath[j]>=0; j++){}
        if( j==s->nPath ) s->nInt++;   /* outside variants: a selector candidate */
      }
      return;
    case TL_CTF_STRUCT:
      i = hdr_op(s, TL_CTF_HDR_ALIGN);
      if( i<0 ) return;
      s->p->aOp[i].nAlign = (uint32_t)f->nAlign;
      if( s->nPath>=TL_CTF_HDR_MAX_PATH ){ s->bFail = 1; return; }
      s->nPath++;
      for(j=0; j<f->nMember && !s->bFail; j++){
        s->aPath[s->nPath-1] = s->nPath>=2 && s->aPath[s->nPath-2]<0 ? -1 : j;
        hdr_field(s, f->aMember[j].pType, nDepth+1);
      }
      s->nPath--;
      return;
    case TL_CTF_VARIANT:
      hdr_variant(s, f, nDepth);
      return;
    default:
      s->bFail = 1;
      return;
  }
}

/*
** The integer at op *pk, ALIGN ops before it folded into its alignment:
** 0 with *pInt and *pk past it, -1 when op *pk (after the ALIGNs) is not
** an unsigned integer of byte order bo (-1: take the first one's).
*/
static int hdr_fast_int(const TlCtfHdrPlan *p, int *pk, int *pBo, TlCtfHdrFastInt *pInt){
  uint32_t nAlign = 1;
  int k = *pk;
  while( k<p->nOp && p->aOp[k].eOp==TL_CTF_HDR_ALIGN ){
    if( p->aOp[k].nAlign > nAlign ) nAlign = p->aOp[k].nAlign;
    k++;
  }
  if( k>=p->nOp ) return -1;
  {
    const TlCtfHdrOp *o = &p->aOp[k];
    if( o->eOp!=TL_CTF_HDR_INT || o->bSigned || o->nBits<1 || o->nBits>64 ) return -1;
    if( *pBo>=0 && o->bo!=*pBo ) return -1;
    *pBo = o->bo;
    pInt->nAlign = o->nAlign > nAlign ? o->nAlign : nAlign;
    pInt->nBits = o->nBits;
    pInt->eRole = o->eRole;
  }
  *pk = k + 1;
  return 0;
}

/* Recognize the usual header shape in plan p (p->fast.bOk 1 if so). */
static void hdr_fast_compile(TlCtfHdrPlan *p){
  TlCtfHdrFast *f = &p->fast;
  const TlCtfHdrOp *v;
  int k = 0, bo = -1, j;
  memset(f, 0, sizeof(*f));
  if( hdr_fast_int(p, &k, &bo, &f->id) || f->id.eRole!=TL_CTF_ROLE_ID ) return;
  if( k>=p->nOp ) return;
  v = &p->aOp[k];
  if( v->eOp!=TL_CTF_HDR_VARIANT || v->iArg!=k-1 || v->nSel!=2 || v->bSigned ) return;
  for(j=0; j<2; j++){
    int kk = v->aSel[j].iOp, n = 0;
    f->aOpt[j].lo = v->aSel[j].lo;
    f->aOpt[j].hi = v->aSel[j].hi;
    for(;;){
      if( kk>=p->nOp ) break;
      if( p->aOp[kk].eOp==TL_CTF_HDR_JUMP ){
        if( p->aOp[kk].iArg!=p->nOp ) return;       /* only a jump to the end */
        break;
      }
      if( n>=2 || hdr_fast_int(p, &kk, &bo, &f->aOpt[j].aInt[n]) ) return;
      if( f->aOpt[j].aInt[n].eRole!=TL_CTF_ROLE_ID && f->aOpt[j].aInt[n].eRole!=TL_CTF_ROLE_CLOCK ) return;
      n++;
    }
    if( n==0 ) return;
    f->aOpt[j].nInt = n;
  }
  f->bo = bo;
  f->bOk = 1;
}

/* An unsigned integer at bit *pi (aligned first): 0 with *pv, or -1. */
static inline __attribute__((always_inline)) int hdr_fast_read(const TlCtfBits *b, uint64_t *pi, const TlCtfHdrFastInt *t, int bo, uint64_t *pv){
  uint64_t m = (uint64_t)t->nAlign - 1, i = *pi;
  if( i > UINT64_MAX - m ) return -1;
  i = (i + m) & ~m;
  if( i > b->nBitEnd || b->nBitEnd - i < t->nBits ) return -1;
  if( ((i | t->nBits) & 7)==0 ){
    const uint8_t *a = b->a + i/8;
    switch( t->nBits ){
      case 8:  *pv = a[0]; break;
      case 16: *pv = tl_load_u16_unchecked(a, bo); break;
      case 32: *pv = tl_load_u32_unchecked(a, bo); break;
      case 64: *pv = tl_load_u64_unchecked(a, bo); break;
      default:
        if( tl_bits_read(b->a, b->n, i, t->nBits, bo, pv) ) return -1;
        break;
    }
  }else if( tl_bits_read(b->a, b->n, i, t->nBits, bo, pv) ){
    return -1;
  }
  *pi = i + t->nBits;
  return 0;
}

/*
** Run the usual header shape: 0 as tl_ctf_hdr_run() on success, 1 when the
** caller should run the plan's ops instead (the same header, read the long
** way: a byte order change, the end of the data, no option chosen).
*/
static inline __attribute__((always_inline)) int hdr_fast_run(const TlCtfHdrFast *f, TlCtfDec *d, uint64_t *pId, int *pbId,
                        uint64_t *pClock, int *pbClock){
  const TlCtfBits *b = &d->bits;
  uint64_t i = b->iBit, v, id, clock = *pClock;
  int bClock = *pbClock, j, k;
  if( d->bBoLast && d->boLast!=f->bo ) return 1;
  if( hdr_fast_read(b, &i, &f->id, f->bo, &id) ) return 1;
  for(j=0; j<2 && !(id>=f->aOpt[j].lo && id<=f->aOpt[j].hi); j++){}
  if( j>=2 ) return 1;
  for(k=0; k<f->aOpt[j].nInt; k++){
    const TlCtfHdrFastInt *t = &f->aOpt[j].aInt[k];
    if( hdr_fast_read(b, &i, t, f->bo, &v) ) return 1;
    if( t->eRole==TL_CTF_ROLE_ID ){
      id = v;
    }else{
      clock = bClock ? tl_ctf_clock_update(clock, v, t->nBits) : v;
      bClock = 1;
    }
  }
  d->bits.iBit = i;
  d->boLast = f->bo;
  d->bBoLast = 1;
  *pId = id;
  *pbId = 1;
  *pClock = clock;
  *pbClock = bClock;
  return 0;
}

int tl_ctf_hdr_compile(TlCtfHdrPlan *p, const TlCtfField *f){
  HdrBuild *s;
  memset(p, 0, sizeof(*p));
  if( f==0 ) return TL_OK;
  s = calloc(1, sizeof(*s));
  p->aOp = calloc(TL_CTF_HDR_MAX_OPS, sizeof(TlCtfHdrOp));
  if( s==0 || p->aOp==0 ){
    free(s);
    free(p->aOp);
    p->aOp = 0;
    return TL_ENOMEM;
  }
  s->p = p;
  hdr_field(s, f, 0);
  if( s->bFail ) tl_ctf_hdr_free(p);
  else{
    p->bOk = 1;
    hdr_fast_compile(p);
  }
  free(s);
  return TL_OK;
}

void tl_ctf_hdr_free(TlCtfHdrPlan *p){
  int i;
  for(i=0; i<p->nOp; i++) free(p->aOp[i].aSel);
  free(p->aOp);
  memset(p, 0, sizeof(*p));
}

static inline __attribute__((always_inline)) int hdr_run(const TlCtfHdrPlan *p, TlCtfDec *d,
                   uint64_t *pId, int *pbId, uint64_t *pClock, int *pbClock){
  TlCtfBits *b = &d->bits;
  if( p->fast.bOk && hdr_fast_run(&p->fast, d, pId, pbId, pClock, pbClock)==0 ) return 0;
  uint64_t aVal[TL_CTF_HDR_MAX_OPS];
  uint64_t i = b->iBit, end = b->nBitEnd, id = *pId, clock = *pClock;
  int k = 0, bo = d->boLast, bBo = d->bBoLast, bId = *pbId, bClock = *pbClock;
  while( k<p->nOp ){
    const TlCtfHdrOp *o = &p->aOp[k];
    switch( o->eOp ){
      case TL_CTF_HDR_ALIGN: {
        uint64_t m = (uint64_t)o->nAlign - 1;
        if( i > UINT64_MAX - m ) return -1;
        i = (i + m) & ~m;
        if( i > end ) return -1;
        k++;
        break;
      }
      case TL_CTF_HDR_INT: {
        uint64_t m = (uint64_t)o->nAlign - 1, v;
        if( o->bo!=bo && (i & 7) && o->nAlign<8 && bBo ) return -1;
        if( i > UINT64_MAX - m ) return -1;
        i = (i + m) & ~m;
        if( i > end || end - i < o->nBits ) return -1;
        if( ((i | o->nBits) & 7)==0 ){
          const uint8_t *a = b->a + i/8;
          unsigned n = o->nBits/8, t;
          switch( n ){
            /* the usual widths: one load each */
            case 1: v = a[0]; break;
            case 2: v = tl_load_u16_unchecked(a, o->bo); break;
            case 4: v = tl_load_u32_unchecked(a, o->bo); break;
            case 8: v = tl_load_u64_unchecked(a, o->bo); break;
            default:
              v = 0;
              if( o->bo==TL_BE ){
                for(t=0; t<n; t++) v = (v << 8) | a[t];
              }else{
                for(t=n; t>0; t--) v = (v << 8) | a[t-1];
              }
              break;
          }
        }else if( tl_bits_read(b->a, b->n, i, o->nBits, o->bo, &v) ){
          return -1;
        }
        i += o->nBits;
        bo = o->bo;
        bBo = 1;
        if( o->bSigned && o->nBits<64 && ((v >> (o->nBits-1)) & 1) ) v |= ~(uint64_t)0 << o->nBits;
        aVal[k] = v;
        if( o->eRole==TL_CTF_ROLE_ID ){
          id = v;
          bId = 1;
        }else if( o->eRole==TL_CTF_ROLE_CLOCK ){
          clock = bClock ? tl_ctf_clock_update(clock, v, o->nBits) : v;
          bClock = 1;
        }
        k++;
        break;
      }
      case TL_CTF_HDR_VARIANT: {
        uint64_t v = aVal[o->iArg];
        int j;
        for(j=0; j<o->nSel; j++){
          const TlCtfHdrSel *r = &o->aSel[j];
          if( o->bSigned ? ((int64_t)v >= (int64_t)r->lo && (int64_t)v <= (int64_t)r->hi)
                         : (v >= r->lo && v <= r->hi) ) break;
        }
        if( j>=o->nSel ) return -1;
        k = o->aSel[j].iOp;
        break;
      }
      default:  /* TL_CTF_HDR_JUMP */
        k = o->iArg;
        break;
    }
  }
  b->iBit = i;
  d->boLast = bo;
  d->bBoLast = bBo;
  *pId = id;
  *pbId = bId;
  *pClock = clock;
  *pbClock = bClock;
  return 0;
}

int tl_ctf_skip_run(const TlCtfSkip *p, TlCtfDec *d){
  return skip_run(p, d);
}

int tl_ctf_hdr_run(const TlCtfHdrPlan *p, TlCtfDec *d, uint64_t *pId, int *pbId,
                   uint64_t *pClock, int *pbClock){
  return hdr_run(p, d, pId, pbId, pClock, pbClock);
}

/*
** One event by header plan pHdr and sc's skip plans aSkip: its class's index
** in sc->aEvent, the clock updated; or -1 (no plan for its class, damage, the
** end of the data), the cursor then anywhere in the event. (Inlined into the
** count loops: a call each per event was a tenth of a count.)
*/
static inline __attribute__((always_inline)) int plan_event(const TlCtfHdrPlan *pHdr,
    const TlCtfSkip *aSkip, const TlCtfStreamClass *sc, TlCtfDec *d, uint64_t *pClock, int *pbClock){
  uint64_t id = 0;
  int bId = 0, iEC;
  if( hdr_run(pHdr, d, &id, &bId, pClock, pbClock) ) return -1;
  if( !bId && sc->nEvent==1 ) id = sc->aEvent[0].id;
  iEC = tl_ctf_event_index(sc, id);
  if( iEC<0 || !aSkip[iEC].bOk || skip_run(&aSkip[iEC], d) ) return -1;
  return iEC;
}

int tl_ctf_plan_event(const TlCtfHdrPlan *pHdr, const TlCtfSkip *aSkip, const TlCtfStreamClass *sc,
                      TlCtfDec *d, uint64_t *pClock, int *pbClock){
  return plan_event(pHdr, aSkip, sc, d, pClock, pbClock);
}

/* One event of a count: 1 when counted, 0 at the content's end, -1 for an
** event the plans cannot take, the decoder and clock then back at its
** start (a count of a packet's part goes on there in the next part). */
static inline __attribute__((always_inline)) int count_step(const TlCtfCount *j, TlCtfDec *d,
                                                          uint64_t *pClock, int *pbClock){
  uint64_t iStart = d->bits.iBit, clock = *pClock;
  int iEC, bClock = *pbClock, bo = d->boLast, bBo = d->bBoLast;
  if( iStart >= d->bits.nBitEnd ) return 0;
  iEC = plan_event(j->pHdr, j->aSkip, j->sc, d, pClock, pbClock);
  if( iEC<0 || d->bits.iBit==iStart ){
    d->bits.iBit = iStart;
    d->boLast = bo;
    d->bBoLast = bBo;
    *pClock = clock;
    *pbClock = bClock;
    return -1;
  }
  if( j->aTally ) j->aTally[iEC]++;
  return 1;
}

/*
** The count loops work on copies of the decoder and clock, which stay in
** registers: through the job's pointers, every tally store could change
** them as far as the compiler knows.
*/
void tl_ctf_count_plans(TlCtfCount *j){
  TlCtfDec d = *j->d;
  uint64_t clock = j->clock, n = 0;
  int bClock = j->bClock, r;
  while( (r = count_step(j, &d, &clock, &bClock))>0 ) n++;
  *j->d = d;
  j->clock = clock;
  j->bClock = bClock;
  j->n = n;
  j->rc = r;
}

/*
** One packet's events against a window of clock values (see
** tl_ctf_count_plans_window()). A header with no clock value ends the count
** with rc -2, past that event.
*/
void tl_ctf_count_plans_window(TlCtfCount *j, uint64_t cLo, uint64_t cHi,
                               uint64_t *piFirst, int *pbPast){
  TlCtfDec d = *j->d;
  uint64_t clock = j->clock, n = 0, nFirst = 0;
  int bClock = j->bClock, r;
  *pbPast = 0;
  while( (r = count_step(j, &d, &clock, &bClock))>0 ){
    if( !bClock ){ r = -2; break; }
    if( clock < cLo ){
      nFirst++;
    }else if( clock > cHi ){
      *pbPast = 1;
      r = 0;
      break;
    }else{
      n++;
    }
  }
  *j->d = d;
  j->clock = clock;
  j->bClock = bClock;
  j->n = n;
  j->rc = r;
  *piFirst = nFirst;
}

/*
** Two packets at once, an event of each in turn: an event's size is known
** only once it is read, so one packet's events are a chain of dependent
** loads, and a second chain beside it uses the time the first one waits.
*/
void tl_ctf_count_plans_pair(TlCtfCount *a, TlCtfCount *b){
  TlCtfDec da = *a->d, db = *b->d;
  uint64_t ca = a->clock, cb = b->clock, na = 0, nb = 0;
  int bca = a->bClock, bcb = b->bClock, ra = 1, rb = 1;
  while( ra>0 && rb>0 ){
    ra = count_step(a, &da, &ca, &bca);
    rb = count_step(b, &db, &cb, &bcb);
    na += ra>0;
    nb += rb>0;
  }
  while( ra>0 && (ra = count_step(a, &da, &ca, &bca))>0 ) na++;
  while( rb>0 && (rb = count_step(b, &db, &cb, &bcb))>0 ) nb++;
  *a->d = da; a->clock = ca; a->bClock = bca; a->n = na; a->rc = ra;
  *b->d = db; b->clock = cb; b->bClock = bcb; b->n = nb; b->rc = rb;
}
