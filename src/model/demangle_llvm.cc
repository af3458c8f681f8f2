/*
** demangle_llvm.cc: C++ names as llvm-xray prints them
** (readers/model_demangle.h), through LLVM's demangler (libLLVMDemangle,
** the one llvm-xray's symbolizer calls: LLVMSymbolizer::DemangleName).
*/
#include "model_demangle.h"

#include <cstdlib>
#include <cstring>

#include <llvm/Demangle/Demangle.h>

char *tl_demangle_llvm(const char *zSym){
  if( std::strncmp(zSym, "_Z", 2)==0 ){
    int status = 0;
    char *z = llvm::itaniumDemangle(zSym, nullptr, nullptr, &status);
    if( status==0 && z ) return z;
    std::free(z);
  }
  size_t n = std::strlen(zSym);
  char *z = static_cast<char*>(std::malloc(n + 1));
  if( z ) std::memcpy(z, zSym, n + 1);
  return z;
}
