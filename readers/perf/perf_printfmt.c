/*
** perf_printfmt.c: a tracepoint's "print fmt" line, evaluated over a raw
** sample so that the text column reads as perf script prints it.
**
** print fmt: "<printf format>", <C expression>, ...
**
** The expressions use REC->field, integer and string literals, the C
** operators (unary ! ~ -, * / % + - << >> < <= > >= == != & ^ | && ||,
** ?:), parentheses, and the helpers __get_str(field), __print_flags(value,
** "delim", { v, "name" }, ...), __print_symbolic(value, { v, "name" },
** ...), __get_dynamic_array(field), __get_dynamic_array_len(field),
** __print_hex(bytes, len) and __print_hex_str(bytes, len); the pointer
** conversions %pI4, %pI6, %pI6c and %pM print address bytes as the kernel's
** vsprintf does (and libtraceevent, for perf script). The line is parsed once, when the tracing data is read, into a
** small tree; a format that uses anything else is not compiled and the
** text falls back to name=value pairs.
*/
#include "perf_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PF_MAX_NODES 4096
#define PF_MAX_DEPTH 64

enum { N_NUM, N_STR, N_FIELD, N_UNARY, N_BINARY, N_COND, N_GETSTR, N_FLAGS,
       N_SYMBOLIC, N_PAIR, N_CAST, N_INDEX, N_UNKNOWN, N_DYNARR, N_DYNLEN, N_HEX };

/* binary operators, as two-character codes */
#define OP2(a,b) (((a)<<8)|(b))

typedef struct PfNode PfNode;
struct PfNode {
  int type;
  int op;                         /* unary/binary operator */
  uint64_t u;                     /* N_NUM */
  char *z;                        /* N_STR */
  int iField;                     /* N_FIELD, N_GETSTR, N_INDEX */
  int nBits, bSigned;             /* N_CAST: the type's width (64: no change) */
  int a, b, c;                    /* children (indexes), -1 if none */
  int iFirstArg, nArg;            /* N_FLAGS/N_SYMBOLIC: arguments in aArg */
};

struct PerfPrintFmt {
  char *zFmt;                     /* the printf format */
  PfNode *aNode; int nNode;
  int *aArg; int nArgAlloc, nArgUsed;   /* argument lists of helpers */
  int *aTop; int nTop;            /* one expression per conversion */
  TlTrace *pTrace;                /* %pS, %ps: kernel symbols of pSyms, or NULL */
  TlSymbols *pSyms;
};

void perf_printfmt_symbols(PerfPrintFmt *p, TlTrace *pTrace, TlSymbols *pSyms){
  p->pTrace = pTrace;
  p->pSyms = pSyms;
}

/*
** %pS, %ps, %pF, %pf of a kernel address as libtraceevent prints it in
** perf script: the symbol holding it, "+0xOFF" for S and F; 0 if named.
*/
static int print_kernel_symbol(TlStr *pOut, const PerfPrintFmt *p, const char *zExt, uint64_t addr){
  TlSymbolAt at;
  if( p->pSyms==0 || (strcmp(zExt, "S") && strcmp(zExt, "s") && strcmp(zExt, "F") && strcmp(zExt, "f")) ) return -1;
  tl_symbols_at(p->pSyms, p->pTrace, TL_SYMBOLS_EVERY_PID, TL_SYMBOLS_NO_TS, addr, 1, &at);
  if( strcmp(at.zSym, "[unknown]")==0 ) return -1;
  tl_str_append(pOut, at.zSym, strlen(at.zSym));
  if( zExt[0]=='S' || zExt[0]=='F' ) tl_str_appendf(pOut, "+0x%llx", (unsigned long long)at.symoff);
  return 0;
}

typedef struct PfParse PfParse;
struct PfParse {
  const char *z, *zEnd;
  const PerfTp *t;
  PerfPrintFmt *p;
  int bErr;
  int nDepth;
};

static void skip_ws(PfParse *x){
  while( x->z<x->zEnd && (*x->z==' ' || *x->z=='\t' || *x->z=='\n') ) x->z++;
}

static int new_node(PfParse *x, int type){
  PfNode *n;
  if( x->p->nNode>=PF_MAX_NODES ){ x->bErr = 1; return -1; }
  if( (x->p->nNode & 63)==0 ){
    PfNode *aNew = realloc(x->p->aNode, (size_t)(x->p->nNode+64)*sizeof(PfNode));
    if( aNew==0 ){ x->bErr = 1; return -1; }
    x->p->aNode = aNew;
  }
  n = &x->p->aNode[x->p->nNode];
  memset(n, 0, sizeof(*n));
  n->type = type;
  n->a = n->b = n->c = -1;
  return x->p->nNode++;
}

