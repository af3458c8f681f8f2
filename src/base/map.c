/*
** map.c: open-addressing hash map, u64 -> u32 (see map.h).
*/
#include "map.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "num.h"

void tl_map_init(TlMap *m){
  memset(m, 0, sizeof(*m));
}

void tl_map_free(TlMap *m){
  free(m->aKey);
  free(m->aVal);
  tl_map_init(m);
}

static size_t map_hash(uint64_t key, size_t nSlot){
  return (size_t)tl_mix64(key) & (nSlot-1);
}

int tl_map_get(const TlMap *m, uint64_t key, uint32_t *pVal){
  size_t h;
  if( m->nSlot==0 ) return 0;
  h = map_hash(key, m->nSlot);
  while( m->aVal[h] ){
    if( m->aKey[h]==key ){ *pVal = m->aVal[h]-1; return 1; }
    h = (h+1) & (m->nSlot-1);
  }
  return 0;
}

static int map_grow(TlMap *m){
  size_t nNew = m->nSlot ? m->nSlot*2 : 64, i;
  uint64_t *aKey;
  uint32_t *aVal;
  if( nNew > SIZE_MAX/sizeof(uint64_t) ) return TL_ENOMEM;
  aKey = calloc(nNew, sizeof(uint64_t));
  aVal = calloc(nNew, sizeof(uint32_t));
  if( aKey==0 || aVal==0 ){ free(aKey); free(aVal); return TL_ENOMEM; }
  for(i=0; i<m->nSlot; i++){
    if( m->aVal[i] ){
      size_t h = map_hash(m->aKey[i], nNew);
      while( aVal[h] ) h = (h+1) & (nNew-1);
      aKey[h] = m->aKey[i];
      aVal[h] = m->aVal[i];
    }
  }
  free(m->aKey); free(m->aVal);
  m->aKey = aKey; m->aVal = aVal; m->nSlot = nNew;
  return TL_OK;
}

int tl_map_put(TlMap *m, uint64_t key, uint32_t val){
  size_t h;
  if( (m->nUsed+1)*2 > m->nSlot && map_grow(m) ) return TL_ENOMEM;
  h = map_hash(key, m->nSlot);
  while( m->aVal[h] && m->aKey[h]!=key ) h = (h+1) & (m->nSlot-1);
  if( m->aVal[h]==0 ) m->nUsed++;
  m->aKey[h] = key;
  m->aVal[h] = val+1;
  return TL_OK;
}
