// SPDX-License-Identifier: Apache-2.0
#include <stdio.h>
#include <stdlib.h>

#include "agpu_core.h"
#include "agpu_trace.h"

#include "backend_list.h"

/* Written once under pthread_once, read-only afterwards: no lock needed. */
static agpu_backend agpu_backends[AGPU_BACKEND_COUNT_];
static agpu_device **agpu_all_devices;
static uint32_t agpu_all_device_count;
static pthread_once_t agpu_registry_once = PTHREAD_ONCE_INIT;

#define AGPU_DECLARE_OPS(kind, name, ops, ...) extern const agpu_backend_ops ops;
AGPU_BACKEND_LIST(AGPU_DECLARE_OPS)
#undef AGPU_DECLARE_OPS

#define AGPU_DESCRIBE(kind_, name_, ops_, target_, gpu_rank_, cpu_rank_, colour_, formats_, \
                      environment_, flags_)                                                 \
  [kind_] = {.kind = kind_,                                                                 \
             .name = name_,                                                                 \
             .target = target_,                                                             \
             .gpu_rank = gpu_rank_,                                                         \
             .cpu_rank = cpu_rank_,                                                         \
             .colour = colour_,                                                             \
             .native_formats = formats_,                                                    \
             .environment = environment_,                                                   \
             .flags = flags_},
static const agpu_backend_descriptor agpu_descriptors[AGPU_BACKEND_COUNT_] = {
    AGPU_BACKEND_LIST(AGPU_DESCRIBE)};
#undef AGPU_DESCRIBE

#define AGPU_OPS_ENTRY(kind, name, ops, ...) [kind] = &ops,
static const agpu_backend_ops *const agpu_backend_tables[AGPU_BACKEND_COUNT_] = {
    AGPU_BACKEND_LIST(AGPU_OPS_ENTRY)};
#undef AGPU_OPS_ENTRY

_Static_assert(sizeof agpu_descriptors / sizeof *agpu_descriptors == AGPU_BACKEND_COUNT_,
               "api/backend_list.h has a line for each agpu_backend_kind");

const agpu_backend_descriptor *agpu_backend_descriptor_of(agpu_backend_kind kind) {
  return (unsigned)kind < AGPU_BACKEND_COUNT_ ? &agpu_descriptors[kind] : NULL;
}

const agpu_backend_descriptor *agpu_backend_for_target(agpu_target target) {
  if (target == AGPU_TARGET_GLSL) target = AGPU_TARGET_SPIRV;
  const agpu_backend_descriptor *testing = NULL;
  for (uint32_t kind = 0; agpu_backend_descriptor_of((agpu_backend_kind)kind); kind++) {
    const agpu_backend_descriptor *d = agpu_backend_descriptor_of((agpu_backend_kind)kind);
    if (d->target != target) continue;
    if (!(d->flags & AGPU_BACKEND_TESTING)) return d;
    if (!testing) testing = d;
  }
  return testing;
}

void agpu_backend_names(char *out, size_t capacity) {
  size_t used = 0;
  if (capacity) out[0] = '\0';
  for (uint32_t kind = 0; agpu_backend_descriptor_of((agpu_backend_kind)kind) && used < capacity;
       kind++)
    used += (size_t)snprintf(out + used, capacity - used, "%s%s", kind ? ", " : "",
                             agpu_backend_descriptor_of((agpu_backend_kind)kind)->name);
}

agpu_device *agpu_backend_add_device(agpu_backend *backend, const agpu_device_info *info,
                                     void *native) {
  agpu_device *device = calloc(1, sizeof *device);
  agpu_device **grown = realloc(backend->devices, (backend->device_count + 1) * sizeof *grown);
  if (!device || !grown) {
    free(device);
    if (grown) backend->devices = grown;
    return NULL;
  }
  backend->devices = grown;
  device->object.type = AGPU_OBJECT_DEVICE;
  device->object.handle = device; /* never freed: its address is its handle */
  device->backend = backend;
  device->info = *info;
  device->info.backend = backend->descriptor->kind;
  device->info.backend_name = backend->descriptor->name;
  device->info.index = backend->device_count;
  snprintf(device->info.selector, sizeof device->info.selector, "%s:%u", backend->descriptor->name,
           device->info.index);
  device->native = native;
  pthread_mutex_init(&device->hygiene_lock, NULL);
  backend->devices[backend->device_count++] = device;
  return device;
}

static void agpu_registry_load(void) {
  for (int kind = 0; kind < AGPU_BACKEND_COUNT_; kind++) {
    agpu_backend *backend = &agpu_backends[kind];
    backend->descriptor = &agpu_descriptors[kind];
    backend->ops = agpu_backend_tables[kind];
    agpu_status status = backend->ops->init(backend);
    /* A backend that fails in init is reported, never fatal. */
    if (status != AGPU_SUCCESS) {
      if (!backend->reason[0])
        snprintf(backend->reason, sizeof backend->reason, "%s", agpu_last_error());
      backend->available = false;
      backend->device_count = 0;
    }
    agpu_all_device_count += backend->device_count;
  }
  agpu_all_devices = calloc(agpu_all_device_count ? agpu_all_device_count : 1, sizeof(void *));
  if (!agpu_all_devices) {
    agpu_all_device_count = 0;
    return;
  }
  uint32_t next = 0;
  for (int kind = 0; kind < AGPU_BACKEND_COUNT_; kind++)
    for (uint32_t i = 0; i < agpu_backends[kind].device_count; i++)
      agpu_all_devices[next++] = agpu_backends[kind].devices[i];
  agpu_process_watch();
  agpu_trace_from_environment();
  agpu_error_clear();
}

