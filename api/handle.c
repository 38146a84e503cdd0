// SPDX-License-Identifier: Apache-2.0
/* The handle table. A handle is a 64-bit value, never an address:
 *
 *   bits 63..56  0xA6, marks an anygpu handle (no user-space address has it)
 *   bits 55..52  the object type
 *   bits 51..24  the slot's generation when the handle was made
 *   bits 23..0   the slot
 *
 * Slots live in chunks that are never freed, so looking one up is always a
 * read of memory the library owns; a value that is not ours is never read
 * through. Releasing a handle bumps its slot's generation, so the old value
 * says "released" for as long as the slot's generation has not wrapped
 * (2^28 reuses of that one slot). Freed slots are reused first-in
 * first-out, which spreads reuse over every free slot.
 *
 * Lookups take no lock: the slot's state (live bit, type, generation) is read
 * before and after its object pointer, like a seqlock. Taking and freeing
 * slots is under one mutex. Devices belong to the library and are never
 * freed: their handles are their addresses, checked against the registry.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "agpu_core.h"

_Static_assert(sizeof(uintptr_t) == 8, "anygpu handles encode 64 bits in a pointer");

#define AGPU_HANDLE_MAGIC 0xA6u
#define AGPU_SLOT_BITS 24
#define AGPU_GENERATION_BITS 28
#define AGPU_GENERATION_MASK ((1u << AGPU_GENERATION_BITS) - 1)
#define AGPU_CHUNK_BITS 12
#define AGPU_CHUNK_SLOTS (1u << AGPU_CHUNK_BITS)
#define AGPU_CHUNK_COUNT (1u << (AGPU_SLOT_BITS - AGPU_CHUNK_BITS))
#define AGPU_NO_SLOT UINT32_MAX

/* state: bit 40 live, bits 39..36 type, bits 27..0 generation. */
#define AGPU_STATE_LIVE ((uint64_t)1 << 40)

typedef struct agpu_slot {
  _Atomic uint64_t state;
  _Atomic(void *) object;
  uint32_t next_free; /* under agpu_handle_lock */
} agpu_slot;

static _Atomic(agpu_slot *) agpu_chunks[AGPU_CHUNK_COUNT];
static pthread_mutex_t agpu_handle_lock = PTHREAD_MUTEX_INITIALIZER;
/* Under agpu_handle_lock: slots never used yet start at agpu_next_unused;
 * released ones queue from agpu_free_head to agpu_free_tail. */
static uint32_t agpu_next_unused;
static uint32_t agpu_free_head = AGPU_NO_SLOT, agpu_free_tail = AGPU_NO_SLOT;

static uint64_t agpu_live_state(agpu_object_type type, uint32_t generation) {
  return AGPU_STATE_LIVE | (uint64_t)type << 36 | generation;
}

static uint32_t agpu_state_generation(uint64_t state) {
  return (uint32_t)(state & AGPU_GENERATION_MASK);
}

static agpu_slot *agpu_slot_at(uint32_t index) {
  agpu_slot *chunk =
      atomic_load_explicit(&agpu_chunks[index >> AGPU_CHUNK_BITS], memory_order_acquire);
  return chunk ? &chunk[index & (AGPU_CHUNK_SLOTS - 1)] : NULL;
}

const char *agpu_object_type_name(agpu_object_type type) {
  switch (type) {
    case AGPU_OBJECT_DEVICE:
      return "device";
    case AGPU_OBJECT_BUFFER:
      return "buffer";
    case AGPU_OBJECT_PROGRAM:
      return "program";
    case AGPU_OBJECT_KERNEL:
      return "kernel";
    case AGPU_OBJECT_QUEUE:
      return "queue";
    case AGPU_OBJECT_EVENT:
      return "event";
    case AGPU_OBJECT_TRANSLATION:
      return "translation";
    case AGPU_OBJECT_NONE:
    case AGPU_OBJECT_TYPE_COUNT_:
      break;
  }
  return "object";
}

static const char *agpu_article(agpu_object_type type) {
  return type == AGPU_OBJECT_EVENT ? "an" : "a";
}

/* A free slot (with its chunk allocated), or AGPU_NO_SLOT. Under the lock. */
static uint32_t agpu_slot_take_free(void) {
  if (agpu_free_head != AGPU_NO_SLOT) {
    uint32_t index = agpu_free_head;
    agpu_free_head = agpu_slot_at(index)->next_free;
    if (agpu_free_head == AGPU_NO_SLOT) agpu_free_tail = AGPU_NO_SLOT;
    return index;
  }
  if (agpu_next_unused >= AGPU_CHUNK_COUNT * AGPU_CHUNK_SLOTS) return AGPU_NO_SLOT;
  uint32_t index = agpu_next_unused;
  uint32_t chunk = index >> AGPU_CHUNK_BITS;
  if (!atomic_load_explicit(&agpu_chunks[chunk], memory_order_relaxed)) {
    agpu_slot *slots = calloc(AGPU_CHUNK_SLOTS, sizeof *slots);
    if (!slots) return AGPU_NO_SLOT;
    atomic_store_explicit(&agpu_chunks[chunk], slots, memory_order_release);
  }
  agpu_next_unused++;
  return index;
}

