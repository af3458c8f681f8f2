/*
** ctf_render.c: decoded CTF values as babeltrace2 prints them (`text`)
** and as JSON (`args`).
**
** The text follows babeltrace2 2.0's pretty sink, checked on its output
** for the peer traces and for small traces written to test each rule:
**   - integers in their display base: decimal; hexadecimal "0x" + upper
**     case digits; octal "0" + digits; binary "0b" + exactly the field's
**     bits. Signed values in base 16 are masked to the field's width, in
**     base 8 to the width rounded up to a multiple of 3;
**   - enums `( "A" : container = 4 )`, several labels `( "A", "B" : ...)`,
**     none `( <unknown> : container = 50 )`;
**   - floats with "%g"; strings and text arrays in double quotes with
**     \\ \' \" \? escaped, control characters as \n \t ... or \xHH;
**   - structs `{ a = 1, b = 2 }` (empty: `{ }`), arrays and sequences
**     `[ [0] = 1, [1] = 2 ]` (empty: `[ ]`), variants `{ value }`;
**   - the event: packet context without the fields babeltrace2 takes as
**     packet properties (skipped when nothing else is left), stream event
**     context, event context, payload, each in braces, joined by ", ".
*/
#include "ctf/ctf_value.h"

#include <stdio.h>
#include <string.h>

#include "bytes.h"

#define RENDER_MAX_DEPTH 200      /* deeper values print as "..." */

/* A string escaped as babeltrace2 escapes it, in double quotes. */
static void render_string(TlStr *p, const char *z, size_t n){
  size_t i, iStart = 0;
  tl_str_appendc(p, '"');
  for(i=0; i<n; i++){
    unsigned char c = (unsigned char)z[i];
    const char *zEsc = 0;
    char zHex[8];
    switch( c ){
      case '\\': zEsc = "\\\\"; break;
      case '\'': zEsc = "\\'"; break;
      case '"':  zEsc = "\\\""; break;
      case '?':  zEsc = "\\?"; break;
      case '\a': zEsc = "\\a"; break;
      case '\b': zEsc = "\\b"; break;
      case 0x1b: zEsc = "\\e"; break;
      case '\f': zEsc = "\\f"; break;
      case '\n': zEsc = "\\n"; break;
      case '\r': zEsc = "\\r"; break;
      case '\t': zEsc = "\\t"; break;
      case '\v': zEsc = "\\v"; break;
      default:
        if( c<0x20 || c==0x7f ){
          snprintf(zHex, sizeof(zHex), "\\x%02x", c);
          zEsc = zHex;
        }
        break;
    }
    if( zEsc ){
      tl_str_append(p, z+iStart, i-iStart);
      tl_str_appendz(p, zEsc);
      iStart = i+1;
    }
  }
  tl_str_append(p, z+iStart, n-iStart);
  tl_str_appendc(p, '"');
}

/* An integer value of class f in its display base. */
static void render_int(TlStr *p, const TlCtfField *f, uint64_t u){
  int nBits = f->nBits;
  switch( f->nBase ){
    case 16:
      if( f->bSigned && nBits<64 ) u &= ((uint64_t)1 << nBits) - 1;
      tl_str_appendf(p, "0x%llX", (unsigned long long)u);
      break;
    case 8:
      if( f->bSigned && nBits<64 ){
        int nRound = ((nBits - 1)/3 + 1)*3;
        if( nRound<64 ) u &= ((uint64_t)1 << nRound) - 1;
      }
      tl_str_appendf(p, "0%llo", (unsigned long long)u);
      break;
    case 2: {
      int k;
      tl_str_appendz(p, "0b");
      for(k=nBits-1; k>=0; k--) tl_str_appendc(p, (char)('0' + ((u >> k) & 1)));
      break;
    }
    default:
      if( f->bSigned ) tl_str_appendf(p, "%lld", (long long)(int64_t)u);
      else tl_str_appendf(p, "%llu", (unsigned long long)u);
      break;
  }
}

