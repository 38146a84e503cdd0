// SPDX-License-Identifier: Apache-2.0
/* Compiled programs in the kernel cache: after a build from source the
 * driver's binary (CL_PROGRAM_BINARIES) is stored under a key of everything
 * that decides it, and a later build of the same program loads it with
 * clCreateProgramWithBinary instead of compiling (PoCL: about 40 ms from
 * its own cache of the source, 1-2 ms from the binary). A binary the driver
 * refuses is a miss: the build falls back to the source. The entry keeps
 * the build log of the source build too (warnings are part of the result):
 * "AGPUCLB1", the log's length as 8 little-endian bytes, the log, the
 * binary.
 *
 * In one process a built program is also shared: while an agpu_program
 * built under a key is alive, another build of the same key for the same
 * device uses its cl_program (no lookup, no driver build: on PoCL
 * clBuildProgram from a binary still reads the program's LLVM bitcode,
 * about 1 ms for anygpu bench's seven kernels); the cl_program is released
 * with the last agpu_program that uses it. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agpu_cache.h"
#include "opencl_internal.h"
#include "agpu_parsed.h"

/* A string property of the device or its platform, "" when unknown. */
static void agpu_cl_add_info(agpu_cache_key *key, const agpu_cl_device *device, const char *field,
                             cl_uint param, bool platform) {
  char value[512] = "";
  if (platform)
    device->api->clGetPlatformInfo(device->platform, param, sizeof value - 1, value, NULL);
  else
    device->api->clGetDeviceInfo(device->id, param, sizeof value - 1, value, NULL);
  value[sizeof value - 1] = '\0';
  agpu_cache_key_add_string(key, field, value);
}

bool agpu_cl_binary_key(const agpu_program *program, const char *source, size_t source_size,
                        const char *preprocessed, const char *options,
                        char hex[AGPU_CACHE_KEY_HEX_SIZE]) {
  const agpu_cl_device *device = agpu_cl_device_of(program->device);
  agpu_cache_key key;
  agpu_cache_key_begin_device(&key, program->device, "cl-program-binary", preprocessed, options);
  /* the source as given too: the driver preprocesses it itself */
  agpu_cache_key_add(&key, "raw-source", source, source_size);
  agpu_cl_add_info(&key, device, "device-version", CL_DEVICE_VERSION, false);
  agpu_cl_add_info(&key, device, "vendor", CL_DEVICE_VENDOR, false);
  agpu_cl_add_info(&key, device, "platform-name", CL_PLATFORM_NAME, true);
  agpu_cl_add_info(&key, device, "platform-version", CL_PLATFORM_VERSION, true);
  return agpu_cache_key_final(&key, hex) == AGPU_SUCCESS;
}

agpu_status agpu_cl_build_from_binary(agpu_program *program, const char *key_hex,
                                      const char *options, const char *source_name) {
  const agpu_cl_device *device = agpu_cl_device_of(program->device);
  void *data = NULL;
  size_t size = 0;
  if (agpu_cache_lookup(key_hex, &data, &size) != AGPU_SUCCESS) return AGPU_ERROR_NOT_FOUND;
  const unsigned char *bytes = data;
  uint64_t log_size = 0;
  for (int i = 0; size >= 16 && i < 8; i++) log_size |= (uint64_t)bytes[8 + i] << (8 * i);
  if (size < 16 || memcmp(bytes, "AGPUCLB1", 8) != 0 || log_size > size - 16) {
    free(data);
    return AGPU_ERROR_NOT_FOUND;
  }
  const unsigned char *binary = bytes + 16 + log_size;
  size_t binary_size = size - 16 - (size_t)log_size;
  cl_int binary_status = CL_SUCCESS, error = CL_SUCCESS;
  cl_program created = binary_size ? device->api->clCreateProgramWithBinary(
                                         device->context, 1, &device->id, &binary_size, &binary,
                                         &binary_status, &error)
                                   : NULL;
  if (!created || binary_status != CL_SUCCESS || error != CL_SUCCESS) {
    if (created) device->api->clReleaseProgram(created);
    free(data);
    return AGPU_ERROR_NOT_FOUND;
  }
  agpu_status status =
      agpu_cl_finish_build(program, created, options, false, source_name, "agpu_program_build");
  if (status == AGPU_SUCCESS) {
    free(program->build_log); /* the source build's log, not the binary load's */
    program->build_log = NULL;
    if (log_size) {
      program->build_log = malloc((size_t)log_size + 1);
      if (program->build_log) {
        memcpy(program->build_log, bytes + 16, (size_t)log_size);
        program->build_log[log_size] = '\0';
      }
    }
  }
  free(data);
  return status == AGPU_SUCCESS ? AGPU_SUCCESS : AGPU_ERROR_NOT_FOUND;
}

