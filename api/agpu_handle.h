// SPDX-License-Identifier: Apache-2.0
/* Handles: what the user holds is not the object's address but an encoded
 * value (type, generation, slot) that the core resolves through a table of
 * slots that is never freed. A released, foreign, wrong-type or NULL handle is
 * told apart without reading through the user's pointer (docs/reliability.md).
 */
#ifndef AGPU_HANDLE_H
#define AGPU_HANDLE_H

#include <stdint.h>

#include "anygpu.h"

typedef enum agpu_object_type {
  AGPU_OBJECT_NONE = 0,
  AGPU_OBJECT_DEVICE,
  AGPU_OBJECT_BUFFER,
  AGPU_OBJECT_PROGRAM,
  AGPU_OBJECT_KERNEL,
  AGPU_OBJECT_QUEUE,
  AGPU_OBJECT_EVENT,
  AGPU_OBJECT_TRANSLATION,
  AGPU_OBJECT_TYPE_COUNT_
} agpu_object_type;

/* "buffer", "queue", ...; "object" for anything else. */
const char *agpu_object_type_name(agpu_object_type type);

/* Takes a free slot for `object` and returns its handle, or NULL (with
 * AGPU_ERROR_OUT_OF_HOST_MEMORY set) when no slot can be had. */
void *agpu_handle_new(agpu_object_type type, void *object);

/* Resolves a handle of `type` to its object. On failure returns
 * AGPU_ERROR_INVALID_HANDLE with "<function>: <argument> ..." saying what was
 * wrong (NULL, released, not a handle, a handle of another type). */
agpu_status agpu_handle_lookup(const void *handle, agpu_object_type type, const char *function,
                               const char *argument, void **object);

/* Resolves a handle like agpu_handle_lookup and ends it, atomically: of two
 * threads releasing one handle, one gets the object and the other is told
 * it was released. Later lookups say "released"; the object is the caller's
 * to free. */
agpu_status agpu_handle_take(const void *handle, agpu_object_type type, const char *function,
                             const char *argument, void **object);

/* Resolves a handle like agpu_handle_lookup and calls `pin` on its object
 * while no agpu_handle_take of it can run: the object is then pinned (say,
 * by a reference count that `pin` raises) before a release can end it. */
agpu_status agpu_handle_lookup_pinned(const void *handle, agpu_object_type type,
                                      const char *function, const char *argument,
                                      void (*pin)(void *object), void **object);

/* Ends a handle that agpu_handle_new returned and the user never saw (a
 * create that failed after taking its slot). */
void agpu_handle_discard(const void *handle);

#endif /* AGPU_HANDLE_H */