void *agpu_handle_new(agpu_object_type type, void *object) {
  pthread_mutex_lock(&agpu_handle_lock);
  uint32_t index = agpu_slot_take_free();
  pthread_mutex_unlock(&agpu_handle_lock);
  if (index == AGPU_NO_SLOT) {
    agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY,
                   "out of host memory for a %s handle (%u handles in use at most)",
                   agpu_object_type_name(type), AGPU_CHUNK_COUNT * AGPU_CHUNK_SLOTS);
    return NULL;
  }
  agpu_slot *slot = agpu_slot_at(index);
  /* The slot is ours alone until its state says live. */
  uint32_t generation =
      agpu_state_generation(atomic_load_explicit(&slot->state, memory_order_relaxed));
  atomic_store_explicit(&slot->object, object, memory_order_relaxed);
  atomic_store_explicit(&slot->state, agpu_live_state(type, generation), memory_order_release);
  uintptr_t value = (uintptr_t)AGPU_HANDLE_MAGIC << 56 | (uintptr_t)type << 52 |
                    (uintptr_t)generation << AGPU_SLOT_BITS | index;
  return (void *)value;
}

/* Under the lock. */
static void agpu_slot_free(uint32_t index) {
  agpu_slot_at(index)->next_free = AGPU_NO_SLOT;
  if (agpu_free_tail == AGPU_NO_SLOT)
    agpu_free_head = index;
  else
    agpu_slot_at(agpu_free_tail)->next_free = index;
  agpu_free_tail = index;
}

/* Splits a value into its fields; false when it is not one of ours. */
static bool agpu_handle_decode(uintptr_t value, agpu_object_type *type, uint32_t *generation,
                               uint32_t *index) {
  if ((value >> 56) != AGPU_HANDLE_MAGIC) return false;
  *type = (agpu_object_type)((value >> 52) & 0xf);
  *generation = (uint32_t)(value >> AGPU_SLOT_BITS) & AGPU_GENERATION_MASK;
  *index = (uint32_t)value & ((1u << AGPU_SLOT_BITS) - 1);
  if (*type <= AGPU_OBJECT_DEVICE || *type >= AGPU_OBJECT_TYPE_COUNT_) return false;
  return *index < AGPU_CHUNK_COUNT * AGPU_CHUNK_SLOTS && agpu_slot_at(*index) != NULL;
}

static agpu_status agpu_not_a_handle(const void *handle, agpu_object_type type,
                                     const char *function, const char *argument) {
  if (type == AGPU_OBJECT_DEVICE)
    return agpu_error_set(AGPU_ERROR_INVALID_HANDLE,
                          "%s: %s %p is not an anygpu device (not an anygpu handle)", function,
                          argument, handle);
  return agpu_error_set(AGPU_ERROR_INVALID_HANDLE,
                        "%s: %s %p is not an anygpu handle (%s %s was expected)", function,
                        argument, handle, agpu_article(type), agpu_object_type_name(type));
}

/* The state a live handle's slot must have, or the failure message. On
 * success *slot_out is the handle's slot and *state_out its state. */
static agpu_status agpu_handle_check(const void *handle, agpu_object_type type,
                                     const char *function, const char *argument,
                                     agpu_slot **slot_out, uint64_t *state_out) {
  if (!handle)
    return agpu_error_set(AGPU_ERROR_INVALID_HANDLE, "%s: %s is NULL", function, argument);
  agpu_object_type actual;
  uint32_t generation, index;
  if (!agpu_handle_decode((uintptr_t)handle, &actual, &generation, &index)) {
    /* Device handles are addresses, compared (never read) against the registry. */
    if (type != AGPU_OBJECT_DEVICE && agpu_registry_owns_device(handle))
      return agpu_error_set(AGPU_ERROR_INVALID_HANDLE,
                            "%s: %s is not %s %s handle: a device where %s %s was expected",
                            function, argument, agpu_article(type), agpu_object_type_name(type),
                            agpu_article(type), agpu_object_type_name(type));
    return agpu_not_a_handle(handle, type, function, argument);
  }
  agpu_slot *slot = agpu_slot_at(index);
  uint64_t state = atomic_load_explicit(&slot->state, memory_order_acquire);
  bool live = state == agpu_live_state(actual, generation);
  /* A generation the slot has not reached yet was never handed out. */
  uint32_t age = (agpu_state_generation(state) - generation) & AGPU_GENERATION_MASK;
  if (!live && (age == 0 || age > (AGPU_GENERATION_MASK >> 1)))
    return agpu_not_a_handle(handle, type, function, argument);
  if (actual != type)
    return agpu_error_set(AGPU_ERROR_INVALID_HANDLE,
                          "%s: %s is not %s %s handle: %s %s where %s %s was expected%s", function,
                          argument, agpu_article(type), agpu_object_type_name(type),
                          agpu_article(actual), agpu_object_type_name(actual), agpu_article(type),
                          agpu_object_type_name(type), live ? "" : " (and a released one)");
  if (!live)
    return agpu_error_set(AGPU_ERROR_INVALID_HANDLE, "%s: %s was already released", function,
                          argument);
  *slot_out = slot;
  *state_out = state;
  return AGPU_SUCCESS;
}