/*
** A CTF 2 string node's text as UTF-8: UTF-16 or UTF-32 code units are
** converted (an unpaired surrogate or a value beyond U+10FFFF becomes
** U+FFFD); UTF-8 is used as it is. Returns the bytes in *pz, *pn.
*/
static void string_utf8(const TlCtfVal *v, TlStr *pTmp, const char **pz, size_t *pn){
  const TlCtfField *f = v->pField;
  const uint8_t *a = (const uint8_t*)v->z;
  size_t k, w = (size_t)(f->nCharBytes>1 ? f->nCharBytes : 1);
  if( w==1 || a==0 ){ *pz = v->z ? v->z : ""; *pn = v->n; return; }
  tl_str_reset(pTmp);
  tl_str_append(pTmp, "", 0);
  for(k=0; k+w<=v->n; k+=w){
    uint32_t c;
    char z[4];
    size_t n;
    if( w==2 ){
      c = f->bo==TL_BE ? (uint32_t)a[k]<<8 | a[k+1] : (uint32_t)a[k+1]<<8 | a[k];
      if( c>=0xD800 && c<=0xDBFF && k+4<=v->n ){
        uint32_t lo = f->bo==TL_BE ? (uint32_t)a[k+2]<<8 | a[k+3] : (uint32_t)a[k+3]<<8 | a[k+2];
        if( lo>=0xDC00 && lo<=0xDFFF ){ c = 0x10000 + ((c - 0xD800)<<10) + (lo - 0xDC00); k += 2; }
      }
    }else{
      c = f->bo==TL_BE ? (uint32_t)a[k]<<24 | (uint32_t)a[k+1]<<16 | (uint32_t)a[k+2]<<8 | a[k+3]
                       : (uint32_t)a[k+3]<<24 | (uint32_t)a[k+2]<<16 | (uint32_t)a[k+1]<<8 | a[k];
    }
    if( (c>=0xD800 && c<=0xDFFF) || c>0x10FFFF ) c = 0xFFFD;
    n = tl_utf8_put(z, c);
    tl_str_append(pTmp, z, n);
  }
  *pz = pTmp->z ? pTmp->z : "";
  *pn = pTmp->n;
}

/* A string node through xOut (quoted text or JSON), as UTF-8. */
static void string_out(TlStr *p, const TlCtfVal *v, void (*xOut)(TlStr*, const char*, size_t)){
  TlStr tmp;
  const char *z;
  size_t n;
  tl_str_init(&tmp);
  string_utf8(v, &tmp, &z, &n);
  xOut(p, z, n);
  tl_str_free(&tmp);
}

/* Does enum range r hold value u of class f? */
static int range_has(const TlCtfField *f, const TlCtfRange *r, uint64_t u){
  if( f->bSigned ) return (int64_t)u >= (int64_t)r->lo && (int64_t)u <= (int64_t)r->hi;
  return u >= r->lo && u <= r->hi;
}

/* Render node i (its subtree) as text; returns the node after it. */
static uint32_t render_text(TlStr *p, const TlCtfVal *a, uint32_t i, int nDepth){
  const TlCtfVal *v = &a[i];
  const TlCtfField *f = v->pField;
  uint32_t c, end = i + (v->nSub ? v->nSub : 1);
  if( nDepth > RENDER_MAX_DEPTH ){
    tl_str_appendz(p, "...");
    return end;
  }
  switch( f->eKind ){
    case TL_CTF_INT:
      if( f->bBool ) tl_str_appendz(p, v->v.u ? "true" : "false");
      else render_int(p, f, v->v.u);
      break;
    case TL_CTF_VARINT:
      render_int(p, f, v->v.u);
      break;
    case TL_CTF_BLOB: {
      size_t k;
      for(k=0; k<v->n; k++) tl_str_appendf(p, "%02x", (unsigned char)v->z[k]);
      break;
    }
    case TL_CTF_OPTIONAL:
      if( i+1<end ) render_text(p, a, i+1, nDepth+1);
      else tl_str_appendz(p, "<none>");
      break;
    case TL_CTF_ENUM: {
      int k, n = 0;
      tl_str_appendz(p, "( ");
      for(k=0; k<f->nRange; k++){
        if( !range_has(f, &f->aRange[k], v->v.u) ) continue;
        if( n++ ) tl_str_appendz(p, ", ");
        render_string(p, f->aRange[k].zLabel, strlen(f->aRange[k].zLabel));
      }
      if( n==0 ) tl_str_appendz(p, "<unknown>");
      tl_str_appendz(p, " : container = ");
      render_int(p, f, v->v.u);
      tl_str_appendz(p, " )");
      break;
    }
    case TL_CTF_FLOAT:
      tl_str_appendf(p, "%g", v->v.d);
      break;
    case TL_CTF_STRING:
      string_out(p, v, render_string);
      break;
    case TL_CTF_STRUCT: {
      int n = 0;
      tl_str_appendz(p, "{ ");
      for(c=i+1; c<end; ){
        if( n++ ) tl_str_appendz(p, ", ");
        tl_str_appendf(p, "%s = ", a[c].zName ? a[c].zName : "");
        c = render_text(p, a, c, nDepth+1);
      }
      tl_str_appendz(p, n ? " }" : "}");
      break;
    }
    case TL_CTF_VARIANT:
      tl_str_appendz(p, "{ ");
      if( i+1<end ) render_text(p, a, i+1, nDepth+1);
      tl_str_appendz(p, " }");
      break;
    case TL_CTF_ARRAY:
    case TL_CTF_SEQUENCE: {
      uint64_t k = 0;
      if( v->z ){
        render_string(p, v->z, v->n);
        break;
      }
      tl_str_appendz(p, "[ ");
      for(c=i+1; c<end; k++){
        if( k ) tl_str_appendz(p, ", ");
        tl_str_appendf(p, "[%llu] = ", (unsigned long long)k);
        c = render_text(p, a, c, nDepth+1);
      }
      tl_str_appendz(p, k ? " ]" : "]");
      break;
    }
    default:
      break;
  }
  return end;
}

