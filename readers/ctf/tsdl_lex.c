/*
** tsdl_lex.c: metadata unpacking and the TSDL tokenizer.
*/
#include "ctf/tsdl.h"

#include <string.h>

#include "bytes.h"

/*
** Does the metadata start with the packet magic? Returns TL_LE or TL_BE
** for the byte order of the packet header, or -1.
*/
static int tsdl_magic_order(const uint8_t *a, size_t n){
  TlBytes b = tl_bytes(a, n, TL_LE);
  uint32_t m;
  if( tl_bytes_u32(&b, TL_LE, &m) ) return -1;
  if( m==TL_CTF_META_MAGIC ) return TL_LE;
  b = tl_bytes(a, n, TL_BE);
  if( tl_bytes_u32(&b, TL_BE, &m) ) return -1;
  if( m==TL_CTF_META_MAGIC ) return TL_BE;
  return -1;
}

int tl_tsdl_sniff(const uint8_t *a, size_t n){
  static const char zSig[] = "/* CTF 1.8";
  const uint8_t *p;
  TlBytes b;
  if( tsdl_magic_order(a, n)>=0 ) return 2;
  b = tl_bytes(a, n, TL_LE);
  if( tl_bytes_ptr(&b, sizeof(zSig)-1, &p)==0 && memcmp(p, zSig, sizeof(zSig)-1)==0 ){
    return 1;
  }
  return 0;
}