/* A "string" literal with C escapes, into a malloc'd copy. */
static char *parse_string(PfParse *x){
  TlStr s;
  if( x->z>=x->zEnd || *x->z!='"' ){ x->bErr = 1; return 0; }
  x->z++;
  tl_str_init(&s);
  tl_str_append(&s, "", 0);
  while( x->z<x->zEnd && *x->z!='"' ){
    char c = *x->z++;
    if( c=='\\' && x->z<x->zEnd ){
      c = *x->z++;
      if( c=='n' ) c = '\n'; else if( c=='t' ) c = '\t';
    }
    tl_str_appendc(&s, c);
  }
  if( x->z>=x->zEnd || s.bErr ){ tl_str_free(&s); x->bErr = 1; return 0; }
  x->z++;
  return s.z;
}

static int parse_expr(PfParse *x, int minPrec);

static int binary_op(PfParse *x, int *pPrec){
  const char *z = x->z;
  char c0 = z<x->zEnd ? z[0] : 0, c1 = z+1<x->zEnd ? z[1] : 0;
  int op = 0, n = 1;
  if( c0=='|' && c1=='|' ){ op = OP2('|','|'); *pPrec = 1; n = 2; }
  else if( c0=='&' && c1=='&' ){ op = OP2('&','&'); *pPrec = 2; n = 2; }
  else if( c0=='|' ){ op = '|'; *pPrec = 3; }
  else if( c0=='^' ){ op = '^'; *pPrec = 4; }
  else if( c0=='&' ){ op = '&'; *pPrec = 5; }
  else if( (c0=='=' || c0=='!') && c1=='=' ){ op = OP2(c0,'='); *pPrec = 6; n = 2; }
  else if( (c0=='<' || c0=='>') && c1==c0 ){ op = OP2(c0,c0); *pPrec = 8; n = 2; }
  else if( (c0=='<' || c0=='>') && c1=='=' ){ op = OP2(c0,'='); *pPrec = 7; n = 2; }
  else if( c0=='<' || c0=='>' ){ op = c0; *pPrec = 7; }
  else if( c0=='+' || c0=='-' ){ op = c0; *pPrec = 9; }
  else if( c0=='*' || c0=='/' || c0=='%' ){ op = c0; *pPrec = 10; }
  if( op ) x->z += n;
  return op;
}

static int find_field(const PerfTp *t, const char *z, size_t n){
  int i;
  for(i=0; i<t->nField; i++){
    if( strlen(t->aField[i].zName)==n && memcmp(t->aField[i].zName, z, n)==0 ) return i;
  }
  return -1;
}

static size_t ident_len(const char *z, const char *zEnd){
  size_t n = 0;
  while( z+n<zEnd && (z[n]=='_' || (z[n]>='a' && z[n]<='z') || (z[n]>='A' && z[n]<='Z')
       || (z[n]>='0' && z[n]<='9')) ) n++;
  return n;
}

/* Arguments of a helper call up to ')', appended to aArg. */
static void parse_args(PfParse *x, int iNode){
  int aLocal[64], n = 0, k;
  skip_ws(x);
  while( x->z<x->zEnd && *x->z!=')' && !x->bErr && n<64 ){
    if( *x->z=='{' ){
      /* children first: new nodes may move aNode */
      int iPair, a, b;
      x->z++;
      a = parse_expr(x, 0);
      skip_ws(x);
      if( x->z>=x->zEnd || *x->z!=',' ){ x->bErr = 1; return; }
      x->z++;
      b = parse_expr(x, 0);
      iPair = new_node(x, N_PAIR);
      if( iPair<0 ) return;
      x->p->aNode[iPair].a = a;
      x->p->aNode[iPair].b = b;
      skip_ws(x);
      if( x->z>=x->zEnd || *x->z!='}' ){ x->bErr = 1; return; }
      x->z++;
      aLocal[n++] = iPair;
    }else{
      aLocal[n++] = parse_expr(x, 0);
    }
    skip_ws(x);
    if( x->z<x->zEnd && *x->z==',' ){ x->z++; skip_ws(x); }
  }
  if( x->z>=x->zEnd || *x->z!=')' ){ x->bErr = 1; return; }
  x->z++;
  if( x->p->nArgUsed + n > x->p->nArgAlloc ){
    int nNew = (x->p->nArgUsed + n)*2 + 16;
    int *aNew = realloc(x->p->aArg, (size_t)nNew*sizeof(int));
    if( aNew==0 ){ x->bErr = 1; return; }
    x->p->aArg = aNew;
    x->p->nArgAlloc = nNew;
  }
  x->p->aNode[iNode].iFirstArg = x->p->nArgUsed;
  x->p->aNode[iNode].nArg = n;
  for(k=0; k<n; k++) x->p->aArg[x->p->nArgUsed++] = aLocal[k];
}