void agpu_registry_init(void) {
  pthread_once(&agpu_registry_once, agpu_registry_load);
}

agpu_backend *agpu_registry_backend(agpu_backend_kind kind) {
  agpu_registry_init();
  return &agpu_backends[kind];
}

uint32_t agpu_registry_device_count(void) {
  agpu_registry_init();
  return agpu_all_device_count;
}

agpu_device *agpu_registry_device(uint32_t index) {
  agpu_registry_init();
  return index < agpu_all_device_count ? agpu_all_devices[index] : NULL;
}

bool agpu_registry_owns_device(const agpu_device *device) {
  agpu_registry_init();
  for (uint32_t i = 0; i < agpu_all_device_count; i++)
    if (agpu_all_devices[i] == device) return true;
  return false;
}

AGPU_API uint32_t agpu_backend_count(void) {
  return AGPU_BACKEND_COUNT_;
}

AGPU_API agpu_status agpu_backend_get_info(uint32_t index, agpu_backend_info *info) {
  if (!info)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_backend_get_info: info is NULL");
  if (index >= AGPU_BACKEND_COUNT_)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_backend_get_info: index %u out of range (%d backends)", index,
                          AGPU_BACKEND_COUNT_);
  const agpu_backend *backend = agpu_registry_backend((agpu_backend_kind)index);
  const agpu_backend_descriptor *descriptor = backend->descriptor;
  info->kind = descriptor->kind;
  info->name = descriptor->name;
  info->available = backend->available;
  info->device_count = backend->device_count;
  info->library = backend->library;
  info->reason = backend->reason;
  info->target = descriptor->target;
  info->gpu_rank = descriptor->gpu_rank;
  info->cpu_rank = descriptor->cpu_rank;
  info->colour = descriptor->colour;
  info->native_formats = descriptor->native_formats;
  info->environment = descriptor->environment;
  info->survives_fork = descriptor->flags & AGPU_BACKEND_SURVIVES_FORK;
  info->testing = descriptor->flags & AGPU_BACKEND_TESTING;
  return AGPU_SUCCESS;
}

#define AGPU_NAME(kind, name, ...) " " name ","
/* " cuda, hip, vulkan, opencl, cpu, null," */
static const char agpu_known_backends[] = AGPU_BACKEND_LIST(AGPU_NAME);
#undef AGPU_NAME

AGPU_API agpu_status agpu_backend_find(const char *name, uint32_t *index) {
  if (!name || !index)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_backend_find: NULL argument");
  for (uint32_t i = 0; i < AGPU_BACKEND_COUNT_; i++) {
    if (strcmp(agpu_descriptors[i].name, name) == 0) {
      *index = i;
      return AGPU_SUCCESS;
    }
  }
  return agpu_error_set(AGPU_ERROR_NOT_FOUND, "unknown backend '%s' (known:%.*s)", name,
                        (int)sizeof agpu_known_backends - 2, agpu_known_backends);
}

agpu_status agpu_check_device(const agpu_device *device, const char *function) {
  void *found;
  return agpu_handle_lookup(device, AGPU_OBJECT_DEVICE, function, "device", &found);
}

static agpu_status agpu_check_backend_index(uint32_t backend, const char *function) {
  if (backend >= AGPU_BACKEND_COUNT_)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: backend %u out of range (%d backends)",
                          function, backend, AGPU_BACKEND_COUNT_);
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_backend_load_attempt_count(uint32_t backend, uint32_t *count) {
  if (!count)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_backend_load_attempt_count: count is NULL");
  agpu_status status = agpu_check_backend_index(backend, "agpu_backend_load_attempt_count");
  if (status != AGPU_SUCCESS) return status;
  *count = agpu_registry_backend((agpu_backend_kind)backend)->attempt_count;
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_backend_get_load_attempt(uint32_t backend, uint32_t attempt,
                                                   const char **name, const char **error) {
  if (!name || !error)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_backend_get_load_attempt: name or error is NULL");
  agpu_status status = agpu_check_backend_index(backend, "agpu_backend_get_load_attempt");
  if (status != AGPU_SUCCESS) return status;
  const agpu_backend *entry = agpu_registry_backend((agpu_backend_kind)backend);
  if (attempt >= entry->attempt_count)
    return agpu_error_set(AGPU_ERROR_NOT_FOUND,
                          "agpu_backend_get_load_attempt: %s tried %u libraries, no attempt %u",
                          entry->descriptor->name, entry->attempt_count, attempt);
  *name = entry->attempts[attempt].name;
  *error = entry->attempts[attempt].error;
  return AGPU_SUCCESS;
}

agpu_status agpu_backend_not_built(agpu_backend *backend, const char *why) {
  snprintf(backend->reason, sizeof backend->reason, "%s", why);
  backend->available = false;
  return AGPU_SUCCESS;
}

bool agpu_backend_loaded(agpu_backend *backend, void *api) {
  backend->available = api != NULL;
  if (api) backend->native = api;
  return api != NULL;
}