int tl_tsdl_text(const uint8_t *a, size_t n, TlStr *pOut, TlErr *pErr){
  int bo = tsdl_magic_order(a, n);
  TlBytes b;
  if( bo<0 ){
    tl_str_append(pOut, (const char*)a, n);
    return pOut->bErr ? tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory") : TL_OK;
  }
  b = tl_bytes(a, n, bo);
  while( tl_bytes_left(&b)>0 ){
    size_t iStart = b.i;
    uint32_t magic, sum, nContent, nPacket;
    uint8_t uuid[16], comp, encr, csum, major, minor;
    const uint8_t *pText;
    if( tl_bytes_u32e(&b, &magic) || tl_bytes_copy(&b, uuid, 16)
     || tl_bytes_u32e(&b, &sum) || tl_bytes_u32e(&b, &nContent)
     || tl_bytes_u32e(&b, &nPacket) || tl_bytes_u8(&b, &comp)
     || tl_bytes_u8(&b, &encr) || tl_bytes_u8(&b, &csum)
     || tl_bytes_u8(&b, &major) || tl_bytes_u8(&b, &minor) ){
      return tl_err_set(pErr, TL_ECORRUPT, iStart,
                        "expected a %d-byte metadata packet header", TL_CTF_META_HDR);
    }
    if( magic!=TL_CTF_META_MAGIC ){
      return tl_err_set(pErr, TL_ECORRUPT, iStart,
                        "expected metadata packet magic 0x75d11d57, found 0x%08x", magic);
    }
    if( comp || encr || csum ){
      return tl_err_set(pErr, TL_EUNSUPPORTED, iStart,
                        "compressed, encrypted or checksummed metadata packet");
    }
    if( !(major==1 && minor==8) && !(major==2 && minor==0) ){
      return tl_err_set(pErr, TL_EUNSUPPORTED, iStart,
                        "metadata packet version %u.%u, expected 1.8 or 2.0", major, minor);
    }
    if( (nContent%8)!=0 || (nPacket%8)!=0 || nContent>nPacket
     || nContent/8<TL_CTF_META_HDR ){
      return tl_err_set(pErr, TL_ECORRUPT, iStart,
                        "metadata packet content_size %u / packet_size %u bits invalid",
                        nContent, nPacket);
    }
    if( nPacket/8 - TL_CTF_META_HDR > tl_bytes_left(&b) ){
      return tl_err_set(pErr, TL_ECORRUPT, iStart,
                        "metadata packet of %u bytes runs past the end of the file",
                        nPacket/8);
    }
    if( tl_bytes_ptr(&b, nContent/8 - TL_CTF_META_HDR, &pText)
     || tl_bytes_skip(&b, (nPacket-nContent)/8) ){
      return tl_err_set(pErr, TL_ECORRUPT, iStart, "metadata packet cut short");
    }
    tl_str_append(pOut, (const char*)pText, nContent/8 - TL_CTF_META_HDR);
    if( pOut->bErr ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  return TL_OK;
}

void tl_tsdl_lex_init(TlTsdlLex *p, const char *z, size_t n){
  p->z = z;
  p->n = n;
  p->i = 0;
  p->iLine = 1;
}

static int tsdl_is_ident_start(int c){
  return (c>='a' && c<='z') || (c>='A' && c<='Z') || c=='_';
}
static int tsdl_is_ident(int c){
  return tsdl_is_ident_start(c) || (c>='0' && c<='9');
}

/* Value of hex digit c in base nBase, or -1. */
static int tsdl_digit(int c, int nBase){
  int v = -1;
  if( c>='0' && c<='9' ) v = c-'0';
  else if( c>='a' && c<='f' ) v = c-'a'+10;
  else if( c>='A' && c<='F' ) v = c-'A'+10;
  return v<nBase ? v : -1;
}

/* Skip white space and comments. */
static int tsdl_skip(TlTsdlLex *p, TlErr *pErr){
  while( p->i<p->n ){
    char c = p->z[p->i];
    if( c=='\n' ){ p->iLine++; p->i++; continue; }
    if( c==' ' || c=='\t' || c=='\r' || c=='\f' || c=='\v' ){ p->i++; continue; }
    if( c=='/' && p->i+1<p->n && p->z[p->i+1]=='*' ){
      size_t iStart = p->i;
      p->i += 2;
      for(;;){
        if( p->i+1>=p->n ){
          return tl_err_set(pErr, TL_ECORRUPT, iStart,
                            "metadata line %d: unterminated comment", p->iLine);
        }
        if( p->z[p->i]=='*' && p->z[p->i+1]=='/' ){ p->i += 2; break; }
        if( p->z[p->i]=='\n' ) p->iLine++;
        p->i++;
      }
      continue;
    }
    if( c=='/' && p->i+1<p->n && p->z[p->i+1]=='/' ){
      while( p->i<p->n && p->z[p->i]!='\n' ) p->i++;
      continue;
    }
    break;
  }
  return TL_OK;
}

/* A quoted literal ending with cQuote; backslash escapes are kept raw. */
static int tsdl_quoted(TlTsdlLex *p, TlTsdlTok *pTok, char cQuote, TlErr *pErr){
  size_t iStart = p->i;
  p->i++;
  while( p->i<p->n && p->z[p->i]!=cQuote ){
    if( p->z[p->i]=='\n' ) break;
    if( p->z[p->i]=='\\' && p->i+1<p->n ){
      /* The escapes of C (TSDL 1.8 section 7.1); anything else is an error. */
      char c = p->z[++p->i];
      if( strchr("abfnrtv\\'\"?01234567xuU", c)==0 || c==0 ){
        return tl_err_set(pErr, TL_ECORRUPT, p->i - 1,
                          "metadata line %d: unknown escape sequence '\\%c' in a literal",
                          p->iLine, c);
      }
    }
    p->i++;
  }
  if( p->i>=p->n || p->z[p->i]!=cQuote ){
    return tl_err_set(pErr, TL_ECORRUPT, iStart,
                      "metadata line %d: unterminated %s literal", p->iLine,
                      cQuote=='"' ? "string" : "character");
  }
  pTok->eKind = cQuote=='"' ? TL_TSDL_STRING : TL_TSDL_CHAR;
  pTok->z = p->z + iStart + 1;
  pTok->n = p->i - iStart - 1;
  p->i++;
  return TL_OK;
}

static int tsdl_number(TlTsdlLex *p, TlTsdlTok *pTok, TlErr *pErr){
  size_t iStart = p->i;
  int nBase = 10;
  uint64_t v = 0;
  int nDigit = 0;
  if( p->z[p->i]=='0' ){
    if( p->i+1<p->n && (p->z[p->i+1]=='x' || p->z[p->i+1]=='X') ){
      nBase = 16; p->i += 2;
    }else{
      nBase = 8;
    }
  }
  while( p->i<p->n ){
    int d = tsdl_digit(p->z[p->i], nBase);
    if( d<0 ) break;
    if( v > (UINT64_MAX - (uint64_t)d)/(uint64_t)nBase ){
      return tl_err_set(pErr, TL_ECORRUPT, iStart,
                        "metadata line %d: integer literal does not fit 64 bits", p->iLine);
    }
    v = v*(uint64_t)nBase + (uint64_t)d;
    nDigit++;
    p->i++;
  }
  if( nBase==16 && nDigit==0 ){
    return tl_err_set(pErr, TL_ECORRUPT, iStart,
                      "metadata line %d: expected hex digits after 0x", p->iLine);
  }
  /* Integer suffixes: u, l, ul, ull, ... in either case. */
  while( p->i<p->n && (p->z[p->i]=='u' || p->z[p->i]=='U'
                    || p->z[p->i]=='l' || p->z[p->i]=='L') ){
    p->i++;
  }
  if( p->i<p->n && tsdl_is_ident(p->z[p->i]) ){
    return tl_err_set(pErr, TL_ECORRUPT, iStart,
                      "metadata line %d: bad integer literal", p->iLine);
  }
  pTok->eKind = TL_TSDL_INT;
  pTok->z = p->z + iStart;
  pTok->n = p->i - iStart;
  pTok->iVal = v;
  return TL_OK;
}

int tl_tsdl_lex_next(TlTsdlLex *p, TlTsdlTok *pTok, TlErr *pErr){
  static const char *const azMulti[] = { "...", ":=", "->" };
  static const char zSingle[] = "{}[]()<>;,:=.+-*?";
  int rc;
  char c;
  size_t k;
  memset(pTok, 0, sizeof(*pTok));
  rc = tsdl_skip(p, pErr);
  if( rc ) return rc;
  pTok->iOff = p->i;
  pTok->iLine = p->iLine;
  if( p->i>=p->n ){
    pTok->eKind = TL_TSDL_EOF;
    pTok->z = p->z + p->n;
    return TL_OK;
  }
  c = p->z[p->i];
  if( tsdl_is_ident_start(c) ){
    size_t iStart = p->i;
    while( p->i<p->n && tsdl_is_ident(p->z[p->i]) ) p->i++;
    pTok->eKind = TL_TSDL_IDENT;
    pTok->z = p->z + iStart;
    pTok->n = p->i - iStart;
    return TL_OK;
  }
  if( c>='0' && c<='9' ) return tsdl_number(p, pTok, pErr);
  if( c=='"' || c=='\'' ) return tsdl_quoted(p, pTok, c, pErr);
  for(k=0; k<sizeof(azMulti)/sizeof(azMulti[0]); k++){
    size_t m = strlen(azMulti[k]);
    if( p->i+m<=p->n && memcmp(p->z+p->i, azMulti[k], m)==0 ){
      pTok->eKind = TL_TSDL_PUNCT;
      pTok->z = p->z + p->i;
      pTok->n = m;
      p->i += m;
      return TL_OK;
    }
  }
  if( c!=0 && strchr(zSingle, c) ){
    pTok->eKind = TL_TSDL_PUNCT;
    pTok->z = p->z + p->i;
    pTok->n = 1;
    p->i++;
    return TL_OK;
  }
  return tl_err_set(pErr, TL_ECORRUPT, p->i,
                    "metadata line %d: unexpected byte 0x%02x", p->iLine,
                    (unsigned)(unsigned char)c);
}

int tl_tsdl_tok_is(const TlTsdlTok *pTok, int eKind, const char *z){
  size_t n = strlen(z);
  return pTok->eKind==eKind && pTok->n==n && memcmp(pTok->z, z, n)==0;
}
