/*
** dwlib.c: elfutils' libdw and libelf, loaded on first use (dwlib.h).
*/
#include "dwlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

TlDwLib tl_dw;

static pthread_once_t dwOnce = PTHREAD_ONCE_INIT;
static const char *dwWhy = "libdw was not loaded";
static char dwWhyBuf[160];

static void dw_open(void){
  TlDwLib t;
  void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
  if( h==0 ){
    snprintf(dwWhyBuf, sizeof(dwWhyBuf), "libdw.so.1 (elfutils) cannot be loaded: %s", dlerror());
    dwWhy = dwWhyBuf;
    return;
  }
  /* libelf's functions are found through libdw, which depends on it */
#define TL_DW_SYM(f) \
  if( (*(void **)&t.f = dlsym(h, #f))==0 ){ \
    snprintf(dwWhyBuf, sizeof(dwWhyBuf), "libdw.so.1 (elfutils) has no %s", #f); \
    dwWhy = dwWhyBuf; \
    return; \
  }
  TL_DW_FUNCS(TL_DW_SYM)
#undef TL_DW_SYM
  t.elf_version(EV_CURRENT);
  tl_dw = t;
  dwWhy = 0;
}

const char *tl_dw_load(void){
  pthread_once(&dwOnce, dw_open);
  return dwWhy;
}
