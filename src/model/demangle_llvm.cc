/*
** demangle_llvm.cc: C++ names as llvm-xray prints them
** (readers/model_demangle.h), through LLVM's demangler (libLLVMDemangle,
** the one llvm-xray's symbolizer calls: LLVMSymbolizer::DemangleName).
**
** The demangler is recursive: a symbol nests at most as deep as it is long,
** at about 100 bytes of stack a level. A short symbol is demangled on the
** caller's stack; a longer one (symbols come from untrusted binaries) on a
** thread of its own whose stack fits its length; one over
** DM_MAX_THREADED bytes is kept as it is, as one that does not demangle.
*/
#include "model_demangle.h"

#include <pthread.h>

#include <cstdlib>
#include <cstring>

#include <llvm/Demangle/Demangle.h>

#define DM_MAX_DIRECT     512               /* bytes demangled on the caller's stack */
#define DM_MAX_THREADED   (1u << 20)        /* bytes demangled at all */
#define DM_STACK_PER_BYTE 256               /* stack for the thread, per byte */

namespace {

struct DmJob {
  const char *zSym;
  char *zOut;                               /* malloc'ed, or NULL: not demangled */
};

char *dm_copy(const char *z){
  size_t n = std::strlen(z);
  char *zCopy = static_cast<char*>(std::malloc(n + 1));
  if( zCopy ) std::memcpy(zCopy, z, n + 1);
  return zCopy;
}

char *dm_demangle(const char *zSym){
  int status = 0;
  char *z = llvm::itaniumDemangle(zSym, nullptr, nullptr, &status);
  if( status==0 && z ) return z;
  std::free(z);
  return nullptr;
}

void *dm_thread(void *p){
  DmJob *job = static_cast<DmJob*>(p);
  job->zOut = dm_demangle(job->zSym);
  return nullptr;
}

/* zSym demangled on a thread with room for its nesting, or NULL. */
char *dm_demangle_threaded(const char *zSym, size_t n){
  DmJob job = { zSym, nullptr };
  pthread_attr_t attr;
  pthread_t t;
  int rc;
  if( pthread_attr_init(&attr) ) return nullptr;
  rc = pthread_attr_setstacksize(&attr, ((size_t)1 << 20) + n*DM_STACK_PER_BYTE);
  if( rc==0 ) rc = pthread_create(&t, &attr, dm_thread, &job);
  pthread_attr_destroy(&attr);
  if( rc ) return nullptr;
  pthread_join(t, nullptr);
  return job.zOut;
}

} // namespace

char *tl_demangle_llvm(const char *zSym){
  if( std::strncmp(zSym, "_Z", 2)==0 ){
    size_t n = std::strlen(zSym);
    char *z = nullptr;
    if( n<=DM_MAX_DIRECT ) z = dm_demangle(zSym);
    else if( n<=DM_MAX_THREADED ) z = dm_demangle_threaded(zSym, n);
    if( z ) return z;
  }
  return dm_copy(zSym);
}