/* Packet context fields babeltrace2 turns into packet properties. */
static int render_hidden(const TlCtfVal *v){
  static const char *const az[] = {
    "timestamp_begin", "timestamp_end", "content_size", "packet_size",
    "events_discarded", "packet_seq_num",
  };
  size_t k;
  int r = v->pField->eRole;
  if( r==TL_CTF_ROLE_TS_BEGIN || r==TL_CTF_ROLE_TS_END || r==TL_CTF_ROLE_CONTENT
   || r==TL_CTF_ROLE_PKT_SIZE || r==TL_CTF_ROLE_DISCARDED || r==TL_CTF_ROLE_SEQ ) return 1;
  if( v->zName==0 ) return 0;
  if( v->pField->eKind!=TL_CTF_INT && v->pField->eKind!=TL_CTF_ENUM ) return 0;
  for(k=0; k<sizeof(az)/sizeof(az[0]); k++){
    if( strcmp(v->zName, az[k])==0 ) return 1;
  }
  return 0;
}

void tl_ctf_render_text(const TlCtfScopes *s, TlStr *pOut){
  static const int aScope[] = {
    TL_CTF_SCOPE_PKT_CONTEXT, TL_CTF_SCOPE_EV_SCONTEXT,
    TL_CTF_SCOPE_EV_CONTEXT, TL_CTF_SCOPE_EV_PAYLOAD,
  };
  const TlCtfVal *a = s->aVal;
  size_t k;
  int nScope = 0;
  for(k=0; k<sizeof(aScope)/sizeof(aScope[0]); k++){
    int r = s->aRoot[aScope[k]];
    if( r<0 ) continue;
    if( aScope[k]==TL_CTF_SCOPE_PKT_CONTEXT && a[r].pField->eKind==TL_CTF_STRUCT ){
      /* only the fields that are not packet properties, if any */
      uint32_t c, end = (uint32_t)r + a[r].nSub;
      int n = 0;
      for(c=(uint32_t)r+1; c<end; c+=a[c].nSub){
        if( render_hidden(&a[c]) ) continue;
        tl_str_appendz(pOut, n++ ? ", " : (nScope ? ", { " : "{ "));
        tl_str_appendf(pOut, "%s = ", a[c].zName ? a[c].zName : "");
        render_text(pOut, a, c, 1);
      }
      if( n ){
        tl_str_appendz(pOut, " }");
        nScope++;
      }
      continue;
    }
    if( nScope++ ) tl_str_appendz(pOut, ", ");
    render_text(pOut, a, (uint32_t)r, 0);
  }
}

/* ------------------------------------------------------------------ JSON */

/* An integer value exactly: unsigned ones above INT64_MAX as a decimal string. */
static void json_integer(TlStr *p, const TlCtfField *f, const TlCtfVal *v){
  if( f->bSigned ) tl_json_int(p, v->v.i);
  else if( v->v.u > (uint64_t)INT64_MAX ){
    char z[24];
    snprintf(z, sizeof(z), "%llu", (unsigned long long)v->v.u);
    tl_json_strz(p, z);
  }else tl_json_int(p, (int64_t)v->v.u);
}