/* Is z[0..n) a word of a C type name as print formats use them? */
static int cast_word(const char *z, size_t n, int *pnBits, int *pbSigned, int *pbUnsigned){
  static const struct { const char *z; int nBits; } aWord[] = {
    { "char", 8 }, { "short", 16 }, { "int", 32 }, { "long", 64 }, { "void", 64 },
    { "bool", 8 }, { "const", 0 }, { "volatile", 0 }, { "signed", 0 }, { "unsigned", 0 },
  };
  size_t k;
  for(k=0; k<sizeof(aWord)/sizeof(aWord[0]); k++){
    if( strlen(aWord[k].z)==n && memcmp(z, aWord[k].z, n)==0 ){
      if( aWord[k].nBits && (*pnBits==0 || aWord[k].nBits==64) ) *pnBits = aWord[k].nBits;
      if( k==8 ) *pbSigned = 1;
      if( k==9 ) *pbUnsigned = 1;
      return 1;
    }
  }
  /* u8..u64, s8..s64, __u32, ...: their width and sign */
  {
    const char *w = z;
    size_t m = n;
    if( m>2 && w[0]=='_' && w[1]=='_' ){ w += 2; m -= 2; }
    if( m>=2 && (w[0]=='u' || w[0]=='s') ){
      int b = atoi(w+1);
      if( (b==8 || b==16 || b==32 || b==64) && m==(size_t)(b<10 ? 2 : 3) ){
        *pnBits = b;
        if( w[0]=='u' ) *pbUnsigned = 1; else *pbSigned = 1;
        return 1;
      }
    }
  }
  /* typedefs: size_t, gfp_t, ... keep the value as it is */
  if( n>2 && z[n-2]=='_' && z[n-1]=='t' ){
    if( *pnBits==0 ) *pnBits = 64;
    *pbUnsigned = 1;
    return 1;
  }
  return 0;
}

/*
** At the character after '(': a C type name and ')' (a cast)? If so, consume
** them and give its width and signedness.
*/
static int parse_cast(PfParse *x, int *pnBits, int *pbSigned){
  const char *z = x->z;
  int nBits = 0, bSigned = 0, bUnsigned = 0, nWord = 0, bPtr = 0;
  for(;;){
    size_t n;
    while( z<x->zEnd && (*z==' ' || *z=='\t') ) z++;
    if( z>=x->zEnd ) return 0;
    if( *z==')' ) break;
    if( *z=='*' ){ bPtr = 1; z++; continue; }
    n = ident_len(z, x->zEnd);
    if( n==0 || bPtr || !cast_word(z, n, &nBits, &bSigned, &bUnsigned) ) return 0;
    nWord++;
    z += n;
  }
  if( nWord==0 ) return 0;
  x->z = z + 1;
  if( bPtr || nBits==0 ) nBits = bPtr ? 64 : 32;     /* "unsigned" alone is an int */
  *pnBits = nBits;
  *pbSigned = !bUnsigned && !bPtr;
  return 1;
}