agpu_status agpu_handle_lookup(const void *handle, agpu_object_type type, const char *function,
                               const char *argument, void **object) {
  *object = NULL;
  if (type == AGPU_OBJECT_DEVICE && handle && agpu_registry_owns_device(handle)) {
    *object = (void *)handle;
    return agpu_process_check_device(handle, function);
  }
  agpu_slot *slot;
  uint64_t state;
  agpu_status status = agpu_handle_check(handle, type, function, argument, &slot, &state);
  if (status != AGPU_SUCCESS) return status;
  void *found = atomic_load_explicit(&slot->object, memory_order_relaxed);
  atomic_thread_fence(memory_order_acquire);
  /* Released (and maybe reused) while we read: the handle is dead. */
  if (atomic_load_explicit(&slot->state, memory_order_relaxed) != state)
    return agpu_error_set(AGPU_ERROR_INVALID_HANDLE, "%s: %s was already released", function,
                          argument);
  *object = found;
  return agpu_process_check_object(type, found, function);
}

agpu_status agpu_handle_take(const void *handle, agpu_object_type type, const char *function,
                             const char *argument, void **object) {
  *object = NULL;
  agpu_slot *slot;
  uint64_t state;
  agpu_status status = agpu_handle_check(handle, type, function, argument, &slot, &state);
  if (status != AGPU_SUCCESS) return status;
  /* Read before the state changes: once dead, the slot may be reused. */
  void *found = atomic_load_explicit(&slot->object, memory_order_relaxed);
  status = agpu_process_check_object(type, found, function); /* before the handle ends */
  if (status != AGPU_SUCCESS) return status;
  uint64_t dead = (agpu_state_generation(state) + 1) & AGPU_GENERATION_MASK;
  /* Under the lock, so that a pinning lookup sees the handle live and pins
   * the object, or sees it ended. */
  pthread_mutex_lock(&agpu_handle_lock);
  bool ended = atomic_compare_exchange_strong_explicit(&slot->state, &state, dead,
                                                       memory_order_acq_rel, memory_order_acquire);
  if (ended) agpu_slot_free((uint32_t)(uintptr_t)handle & ((1u << AGPU_SLOT_BITS) - 1));
  pthread_mutex_unlock(&agpu_handle_lock);
  if (!ended)
    return agpu_error_set(AGPU_ERROR_INVALID_HANDLE, "%s: %s was already released", function,
                          argument);
  *object = found;
  return AGPU_SUCCESS;
}

agpu_status agpu_handle_lookup_pinned(const void *handle, agpu_object_type type,
                                      const char *function, const char *argument,
                                      void (*pin)(void *object), void **object) {
  *object = NULL;
  agpu_slot *slot;
  uint64_t state;
  pthread_mutex_lock(&agpu_handle_lock);
  agpu_status status = agpu_handle_check(handle, type, function, argument, &slot, &state);
  void *found = status == AGPU_SUCCESS ? atomic_load(&slot->object) : NULL;
  if (status == AGPU_SUCCESS) status = agpu_process_check_object(type, found, function);
  if (status == AGPU_SUCCESS) pin(found);
  pthread_mutex_unlock(&agpu_handle_lock);
  *object = found;
  return status;
}

void agpu_handle_discard(const void *handle) {
  agpu_object_type type;
  uint32_t generation, index;
  if (!agpu_handle_decode((uintptr_t)handle, &type, &generation, &index)) return;
  void *ignored;
  agpu_handle_take(handle, type, "agpu_handle_discard", "handle", &ignored);
}

agpu_status agpu_object_publish(agpu_object *object, agpu_object_type type) {
  object->type = type;
  object->handle = agpu_handle_new(type, object);
  return object->handle ? AGPU_SUCCESS : AGPU_ERROR_OUT_OF_HOST_MEMORY;
}
