/*
** json.c: a small, strict JSON reader (see json.h).
*/
#include "json.h"

#include <stdlib.h>
#include <string.h>

/* Arena: chunks of at least 64 KiB, each starting with a link to the previous. */
typedef struct JvChunk JvChunk;
struct JvChunk {
  JvChunk *pPrev;
  size_t nUsed, nSize;
  /* bytes follow, max-aligned */
};

typedef struct JvParse JvParse;
struct JvParse {
  const char *z;
  size_t n, i;
  uint64_t iBase;
  TlErr *pErr;
  JvChunk *pChunk;
  uint32_t nNode;
  int nDepth;
};

#define JV_ALIGN 16
#define JV_HDR   ((sizeof(JvChunk) + JV_ALIGN - 1) & ~(size_t)(JV_ALIGN - 1))

static void *jv_alloc(JvParse *p, size_t n){
  JvChunk *c = p->pChunk;
  void *pOut;
  n = (n + JV_ALIGN - 1) & ~(size_t)(JV_ALIGN - 1);
  if( c==0 || c->nSize - c->nUsed < n ){
    size_t nSize = n > 65536 ? n : 65536;
    JvChunk *pNew = malloc(JV_HDR + nSize);
    if( pNew==0 ) return 0;
    pNew->pPrev = c;
    pNew->nUsed = 0;
    pNew->nSize = nSize;
    p->pChunk = c = pNew;
  }
  pOut = (char*)c + JV_HDR + c->nUsed;
  c->nUsed += n;
  return pOut;
}

static int jv_err(JvParse *p, const char *zWhat){
  if( p->pErr->rc ) return p->pErr->rc;
  return tl_err_set(p->pErr, TL_ECORRUPT, p->iBase + p->i, "JSON: %s", zWhat);
}

static void jv_ws(JvParse *p){
  while( p->i < p->n ){
    char c = p->z[p->i];
    if( c!=' ' && c!='\t' && c!='\n' && c!='\r' ) break;
    p->i++;
  }
}

static TlJv *jv_node(JvParse *p, int eType){
  TlJv *v;
  if( p->nNode >= TL_JV_MAX_NODES ){
    jv_err(p, "more values than the limit");
    return 0;
  }
  v = jv_alloc(p, sizeof(TlJv));
  if( v==0 ){
    tl_err_set(p->pErr, TL_ENOMEM, p->iBase + p->i, "out of memory");
    return 0;
  }
  memset(v, 0, sizeof(*v));
  v->eType = eType;
  v->iOff = p->iBase + p->i;
  p->nNode++;
  return v;
}

static int jv_hex4(JvParse *p, uint32_t *pV){
  uint32_t v = 0;
  int k;
  if( p->n - p->i < 4 ) return jv_err(p, "expected 4 hex digits after \\u");
  for(k=0; k<4; k++){
    char c = p->z[p->i++];
    int d = c>='0'&&c<='9' ? c-'0' : c>='a'&&c<='f' ? c-'a'+10 : c>='A'&&c<='F' ? c-'A'+10 : -1;
    if( d<0 ) return jv_err(p, "expected 4 hex digits after \\u");
    v = v<<4 | (uint32_t)d;
  }
  *pV = v;
  return TL_OK;
}

/* Length of the valid UTF-8 sequence at z[0..n), or 0. */
static size_t jv_utf8_len(const unsigned char *z, size_t n){
  uint32_t c;
  size_t k, len;
  if( z[0]<0x80 ) return 1;
  if( z[0]>=0xC2 && z[0]<=0xDF ){ len = 2; c = z[0] & 0x1F; }
  else if( z[0]>=0xE0 && z[0]<=0xEF ){ len = 3; c = z[0] & 0x0F; }
  else if( z[0]>=0xF0 && z[0]<=0xF4 ){ len = 4; c = z[0] & 0x07; }
  else return 0;
  if( n<len ) return 0;
  for(k=1; k<len; k++){
    if( (z[k] & 0xC0)!=0x80 ) return 0;
    c = c<<6 | (z[k] & 0x3F);
  }
  if( (len==3 && (c<0x800 || (c>=0xD800 && c<=0xDFFF))) || (len==4 && (c<0x10000 || c>0x10FFFF)) ) return 0;
  return len;
}