static int parse_primary(PfParse *x){
  int i, nBits, bSigned;
  skip_ws(x);
  if( x->z>=x->zEnd || x->bErr ){ x->bErr = 1; return -1; }
  if( ++x->nDepth > PF_MAX_DEPTH ){ x->bErr = 1; return -1; }
  if( *x->z=='(' ){
    x->z++;
    if( parse_cast(x, &nBits, &bSigned) ){
      /* A cast applies to the unary expression after it. */
      int a = parse_primary(x);
      i = new_node(x, N_CAST);
      if( i>=0 ){
        x->p->aNode[i].a = a;
        x->p->aNode[i].nBits = nBits;
        x->p->aNode[i].bSigned = bSigned;
      }
    }else{
      i = parse_expr(x, 0);
      skip_ws(x);
      if( x->z>=x->zEnd || *x->z!=')' ){ x->bErr = 1; return -1; }
      x->z++;
    }
  }else if( *x->z=='"' ){
    char *z = parse_string(x);
    i = new_node(x, N_STR);
    if( i>=0 ) x->p->aNode[i].z = z; else free(z);
  }else if( *x->z>='0' && *x->z<='9' ){
    char *zEnd;
    i = new_node(x, N_NUM);
    if( i>=0 ) x->p->aNode[i].u = strtoull(x->z, &zEnd, 0);
    if( i>=0 ){
      x->z = zEnd;
      while( x->z<x->zEnd && (*x->z=='U' || *x->z=='L' || *x->z=='u' || *x->z=='l') ) x->z++;
    }
  }else if( *x->z=='!' || *x->z=='~' || *x->z=='-' ){
    int op = *x->z++;
    i = new_node(x, N_UNARY);
    if( i>=0 ){
      int a = parse_primary(x);
      x->p->aNode[i].op = op;
      x->p->aNode[i].a = a;
    }
  }else{
    size_t n = ident_len(x->z, x->zEnd);
    if( n==3 && memcmp(x->z, "REC", 3)==0 && x->z+5<=x->zEnd && memcmp(x->z+3, "->", 2)==0 ){
      size_t nf;
      x->z += 5;
      nf = ident_len(x->z, x->zEnd);
      i = new_node(x, N_FIELD);
      if( i>=0 ){
        x->p->aNode[i].iField = find_field(x->t, x->z, nf);
        if( x->p->aNode[i].iField<0 ) x->bErr = 1;
      }
      x->z += nf;
      skip_ws(x);
      if( i>=0 && !x->bErr && x->z<x->zEnd && *x->z=='[' ){
        /* REC->array[index]: one element */
        int iField = x->p->aNode[i].iField, a;
        x->z++;
        a = parse_expr(x, 0);
        skip_ws(x);
        if( x->z>=x->zEnd || *x->z!=']' ){ x->bErr = 1; x->nDepth--; return -1; }
        x->z++;
        x->p->aNode[i].type = N_INDEX;
        x->p->aNode[i].iField = iField;
        x->p->aNode[i].a = a;
      }
    }else if( n ){
      const char *zName = x->z;
      x->z += n;
      skip_ws(x);
      if( x->z>=x->zEnd || *x->z!='(' ){
        /* A constant of the kernel's (an enum value): its value is unknown. */
        i = new_node(x, N_UNKNOWN);
        x->nDepth--;
        return i;
      }
      x->z++;
      int tField = (n==9 && memcmp(zName, "__get_str", 9)==0) ? N_GETSTR
                 : (n==19 && memcmp(zName, "__get_dynamic_array", 19)==0) ? N_DYNARR
                 : (n==23 && memcmp(zName, "__get_dynamic_array_len", 23)==0) ? N_DYNLEN : -1;
      if( tField>=0 ){
        size_t nf;
        skip_ws(x);
        nf = ident_len(x->z, x->zEnd);
        i = new_node(x, tField);
        if( i>=0 ){
          x->p->aNode[i].iField = find_field(x->t, x->z, nf);
          if( x->p->aNode[i].iField<0 ) x->bErr = 1;
        }
        x->z += nf;
        skip_ws(x);
        if( x->z>=x->zEnd || *x->z!=')' ) x->bErr = 1; else x->z++;
      }else if( n==13 && memcmp(zName, "__print_flags", 13)==0 ){
        i = new_node(x, N_FLAGS);
        if( i>=0 ) parse_args(x, i);
      }else if( n==16 && memcmp(zName, "__print_symbolic", 16)==0 ){
        i = new_node(x, N_SYMBOLIC);
        if( i>=0 ) parse_args(x, i);
      }else if( (n==11 && memcmp(zName, "__print_hex", 11)==0)
             || (n==15 && memcmp(zName, "__print_hex_str", 15)==0) ){
        i = new_node(x, N_HEX);
        if( i>=0 ){
          x->p->aNode[i].op = n==15;              /* _str: no spaces */
          parse_args(x, i);
          if( x->p->aNode[i].nArg!=2 ) x->bErr = 1;
        }
      }else{
        x->bErr = 1;                        /* a helper we do not evaluate */
        i = -1;
      }
    }else{
      x->bErr = 1;
      i = -1;
    }
  }
  x->nDepth--;
  return i;
}

static int parse_expr(PfParse *x, int minPrec){
  int lhs;
  if( ++x->nDepth > PF_MAX_DEPTH ){ x->bErr = 1; x->nDepth--; return -1; }
  lhs = parse_primary(x);
  for(;;){
    int prec = 0, op, rhs, i;
    const char *zSave;
    skip_ws(x);
    if( x->bErr || x->z>=x->zEnd ){ x->nDepth--; return lhs; }
    if( *x->z=='?' && minPrec<=0 ){
      int a, b;
      x->z++;
      a = parse_expr(x, 0);
      skip_ws(x);
      if( x->z>=x->zEnd || *x->z!=':' ){ x->bErr = 1; x->nDepth--; return -1; }
      x->z++;
      b = parse_expr(x, 0);
      i = new_node(x, N_COND);
      if( i<0 ){ x->nDepth--; return -1; }
      x->p->aNode[i].a = lhs; x->p->aNode[i].b = a; x->p->aNode[i].c = b;
      lhs = i;
      continue;
    }
    zSave = x->z;
    op = binary_op(x, &prec);
    if( op==0 ){ x->nDepth--; return lhs; }
    if( prec<minPrec || prec==0 ){ x->z = zSave; x->nDepth--; return lhs; }
    rhs = parse_expr(x, prec+1);
    i = new_node(x, N_BINARY);
    if( i<0 ){ x->nDepth--; return -1; }
    x->p->aNode[i].op = op; x->p->aNode[i].a = lhs; x->p->aNode[i].b = rhs;
    lhs = i;
  }
}

void perf_printfmt_free(PerfPrintFmt *p){
  int i;
  if( p==0 ) return;
  for(i=0; i<p->nNode; i++) free(p->aNode[i].z);
  free(p->aNode);
  free(p->aArg);
  free(p->aTop);
  free(p->zFmt);
  free(p);
}