static uint32_t render_json(TlStr *p, const TlCtfVal *a, uint32_t i, int nDepth){
  const TlCtfVal *v = &a[i];
  const TlCtfField *f = v->pField;
  uint32_t c, end = i + (v->nSub ? v->nSub : 1);
  if( nDepth > RENDER_MAX_DEPTH ){
    tl_json_null(p);
    return end;
  }
  switch( f->eKind ){
    case TL_CTF_INT:
      if( f->bBool ) tl_json_bool(p, v->v.u!=0);
      else json_integer(p, f, v);
      break;
    case TL_CTF_VARINT:
      json_integer(p, f, v);
      break;
    case TL_CTF_BLOB:
      tl_json_hex(p, (const uint8_t*)v->z, v->n);
      break;
    case TL_CTF_OPTIONAL:
      if( i+1<end ) render_json(p, a, i+1, nDepth+1);
      else tl_json_null(p);
      break;
    case TL_CTF_ENUM: {
      int k;
      const char *zLabel = 0;
      for(k=0; k<f->nRange && zLabel==0; k++){
        if( range_has(f, &f->aRange[k], v->v.u) ) zLabel = f->aRange[k].zLabel;
      }
      tl_json_obj_begin(p);
      tl_json_key(p, "label");
      if( zLabel ) tl_json_strz(p, zLabel); else tl_json_null(p);
      tl_json_key(p, "value");
      json_integer(p, f, v);
      tl_json_obj_end(p);
      break;
    }
    case TL_CTF_FLOAT:
      tl_json_double(p, v->v.d);
      break;
    case TL_CTF_STRING:
      string_out(p, v, tl_json_str);
      break;
    case TL_CTF_STRUCT:
      tl_json_obj_begin(p);
      for(c=i+1; c<end; ){
        tl_json_key(p, a[c].zName ? a[c].zName : "");
        c = render_json(p, a, c, nDepth+1);
      }
      tl_json_obj_end(p);
      break;
    case TL_CTF_VARIANT:
      if( i+1<end ) render_json(p, a, i+1, nDepth+1);
      else tl_json_null(p);
      break;
    case TL_CTF_ARRAY:
    case TL_CTF_SEQUENCE:
      if( v->z ){
        tl_json_str(p, v->z, v->n);
        break;
      }
      tl_json_arr_begin(p);
      for(c=i+1; c<end; ) c = render_json(p, a, c, nDepth+1);
      tl_json_arr_end(p);
      break;
    default:
      tl_json_null(p);
      break;
  }
  return end;
}

/* Has a member named zName been emitted from scopes before iScopeIdx? */
static int render_seen(const TlCtfScopes *s, const int *aScope, int iScopeIdx, const char *zName){
  int k;
  for(k=0; k<iScopeIdx; k++){
    int r = s->aRoot[aScope[k]];
    uint32_t c, end;
    if( r<0 || s->aVal[r].pField->eKind!=TL_CTF_STRUCT ) continue;
    end = (uint32_t)r + s->aVal[r].nSub;
    for(c=(uint32_t)r+1; c<end; c+=s->aVal[c].nSub){
      if( s->aVal[c].zName && strcmp(s->aVal[c].zName, zName)==0 ) return 1;
    }
  }
  return 0;
}

void tl_ctf_render_args(const TlCtfScopes *s, TlStr *pOut){
  static const int aScope[] = {
    TL_CTF_SCOPE_EV_PAYLOAD, TL_CTF_SCOPE_EV_CONTEXT, TL_CTF_SCOPE_EV_SCONTEXT,
  };
  /* the TSDL names of the scopes, for a context member whose name is taken */
  static const char *const azScope[] = { "event.fields", "event.context", "stream.event.context" };
  const TlCtfVal *a = s->aVal;
  int k;
  tl_json_obj_begin(pOut);
  for(k=0; k<(int)(sizeof(aScope)/sizeof(aScope[0])); k++){
    int r = s->aRoot[aScope[k]];
    uint32_t c, end;
    if( r<0 ) continue;
    if( a[r].pField->eKind!=TL_CTF_STRUCT ){
      /* a scope that is not a struct: under the scope's name */
      tl_json_key(pOut, azScope[k]);
      render_json(pOut, a, (uint32_t)r, 1);
      continue;
    }
    end = (uint32_t)r + a[r].nSub;
    for(c=(uint32_t)r+1; c<end; ){
      const char *zName = a[c].zName ? a[c].zName : "";
      if( k>0 && render_seen(s, aScope, k, zName) ){
        char zKey[256];
        snprintf(zKey, sizeof(zKey), "%s.%s", azScope[k], zName);
        tl_json_key(pOut, zKey);
      }else{
        tl_json_key(pOut, zName);
      }
      c = render_json(pOut, a, c, 1);
    }
  }
  tl_json_obj_end(pOut);
}
