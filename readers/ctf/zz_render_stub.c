#include "ctf/ctf_value.h"
#include <stdio.h>
static void stub_val(const TlCtfVal *a, int i, TlStr *s, int depth){
  const TlCtfVal *v = &a[i];
  uint32_t c, end;
  if( v->zName ) tl_str_appendf(s, "%s = ", v->zName);
  switch( v->pField->eKind ){
    case TL_CTF_INT: case TL_CTF_ENUM:
      if( v->pField->bSigned ) tl_str_appendf(s, "%lld", (long long)v->v.i);
      else tl_str_appendf(s, "%llu", (unsigned long long)v->v.u);
      return;
    case TL_CTF_FLOAT: tl_str_appendf(s, "%g", v->v.d); return;
    case TL_CTF_STRING: tl_str_appendf(s, "\"%.*s\"", (int)v->n, v->z); return;
    default: break;
  }
  if( v->z ){ tl_str_appendf(s, "\"%.*s\"", (int)v->n, v->z); return; }
  tl_str_appendz(s, "{ ");
  end = (uint32_t)i + v->nSub;
  for(c=(uint32_t)i+1; c<end; c+=a[c].nSub){
    if( c>(uint32_t)i+1 ) tl_str_appendz(s, ", ");
    stub_val(a, (int)c, s, depth+1);
  }
  tl_str_appendz(s, " }");
}
void tl_ctf_render_text(const TlCtfScopes *p, TlStr *s){
  int k, n=0;
  for(k=TL_CTF_SCOPE_PKT_CONTEXT; k<TL_CTF_NSCOPE; k++){
    if( k==TL_CTF_SCOPE_EV_HEADER || p->aRoot[k]<0 ) continue;
    if( n++ ) tl_str_appendz(s, ", ");
    stub_val(p->aVal, p->aRoot[k], s, 0);
  }
}
void tl_ctf_render_args(const TlCtfScopes *p, TlStr *s){ (void)p; tl_str_appendz(s, "{}"); }