PerfPrintFmt *perf_printfmt_parse(const PerfTp *t, const char *z, size_t n){
  PfParse x;
  PerfPrintFmt *p = calloc(1, sizeof(*p));
  if( p==0 ) return 0;
  memset(&x, 0, sizeof(x));
  x.z = z; x.zEnd = z + n; x.t = t; x.p = p;
  skip_ws(&x);
  p->zFmt = parse_string(&x);
  while( !x.bErr ){
    int i;
    skip_ws(&x);
    if( x.z>=x.zEnd ) break;
    if( *x.z!=',' ){ x.bErr = 1; break; }
    x.z++;
    i = parse_expr(&x, 0);
    if( x.bErr ) break;
    if( (p->nTop & 15)==0 ){
      int *aNew = realloc(p->aTop, (size_t)(p->nTop+16)*sizeof(int));
      if( aNew==0 ){ x.bErr = 1; break; }
      p->aTop = aNew;
    }
    p->aTop[p->nTop++] = i;
  }
  if( x.bErr ){ perf_printfmt_free(p); return 0; }
  return p;
}

/* ---- evaluation ------------------------------------------------------------ */

typedef struct PfVal PfVal;
struct PfVal {
  int bStr;
  uint64_t u;
  const char *z; size_t n;
  const uint8_t *pB; size_t nB;   /* the bytes of an array field, else NULL */
};

typedef struct PfEval PfEval;
struct PfEval {
  const PerfPrintFmt *p;
  const PerfTp *t;
  const uint8_t *a; size_t n; int bo;
  TlStr *pScratch;                /* strings built by helpers */
  int bErr;
  int nDepth;
};

static uint64_t field_value(const PerfTpField *f, const uint8_t *a, size_t n, int bo){
  const uint8_t *v;
  uint64_t u;
  if( f->off > n || f->size > n - f->off ) return 0;
  v = a + f->off;
  switch( f->size ){
    case 1: u = v[0]; if( f->bSigned ) u = (uint64_t)(int64_t)(int8_t)u; break;
    case 2: u = tl_load_u16_unchecked(v, bo); if( f->bSigned ) u = (uint64_t)(int64_t)(int16_t)u; break;
    case 4: u = tl_load_u32_unchecked(v, bo); if( f->bSigned ) u = (uint64_t)(int64_t)(int32_t)u; break;
    case 8: u = tl_load_u64_unchecked(v, bo); break;
    default: u = 0; break;
  }
  return u;
}

static void field_string(const PerfTpField *f, const uint8_t *a, size_t n, int bo,
                         const char **pz, size_t *pn){
  const uint8_t *v;
  size_t nv;
  const uint8_t *zNul;
  *pz = ""; *pn = 0;
  if( f->off > n || f->size > n - f->off ) return;
  v = a + f->off;
  nv = f->size;
  if( f->bDataLoc && nv>=4 ){
    uint32_t loc = tl_load_u32_unchecked(v, bo);
    uint32_t o = loc & 0xFFFF, len = loc >> 16;
    if( o>n || len>n-o ) return;
    v = a + o;
    nv = len;
  }
  zNul = nv ? memchr(v, 0, nv) : 0;
  if( zNul ) nv = (size_t)(zNul - v);
  *pz = (const char*)v;
  *pn = nv;
}

/* The bytes of field f (a __data_loc field's data), within the sample. */
static void field_bytes(const PerfTpField *f, const uint8_t *a, size_t n, int bo,
                        const uint8_t **pp, size_t *pn){
  *pp = 0; *pn = 0;
  if( f->off > n || f->size > n - f->off ) return;
  *pp = a + f->off;
  *pn = f->size;
  if( f->bDataLoc && f->size>=4 ){
    uint32_t loc = tl_load_u32_unchecked(a + f->off, bo);
    uint32_t o = loc & 0xFFFF, len = loc >> 16;
    if( o>n || len>n-o ){ *pp = 0; *pn = 0; return; }
    *pp = a + o;
    *pn = len;
  }
}

static PfVal eval(PfEval *e, int i);

static PfVal num(uint64_t u){ PfVal v; memset(&v, 0, sizeof(v)); v.u = u; return v; }

