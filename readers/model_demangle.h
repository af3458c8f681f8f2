/*
** model_demangle.h: C++ names as llvm-xray prints them (the model layer's
** LLVM demangler, src/model/demangle_llvm.cc), for readers.
**
** llvm-xray (extract -symbolize, convert -symbolize, account, stack)
** demangles a symbol with LLVM's Itanium demangler when it starts with
** "_Z" and keeps it as it is otherwise, or when it does not demangle.
** GNU's demangler (libiberty, what perf uses) differs from it on some
** names (`operator< <`, `> >` against `>>`, empty template packs), so
** XRay names go through LLVM's.
*/
#ifndef TL_MODEL_DEMANGLE_H
#define TL_MODEL_DEMANGLE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The name llvm-xray prints for symbol zSym, malloc'ed (the caller frees
** it), of any length; NULL when out of memory. */
char *tl_demangle_llvm(const char *zSym);

#ifdef __cplusplus
}
#endif

#endif /* TL_MODEL_DEMANGLE_H */
