/*
** map.h: an open-addressing hash map from a 64-bit key to a 32-bit value,
** for readers that count per thread or per track while they index a trace.
*/
#ifndef TL_MAP_H
#define TL_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct TlMap TlMap;
struct TlMap {
  uint64_t *aKey;                 /* keys */
  uint32_t *aVal;                 /* value+1; 0 = empty slot */
  size_t nSlot;                   /* power of two, or 0 */
  size_t nUsed;                   /* keys stored */
};

void tl_map_init(TlMap*);
void tl_map_free(TlMap*);

/* The value stored for key into *pVal: 1 if found, 0 if not. */
int tl_map_get(const TlMap*, uint64_t key, uint32_t *pVal);

/* Store key -> val (val < UINT32_MAX). Returns 0 or TL_ENOMEM. */
int tl_map_put(TlMap*, uint64_t key, uint32_t val);

#endif /* TL_MAP_H */