static PfVal eval_helper(PfEval *e, const PfNode *n){
  PfVal v, r;
  int k, iStart = n->type==N_FLAGS ? 2 : 1;
  const char *zDelim = "|";
  size_t nDelim = 1, nStart = e->pScratch->n;
  uint64_t val;
  memset(&r, 0, sizeof(r));
  if( n->nArg<1 ){ e->bErr = 1; return r; }
  v = eval(e, e->p->aArg[n->iFirstArg]);
  val = v.u;
  if( n->type==N_FLAGS ){
    PfVal d;
    if( n->nArg<2 ){ e->bErr = 1; return r; }
    d = eval(e, e->p->aArg[n->iFirstArg+1]);
    if( d.bStr ){ zDelim = d.z; nDelim = d.n; }
  }
  for(k=iStart; k<n->nArg; k++){
    const PfNode *pr = &e->p->aNode[e->p->aArg[n->iFirstArg+k]];
    PfVal pv, ps;
    if( pr->type!=N_PAIR ){ e->bErr = 1; return r; }
    if( pr->a>=0 && e->p->aNode[pr->a].type==N_UNKNOWN ) continue;   /* never matches */
    pv = eval(e, pr->a);
    ps = eval(e, pr->b);
    if( n->type==N_SYMBOLIC ){
      if( pv.u==val ){
        tl_str_append(e->pScratch, ps.z, ps.n);
        goto helper_done;
      }
    }else if( pv.u!=0 && (val & pv.u)==pv.u ){
      if( e->pScratch->n > nStart ) tl_str_append(e->pScratch, zDelim, nDelim);
      tl_str_append(e->pScratch, ps.z, ps.n);
      val &= ~pv.u;
    }
  }
  if( n->type==N_SYMBOLIC ){
    tl_str_appendf(e->pScratch, "0x%llx", (unsigned long long)val);
  }else if( val ){
    if( e->pScratch->n > nStart ) tl_str_append(e->pScratch, zDelim, nDelim);
    tl_str_appendf(e->pScratch, "0x%llx", (unsigned long long)val);
  }
helper_done:
  r.bStr = 1;
  r.z = (const char*)(uintptr_t)nStart;    /* an offset into the scratch buffer, */
  r.n = e->pScratch->n - nStart;           /* resolved by the caller */
  r.u = 1;                                 /* marks scratch-relative */
  return r;
}

static PfVal eval(PfEval *e, int i){
  const PfNode *n;
  PfVal a, b;
  if( i<0 || i>=e->p->nNode || e->bErr || ++e->nDepth > PF_MAX_DEPTH*4 ){ e->bErr = 1; return num(0); }
  n = &e->p->aNode[i];
  switch( n->type ){
    case N_NUM: e->nDepth--; return num(n->u);
    case N_STR: { PfVal v = num(0); v.bStr = 1; v.z = n->z ? n->z : ""; v.n = strlen(v.z); e->nDepth--; return v; }
    case N_FIELD: {
      const PerfTpField *f = &e->t->aField[n->iField];
      PfVal v = num(0);
      if( f->bChar && (f->bArray || f->bDataLoc) ){
        v.bStr = 1;
        field_string(f, e->a, e->n, e->bo, &v.z, &v.n);
        field_bytes(f, e->a, e->n, e->bo, &v.pB, &v.nB);
      }else{
        v.u = field_value(f, e->a, e->n, e->bo);
        if( f->bArray || f->bDataLoc ) field_bytes(f, e->a, e->n, e->bo, &v.pB, &v.nB);
      }
      e->nDepth--;
      return v;
    }
    case N_INDEX: {
      /* element idx of a fixed array field: size/nElem bytes each */
      const PerfTpField *f = &e->t->aField[n->iField];
      PerfTpField el = *f;
      uint64_t idx;
      a = eval(e, n->a);
      idx = a.u;
      e->nDepth--;
      if( !f->bArray || f->nElem<=0 || f->size % (uint32_t)f->nElem || idx >= (uint64_t)f->nElem ){
        return num(0);
      }
      el.size = f->size / (uint32_t)f->nElem;
      el.off = f->off + (uint32_t)idx * el.size;
      return num(field_value(&el, e->a, e->n, e->bo));
    }
    case N_CAST: {
      a = eval(e, n->a);
      e->nDepth--;
      if( a.bStr || n->nBits>=64 ) return a;
      a.u &= ((uint64_t)1 << n->nBits) - 1;
      if( n->bSigned && ((a.u >> (n->nBits-1)) & 1) ) a.u |= ~(uint64_t)0 << n->nBits;
      return a;
    }
    case N_GETSTR: {
      PfVal v = num(0);
      v.bStr = 1;
      field_string(&e->t->aField[n->iField], e->a, e->n, e->bo, &v.z, &v.n);
      e->nDepth--;
      return v;
    }
    case N_FLAGS: case N_SYMBOLIC: {
      PfVal v = eval_helper(e, n);
      e->nDepth--;
      return v;
    }
    case N_DYNARR: case N_DYNLEN: {
      PfVal v = num(0);
      field_bytes(&e->t->aField[n->iField], e->a, e->n, e->bo, &v.pB, &v.nB);
      if( n->type==N_DYNLEN ){ v.u = v.nB; v.pB = 0; v.nB = 0; }
      else if( v.pB==0 ) v.pB = e->a;          /* empty, but bytes */
      e->nDepth--;
      return v;
    }
    case N_HEX: {
      /* two hex digits per byte, spaced for __print_hex, joined for _str */
      PfVal v = num(0);
      size_t k, nStart = e->pScratch->n;
      a = eval(e, e->p->aArg[n->iFirstArg]);
      b = eval(e, e->p->aArg[n->iFirstArg+1]);
      e->nDepth--;
      if( a.pB==0 ){ e->bErr = 1; return v; }
      for(k=0; k<b.u && k<a.nB; k++){
        if( k && n->op==0 ) tl_str_appendc(e->pScratch, ' ');
        tl_str_appendf(e->pScratch, "%02x", a.pB[k]);
      }
      v.bStr = 1;
      v.z = (const char*)(uintptr_t)nStart;     /* scratch-relative, as eval_helper */
      v.n = e->pScratch->n - nStart;
      v.u = 1;
      return v;
    }
    case N_UNARY:
      a = eval(e, n->a);
      e->nDepth--;
      switch( n->op ){
        case '!': return num(a.bStr ? 0 : !a.u);
        case '~': return num(~a.u);
        default:  return num((uint64_t)0 - a.u);
      }
    case N_COND:
      a = eval(e, n->a);
      b = (a.bStr || a.u) ? eval(e, n->b) : eval(e, n->c);
      e->nDepth--;
      return b;
    case N_BINARY: {
      uint64_t x, y;
      a = eval(e, n->a);
      b = eval(e, n->b);
      e->nDepth--;
      x = a.u; y = b.u;
      switch( n->op ){
        case OP2('|','|'): return num(x || y);
        case OP2('&','&'): return num(x && y);
        case '|': return num(x | y);
        case '^': return num(x ^ y);
        case '&': return num(x & y);
        case OP2('=','='): return num(x == y);
        case OP2('!','='): return num(x != y);
        case '<': return num((int64_t)x < (int64_t)y);
        case '>': return num((int64_t)x > (int64_t)y);
        case OP2('<','='): return num((int64_t)x <= (int64_t)y);
        case OP2('>','='): return num((int64_t)x >= (int64_t)y);
        case OP2('<','<'): return num(y<64 ? x << y : 0);
        case OP2('>','>'): return num(y<64 ? x >> y : 0);
        case '+': return num(x + y);
        case '-': return num(x - y);
        case '*': return num(x * y);
        case '/': return num(y ? x / y : 0);
        case '%': return num(y ? x % y : 0);
        default: e->bErr = 1; return num(0);
      }
    }
    default:
      e->bErr = 1;
      return num(0);
  }
}

