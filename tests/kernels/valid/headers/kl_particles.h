/* Records shared with the host, as an application's header would declare
 * them: the host's C compiler gives them the same layout. */
#ifndef KL_PARTICLES_H
#define KL_PARTICLES_H
typedef struct {
  float2 origin;
  float spacing[2];
} grid_t; /* 16 bytes */

typedef struct {
  grid_t grid;
  int counts[3];
  uint flags;
} config_t; /* 32 bytes, passed by value */

typedef struct {
  int3 lo;   /* 0, 16 bytes */
  int3 hi;   /* 16 */
  short id;  /* 32 */
  char kind; /* 34; the struct is 48 bytes */
} box_t;
#endif
