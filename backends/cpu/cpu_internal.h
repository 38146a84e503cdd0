// SPDX-License-Identifier: Apache-2.0
#ifndef AGPU_CPU_INTERNAL_H
#define AGPU_CPU_INTERNAL_H

#include "agpu_backend.h"
#include "agpu_signature.h"

/* Fills the built-in CPU device's info from /proc and sysconf. */
void agpu_cpu_describe_host(agpu_device_info *info);
/* System memory from /proc/meminfo: total and available bytes. */
bool agpu_cpu_host_memory(uint64_t *total, uint64_t *available);

/* cpu_pool.c: the thread pool. run(context, begin, end) is called for
 * chunks of [0, total) on the pool's threads and the caller's; returns when
 * every item has run. Thread-safe. */
typedef struct agpu_cpu_task agpu_cpu_task;
typedef void (*agpu_cpu_task_fn)(void *context, size_t begin, size_t end);
void agpu_cpu_pool_run(size_t total, size_t chunk, agpu_cpu_task_fn run, void *context);
/* Threads that run a launch (the workers and the launching thread). */
unsigned agpu_cpu_pool_threads(void);

/* cpu_compile.c: the system C compiler, found at run time. */
typedef struct agpu_cpu_object {
  void *handle; /* dlopen handle */
  void *bytes;  /* the shared object's bytes (malloc'd), for the cache; may be NULL */
  size_t size;
  bool has_fd; /* fd: the anonymous file it was loaded from, open while it is loaded */
  int fd;
  uint8_t digest[32]; /* the SHA-256 of what was loaded */
} agpu_cpu_object;
/* "gcc 12.2.0 /usr/bin/gcc-12 <size> <mtime>" and the flags: what the cache
 * key needs to know about the compiler. NULL (with the error set) when no
 * compiler is found. */
const char *agpu_cpu_compiler_identity(void);
/* Compiles C source into a shared object and loads it (with agpu_cpu_load,
 * against the SHA-256 of the bytes the compiler wrote). *log gets the
 * compiler's output (malloc'd, may be NULL). Returns AGPU_ERROR_INTERNAL with
 * the compiler's message when the compile fails (the C is generated, so a
 * failure is the translator's bug), AGPU_ERROR_UNSUPPORTED when there is no
 * compiler. With keep_bytes, object->bytes holds exactly what was loaded,
 * for caching. */
agpu_status agpu_cpu_compile(const char *source, size_t length, bool keep_bytes,
                             agpu_cpu_object *object, char **log);
/* Loads a shared object from bytes (a cache entry) whose SHA-256 was recorded
 * when they were written; the bytes actually handed to dlopen are hashed
 * again and must match, or nothing is loaded (AGPU_ERROR_INTERNAL). */
agpu_status agpu_cpu_load(const void *bytes, size_t size, const uint8_t recorded[32],
                          agpu_cpu_object *object);
/* cpu_device.c: the last-level cache's bytes, 0 when unknown. */
uint64_t agpu_cpu_last_level_cache(void);
/* cpu_stream.c: sets a freshly loaded object's kl_c_stream_bytes (the launch
 * bytes from which its kernels use streaming stores), where it has one. */
void agpu_cpu_stream_setup(void *handle);
/* dlclose, then the descriptor and the bytes; leaves the object zeroed. */
void agpu_cpu_unload(agpu_cpu_object *object);

/* cpu_launch.c: programs as loaded shared objects, kernels, launches. */
#include "emit_c_abi.h"

typedef struct agpu_cpu_kernel_entry {
  agpu_kernel_signature signature; /* first (agpu_signatures_copy_into); copied into each kernel */
  const kl_c_kernel *abi;
} agpu_cpu_kernel_entry;

typedef struct agpu_cpu_program {
  _Atomic int references; /* the program and each kernel made from it */
  agpu_cpu_object object;
  bool from_cache; /* the object came from a cache entry, not the compiler */
  uint32_t kernel_count;
  agpu_cpu_kernel_entry *kernels;
} agpu_cpu_program;

/* Finds every entry's kl_c_kernel_<name> in the loaded object and checks its
 * ABI version and parameter count; a kernel `built` refused is not there. */
agpu_status agpu_cpu_program_bind(agpu_cpu_program *program, const agpu_program *built);
void agpu_cpu_program_unref(agpu_cpu_program *program);
AGPU_DECLARE_KERNEL_OPS(agpu_cpu);
/* cpu_program.c: agpu_program_build for portable kernel source. */
agpu_status agpu_cpu_program_build(agpu_program *program, const agpu_program_desc *desc);
void agpu_cpu_translate_traits(agpu_device *device, agpu_translate_traits *traits);

#endif