/*
** %pI4, %pi4, %pI6, %pi6, %pI6c and %pM over address bytes, as the kernel's
** vsprintf prints them: 1.2.3.4; 0001:0db8:...; the compressed form with the
** longest run (of two or more) zero words as "::" and IPv4-mapped or ISATAP
** addresses ending in dotted quad; aa:bb:cc:dd:ee:ff. -1 for other kinds.
*/
static int print_address(TlStr *pOut, const char *zExt, const uint8_t *b, size_t n){
  int k;
  if( (strcmp(zExt, "I4")==0 || strcmp(zExt, "i4")==0) && n>=4 ){
    tl_str_appendf(pOut, zExt[0]=='I' ? "%u.%u.%u.%u" : "%03u.%03u.%03u.%03u", b[0], b[1], b[2], b[3]);
    return 0;
  }
  if( (strcmp(zExt, "M")==0 || strcmp(zExt, "MF")==0) && n>=6 ){
    const char *zSep = zExt[1]=='F' ? "-" : ":";
    for(k=0; k<6; k++) tl_str_appendf(pOut, "%s%02x", k ? zSep : "", b[k]);
    return 0;
  }
  if( (strcmp(zExt, "I6")==0 || strcmp(zExt, "i6")==0) && n>=16 ){
    for(k=0; k<8; k++){
      if( k && zExt[0]=='I' ) tl_str_appendc(pOut, ':');
      tl_str_appendf(pOut, "%02x%02x", b[2*k], b[2*k+1]);
    }
    return 0;
  }
  if( strcmp(zExt, "I6c")==0 && n>=16 ){
    unsigned w[8];
    int range, i, iRun = -1, nRun = 0, bColon = 0, bV4;
    for(k=0; k<8; k++) w[k] = (unsigned)b[2*k]<<8 | b[2*k+1];
    bV4 = (w[0]|w[1]|w[2]|w[3]|w[4])==0 && w[5]==0xffff;     /* v4-mapped */
    bV4 |= (w[4] | 0x0200)==0x0200 && w[5]==0x5efe;          /* ISATAP */
    range = bV4 ? 6 : 8;
    for(i=0; i<range; i++){
      int j = i;
      while( j<range && w[j]==0 ) j++;
      if( j-i > nRun ){ nRun = j-i; iRun = i; }
      if( j>i ) i = j-1;
    }
    if( nRun<2 ) iRun = -1;
    for(i=0; i<range; i++){
      if( i==iRun ){
        if( bColon || i==0 ) tl_str_appendc(pOut, ':');
        tl_str_appendc(pOut, ':');
        bColon = 0;
        i += nRun - 1;
        continue;
      }
      if( bColon ) tl_str_appendc(pOut, ':');
      tl_str_appendf(pOut, "%x", w[i]);
      bColon = 1;
    }
    if( bV4 ){
      if( bColon ) tl_str_appendc(pOut, ':');
      tl_str_appendf(pOut, "%u.%u.%u.%u", b[12], b[13], b[14], b[15]);
    }
    return 0;
  }
  return -1;
}

