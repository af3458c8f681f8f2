/*
** xray_int.h: private interface of the XRay reader (readers/xray/).
*/
#ifndef TL_XRAY_INT_H
#define TL_XRAY_INT_H

#include "xray.h"

typedef struct XrFunc XrFunc;     /* a function of the instrumentation map */
struct XrFunc {
  int32_t id;                     /* function id, as llvm-xray gives it */
  uint64_t addr;                  /* function address */
  char *zName;                    /* demangled where possible, or NULL */
  uint32_t mKinds;                /* bit k: a sled of kind k */
  int bAlways;                    /* always-instrument */
  uint32_t nSleds;                /* sleds of the function */
};

typedef struct XrMap XrMap;
struct XrMap {
  XrFunc *aFunc;                  /* by id: aFunc[id-1] */
  int nFunc;
};

/* ---- Interface to code in xray_map.c ----------------------------------- */
int xray_map_load(const char *zPath, XrMap*, TlErr*);
int xray_map_parse(const uint8_t *a, size_t n, const char *zName, XrMap*, TlErr*);
void xray_map_free(XrMap*);
const XrFunc *xray_map_func(const XrMap*, int32_t id);
const char *xray_sled_kind(unsigned k);
/* Demangle an Itanium C++ function name into pOut; -1 (nothing written) if
** it is not one of the forms handled. */
int xray_demangle(const char *zMangled, TlStr *pOut);

#endif /* TL_XRAY_INT_H */