/* A string at p->i (the opening quote), decoded into the arena. */
static int jv_string(JvParse *p, const char **pz, size_t *pn){
  size_t iStart = ++p->i, nMax = 0, k;
  char *zOut;
  /* the decoded form is never longer than the source */
  while( p->i < p->n && p->z[p->i]!='"' ){
    if( p->z[p->i]=='\\' ) p->i++;
    p->i++;
  }
  if( p->i >= p->n ) return jv_err(p, "unterminated string");
  nMax = p->i - iStart;
  zOut = jv_alloc(p, nMax + 1);
  if( zOut==0 ) return tl_err_set(p->pErr, TL_ENOMEM, p->iBase + iStart, "out of memory");
  p->i = iStart;
  k = 0;
  while( p->z[p->i]!='"' ){
    unsigned char c = (unsigned char)p->z[p->i];
    if( c<0x20 ) return jv_err(p, "control character in a string");
    if( c=='\\' ){
      char e = p->z[++p->i];
      p->i++;
      switch( e ){
        case '"': zOut[k++] = '"'; break;
        case '\\': zOut[k++] = '\\'; break;
        case '/': zOut[k++] = '/'; break;
        case 'b': zOut[k++] = '\b'; break;
        case 'f': zOut[k++] = '\f'; break;
        case 'n': zOut[k++] = '\n'; break;
        case 'r': zOut[k++] = '\r'; break;
        case 't': zOut[k++] = '\t'; break;
        case 'u': {
          uint32_t u, lo;
          if( jv_hex4(p, &u) ) return p->pErr->rc;
          if( u>=0xDC00 && u<=0xDFFF ) return jv_err(p, "lone low surrogate in \\u escape");
          if( u>=0xD800 && u<=0xDBFF ){
            if( p->n - p->i < 2 || p->z[p->i]!='\\' || p->z[p->i+1]!='u' ){
              return jv_err(p, "high surrogate without a low one");
            }
            p->i += 2;
            if( jv_hex4(p, &lo) ) return p->pErr->rc;
            if( lo<0xDC00 || lo>0xDFFF ) return jv_err(p, "high surrogate without a low one");
            u = 0x10000 + ((u - 0xD800)<<10) + (lo - 0xDC00);
          }
          /* \uXXXX (6 bytes) or a pair (12) never decode to more bytes */
          k += tl_utf8_put(zOut + k, u);
          break;
        }
        default:
          p->i--;
          return jv_err(p, "unknown escape in a string");
      }
    }else{
      size_t len = jv_utf8_len((const unsigned char*)p->z + p->i, p->n - p->i);
      if( len==0 ) return jv_err(p, "invalid UTF-8 in a string");
      memcpy(zOut + k, p->z + p->i, len);
      k += len;
      p->i += len;
    }
  }
  p->i++;                          /* the closing quote */
  zOut[k] = 0;
  *pz = zOut;
  *pn = k;
  return TL_OK;
}