/* Render into pOut; returns -1 when the format cannot be evaluated. */
int perf_printfmt_render(const PerfPrintFmt *p, const PerfTp *t, const uint8_t *a,
                         size_t n, int bo, TlStr *pOut){
  PfEval e;
  TlStr scratch;
  const char *z;
  int iArg = 0;
  if( p==0 || p->zFmt==0 ) return -1;
  memset(&e, 0, sizeof(e));
  e.p = p; e.t = t; e.a = a; e.n = n; e.bo = bo;
  tl_str_init(&scratch);
  tl_str_append(&scratch, "", 0);
  e.pScratch = &scratch;
  for(z=p->zFmt; *z; z++){
    char zSpec[32];
    int nSpec = 0, nLong = 0;
    PfVal v;
    char c;
    if( *z!='%' ){ tl_str_appendc(pOut, *z); continue; }
    if( z[1]=='%' ){ tl_str_appendc(pOut, '%'); z++; continue; }
    zSpec[nSpec++] = '%';
    z++;
    while( *z && strchr("-+ #0123456789.", *z) && nSpec<20 ) zSpec[nSpec++] = *z++;
    while( *z && strchr("lhzLqjt", *z) ){
      if( *z=='l' ) nLong++;
      if( *z=='L' || *z=='q' || *z=='j' ) nLong = 2;
      z++;
    }
    c = *z;
    if( c==0 || iArg>=p->nTop ){ tl_str_free(&scratch); return -1; }
    if( c=='p' ){
      char zExt[8];
      int nExt = 0;
      while( (z[1]>='a' && z[1]<='z') || (z[1]>='A' && z[1]<='Z') || (z[1]>='0' && z[1]<='9') ){
        if( nExt<7 ) zExt[nExt++] = z[1];
        z++;
      }
      zExt[nExt] = 0;
      v = eval(&e, p->aTop[iArg++]);
      if( e.bErr ){ tl_str_free(&scratch); return -1; }
      if( v.pB && print_address(pOut, zExt, v.pB, v.nB)==0 ) continue;
      if( !v.pB && !v.bStr && print_kernel_symbol(pOut, p, zExt, v.u)==0 ) continue;
      /* a plain %p of 0 as glibc's printf prints it (libtraceevent passes %p on) */
      if( !v.pB && !v.bStr && nExt==0 && v.u==0 ){ tl_str_append(pOut, "(nil)", 5); continue; }
      /* other pointer extensions, and addresses no symbol names: the address */
      c = 'x'; tl_str_append(pOut, "0x", 2); nLong = 2;
    }else{
      v = eval(&e, p->aTop[iArg++]);
    }
    if( e.bErr ){ tl_str_free(&scratch); return -1; }
    if( v.bStr && v.u==1 ){                 /* scratch-relative string */
      size_t off = (size_t)(uintptr_t)v.z;
      v.z = scratch.z + off;
    }
    switch( c ){
      case 's':
        if( v.bStr ){
          zSpec[nSpec++] = '.'; zSpec[nSpec++] = '*'; zSpec[nSpec++] = 's'; zSpec[nSpec] = 0;
          tl_str_appendf(pOut, zSpec, (int)v.n, v.z);
        }else{
          tl_str_appendf(pOut, "%llu", (unsigned long long)v.u);
        }
        break;
      case 'd': case 'i':
        zSpec[nSpec++] = 'l'; zSpec[nSpec++] = 'l'; zSpec[nSpec++] = 'd'; zSpec[nSpec] = 0;
        tl_str_appendf(pOut, zSpec, nLong ? (long long)v.u : (long long)(int32_t)v.u);
        break;
      case 'u': case 'x': case 'X': case 'o':
        zSpec[nSpec++] = 'l'; zSpec[nSpec++] = 'l'; zSpec[nSpec++] = c; zSpec[nSpec] = 0;
        tl_str_appendf(pOut, zSpec, nLong ? (unsigned long long)v.u : (unsigned long long)(uint32_t)v.u);
        break;
      case 'c':
        tl_str_appendc(pOut, (char)v.u);
        break;
      default:
        tl_str_free(&scratch);
        return -1;
    }
  }
  tl_str_free(&scratch);
  return pOut->bErr ? -1 : 0;
}