void agpu_cl_store_binary(const agpu_program *program, const char *key_hex) {
  const agpu_cl_device *device = agpu_cl_device_of(program->device);
  cl_program built = (cl_program)program->native;
  size_t size = 0;
  if (device->api->clGetProgramInfo(built, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) !=
          CL_SUCCESS ||
      size == 0)
    return;
  size_t log_size = program->build_log ? strlen(program->build_log) : 0;
  unsigned char *entry = malloc(16 + log_size + size);
  if (!entry) return;
  memcpy(entry, "AGPUCLB1", 8);
  for (int i = 0; i < 8; i++) entry[8 + i] = (unsigned char)((uint64_t)log_size >> (8 * i));
  if (log_size) memcpy(entry + 16, program->build_log, log_size);
  unsigned char *binary = entry + 16 + log_size;
  if (device->api->clGetProgramInfo(built, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) ==
      CL_SUCCESS)
    agpu_cache_store(key_hex, entry, 16 + log_size + size); /* never fails the build */
  free(entry);
}

/* ------------------------------------------------ built programs, shared */

/* One built program, keyed by its cache key and device (two devices of one
 * name and driver have one key, but a cl_program belongs to one context).
 * Devices live as long as the process (the backend releases none), so a
 * device pointer never names another device later. */
typedef struct agpu_cl_shared {
  struct agpu_cl_shared *next;
  char key[AGPU_CACHE_KEY_HEX_SIZE];
  const agpu_cl_device *device;
  cl_program program;
  char *build_log; /* the log each user gets, NULL for none */
  uint64_t users;  /* agpu_programs whose native is `program` */
} agpu_cl_shared;

static pthread_mutex_t agpu_cl_shared_lock = PTHREAD_MUTEX_INITIALIZER;
static agpu_cl_shared *agpu_cl_shared_list; /* under the lock */

/* ANYGPU_CACHE=0 (as api/cache.c reads it): every build compiles, so no
 * program is shared either. */
static bool agpu_cl_cache_turned_off(void) {
  const char *v = getenv("ANYGPU_CACHE");
  return v && (!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") ||
               !strcasecmp(v, "false"));
}

static agpu_cl_shared *agpu_cl_shared_find(const agpu_cl_device *device, const char *key_hex) {
  for (agpu_cl_shared *s = agpu_cl_shared_list; s; s = s->next)
    if (s->device == device && strcmp(s->key, key_hex) == 0) return s;
  return NULL;
}

agpu_status agpu_cl_reuse_built(agpu_program *program, const char *key_hex) {
  const agpu_cl_device *device = agpu_cl_device_of(program->device);
  if (agpu_cl_cache_turned_off()) return AGPU_ERROR_NOT_FOUND;
  pthread_mutex_lock(&agpu_cl_shared_lock);
  agpu_cl_shared *shared = agpu_cl_shared_find(device, key_hex);
  char *log = NULL;
  bool ok = shared && (!shared->build_log || (log = agpu_strdup(shared->build_log)) != NULL);
  if (ok) {
    shared->users++;
    program->native = shared->program;
  }
  pthread_mutex_unlock(&agpu_cl_shared_lock);
  if (!ok) return AGPU_ERROR_NOT_FOUND;
  free(program->build_log);
  program->build_log = log;
  return AGPU_SUCCESS;
}

void agpu_cl_share_built(agpu_program *program, const char *key_hex) {
  const agpu_cl_device *device = agpu_cl_device_of(program->device);
  if (!program->native || agpu_cl_cache_turned_off()) return;
  agpu_cl_shared *shared = calloc(1, sizeof *shared);
  if (!shared) return; /* not shared: released on its own */
  if (program->build_log && !(shared->build_log = agpu_strdup(program->build_log))) {
    free(shared);
    return;
  }
  memcpy(shared->key, key_hex, AGPU_CACHE_KEY_HEX_SIZE);
  shared->device = device;
  shared->program = (cl_program)program->native;
  shared->users = 1;
  pthread_mutex_lock(&agpu_cl_shared_lock);
  bool added = !agpu_cl_shared_find(device, key_hex); /* else a concurrent build was first */
  if (added) {
    shared->next = agpu_cl_shared_list;
    agpu_cl_shared_list = shared;
  }
  pthread_mutex_unlock(&agpu_cl_shared_lock);
  if (!added) {
    free(shared->build_log);
    free(shared);
  }
}

void agpu_cl_release_built(agpu_program *program) {
  const agpu_cl_device *device = agpu_cl_device_of(program->device);
  cl_program native = (cl_program)program->native;
  bool release = true;
  agpu_cl_shared *last = NULL;
  pthread_mutex_lock(&agpu_cl_shared_lock);
  for (agpu_cl_shared **at = &agpu_cl_shared_list; *at; at = &(*at)->next) {
    if ((*at)->program != native || (*at)->device != device) continue;
    if (--(*at)->users == 0) {
      last = *at;
      *at = last->next;
    } else {
      release = false;
    }
    break;
  }
  pthread_mutex_unlock(&agpu_cl_shared_lock);
  if (last) {
    free(last->build_log);
    free(last);
  }
  if (release) device->api->clReleaseProgram(native);
}