static int jv_number(JvParse *p, TlJv *v){
  size_t iStart = p->i;
  int bFrac = 0, nDig = 0;
  uint64_t u = 0;
  int bOver = 0;
  char zBuf[64];
  if( p->z[p->i]=='-' ){ v->bNeg = 1; p->i++; }
  if( p->i < p->n && p->z[p->i]=='0' ){
    p->i++;
    nDig = 1;
  }else{
    while( p->i < p->n && p->z[p->i]>='0' && p->z[p->i]<='9' ){
      unsigned d = (unsigned)(p->z[p->i] - '0');
      if( u > (UINT64_MAX - d)/10 ) bOver = 1;
      u = u*10 + d;
      p->i++;
      nDig++;
    }
  }
  if( nDig==0 ) return jv_err(p, "expected a digit");
  if( p->i < p->n && p->z[p->i]=='.' ){
    p->i++;
    bFrac = 1;
    if( p->i >= p->n || p->z[p->i]<'0' || p->z[p->i]>'9' ) return jv_err(p, "expected a digit after '.'");
    while( p->i < p->n && p->z[p->i]>='0' && p->z[p->i]<='9' ) p->i++;
  }
  if( p->i < p->n && (p->z[p->i]=='e' || p->z[p->i]=='E') ){
    p->i++;
    bFrac = 1;
    if( p->i < p->n && (p->z[p->i]=='+' || p->z[p->i]=='-') ) p->i++;
    if( p->i >= p->n || p->z[p->i]<'0' || p->z[p->i]>'9' ) return jv_err(p, "expected an exponent");
    while( p->i < p->n && p->z[p->i]>='0' && p->z[p->i]<='9' ) p->i++;
  }
  if( p->i - iStart < sizeof(zBuf) ){
    memcpy(zBuf, p->z + iStart, p->i - iStart);
    zBuf[p->i - iStart] = 0;
    v->d = strtod(zBuf, 0);
  }else{
    v->d = v->bNeg ? -1e308 : 1e308;   /* absurdly long: a huge value */
  }
  if( !bFrac && !bOver ){
    if( v->bNeg ){
      if( u <= (uint64_t)INT64_MAX + 1 ){
        v->bInt = 1;
        v->i = u==(uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
      }
    }else{
      v->bInt = 1;
      v->u = u;
      v->i = u <= (uint64_t)INT64_MAX ? (int64_t)u : 0;
    }
  }
  if( v->bNeg && v->bInt && v->i==0 ) v->bNeg = 0;      /* -0 */
  return TL_OK;
}

static int jv_value(JvParse *p, TlJv **ppOut);

/* Array or object at p->i (its opening bracket). */
static int jv_container(JvParse *p, TlJv *v, int bObj){
  TlJv **ppTail = &v->pFirst;
  char cEnd = bObj ? '}' : ']';
  if( ++p->nDepth > TL_JV_MAX_DEPTH ) return jv_err(p, "nested deeper than the limit");
  p->i++;
  jv_ws(p);
  if( p->i < p->n && p->z[p->i]==cEnd ){
    p->i++;
    p->nDepth--;
    return TL_OK;
  }
  for(;;){
    const char *zKey = 0;
    size_t nKey;
    TlJv *pChild;
    jv_ws(p);
    if( bObj ){
      if( p->i >= p->n || p->z[p->i]!='"' ) return jv_err(p, "expected a member name");
      if( jv_string(p, &zKey, &nKey) ) return p->pErr->rc;
      jv_ws(p);
      if( p->i >= p->n || p->z[p->i]!=':' ) return jv_err(p, "expected ':'");
      p->i++;
    }
    if( jv_value(p, &pChild) ) return p->pErr->rc;
    pChild->zKey = zKey;
    *ppTail = pChild;
    ppTail = &pChild->pNext;
    v->nChild++;
    jv_ws(p);
    if( p->i < p->n && p->z[p->i]==',' ){ p->i++; continue; }
    if( p->i < p->n && p->z[p->i]==cEnd ){ p->i++; break; }
    return jv_err(p, bObj ? "expected ',' or '}'" : "expected ',' or ']'");
  }
  p->nDepth--;
  return TL_OK;
}

static int jv_value(JvParse *p, TlJv **ppOut){
  TlJv *v;
  char c;
  jv_ws(p);
  if( p->i >= p->n ) return jv_err(p, "expected a value");
  c = p->z[p->i];
  switch( c ){
    case '{': case '[':
      if( (v = jv_node(p, c=='{' ? TL_JV_OBJECT : TL_JV_ARRAY))==0 ) return p->pErr->rc;
      if( jv_container(p, v, c=='{') ) return p->pErr->rc;
      break;
    case '"':
      if( (v = jv_node(p, TL_JV_STRING))==0 ) return p->pErr->rc;
      if( jv_string(p, &v->z, &v->n) ) return p->pErr->rc;
      break;
    case 't': case 'f': case 'n': {
      static const char *const az[] = { "true", "false", "null" };
      static const int aType[] = { TL_JV_TRUE, TL_JV_FALSE, TL_JV_NULL };
      int k = c=='t' ? 0 : c=='f' ? 1 : 2;
      size_t len = strlen(az[k]);
      if( p->n - p->i < len || memcmp(p->z + p->i, az[k], len) ) return jv_err(p, "expected a value");
      if( (v = jv_node(p, aType[k]))==0 ) return p->pErr->rc;
      p->i += len;
      break;
    }
    default:
      if( c!='-' && (c<'0' || c>'9') ) return jv_err(p, "expected a value");
      if( (v = jv_node(p, TL_JV_NUMBER))==0 ) return p->pErr->rc;
      if( jv_number(p, v) ) return p->pErr->rc;
      break;
  }
  *ppOut = v;
  return TL_OK;
}

static void jv_free_chunks(JvChunk *c){
  while( c ){
    JvChunk *pPrev = c->pPrev;
    free(c);
    c = pPrev;
  }
}

int tl_jv_parse(TlJvDoc *pDoc, const char *z, size_t n, uint64_t iBase, TlErr *pErr){
  JvParse p;
  TlJv *pRoot = 0;
  memset(pDoc, 0, sizeof(*pDoc));
  memset(&p, 0, sizeof(p));
  p.z = z;
  p.n = n;
  p.iBase = iBase;
  p.pErr = pErr;
  if( jv_value(&p, &pRoot)==TL_OK ){
    jv_ws(&p);
    if( p.i < p.n ) jv_err(&p, "unexpected text after the value");
  }
  if( pErr->rc ){
    jv_free_chunks(p.pChunk);
    return pErr->rc;
  }
  pDoc->pRoot = pRoot;
  pDoc->pArena = p.pChunk;
  pDoc->nNode = p.nNode;
  return TL_OK;
}

void tl_jv_free(TlJvDoc *pDoc){
  jv_free_chunks(pDoc->pArena);
  memset(pDoc, 0, sizeof(*pDoc));
}

const TlJv *tl_jv_get(const TlJv *p, const char *zKey){
  const TlJv *c;
  if( p==0 || p->eType!=TL_JV_OBJECT ) return 0;
  for(c=p->pFirst; c; c=c->pNext){
    if( strcmp(c->zKey, zKey)==0 ) return c;
  }
  return 0;
}

int tl_jv_int(const TlJv *p, int64_t *pV){
  if( p==0 || p->eType!=TL_JV_NUMBER || !p->bInt ) return -1;
  if( !p->bNeg && p->u > (uint64_t)INT64_MAX ) return -1;
  *pV = p->bNeg ? p->i : (int64_t)p->u;
  return 0;
}

int tl_jv_uint(const TlJv *p, uint64_t *pV){
  if( p==0 || p->eType!=TL_JV_NUMBER || !p->bInt || p->bNeg ) return -1;
  *pV = p->u;
  return 0;
}

int tl_jv_is(const TlJv *p, const char *z){
  return p && p->eType==TL_JV_STRING && strcmp(p->z, z)==0;
}

static void jv_write(TlStr *pOut, const TlJv *p, int nDepth){
  const TlJv *c;
  if( nDepth>64 ){ tl_json_null(pOut); return; }
  switch( p->eType ){
    case TL_JV_NULL: tl_json_null(pOut); break;
    case TL_JV_FALSE: tl_json_bool(pOut, 0); break;
    case TL_JV_TRUE: tl_json_bool(pOut, 1); break;
    case TL_JV_STRING: tl_json_str(pOut, p->z, p->n); break;
    case TL_JV_NUMBER:
      if( p->bInt && p->bNeg ) tl_json_int(pOut, p->i);
      else if( p->bInt ) tl_json_uint(pOut, p->u);
      else tl_json_double(pOut, p->d);
      break;
    case TL_JV_ARRAY:
      tl_json_arr_begin(pOut);
      for(c=p->pFirst; c; c=c->pNext) jv_write(pOut, c, nDepth+1);
      tl_json_arr_end(pOut);
      break;
    default:
      tl_json_obj_begin(pOut);
      for(c=p->pFirst; c; c=c->pNext){
        tl_json_key(pOut, c->zKey);
        jv_write(pOut, c, nDepth+1);
      }
      tl_json_obj_end(pOut);
      break;
  }
}

void tl_jv_write(TlStr *pOut, const TlJv *p){
  jv_write(pOut, p, 0);
}
