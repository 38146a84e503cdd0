// SPDX-License-Identifier: Apache-2.0
/* agpu_program_build on the CPU backend: the portable source goes through
 * the translator (kernels/) to host C, which the system C compiler turns
 * into a shared object (cpu_compile.c); the object is cached on disk by a
 * key of everything that decides its bytes, so that a second build of the
 * same source is a parse, a lookup and a dlopen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_cache.h"
#include "agpu_handle.h"
#include "agpu_parsed.h"
#include "cpu_internal.h"

#if defined(__x86_64__)
#define AGPU_CPU_TARGET "c-x86_64"
#elif defined(__aarch64__)
#define AGPU_CPU_TARGET "c-aarch64"
#else
#define AGPU_CPU_TARGET "c-host"
#endif

/* The kernels' signatures, from the core's parse. */
static agpu_status agpu_cpu_describe_kernels(const agpu_program_signatures *signatures,
                                             agpu_cpu_program *program) {
  void *entries = NULL;
  agpu_status status = agpu_signatures_copy_into(signatures, sizeof *program->kernels, &entries,
                                                 &program->kernel_count);
  program->kernels = entries;
  if (status != AGPU_SUCCESS)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  return AGPU_SUCCESS;
}

#define AGPU_CPU_REFUSAL "the CPU backend cannot run this kernel"

/* A cached object without some kernels: the program's refusals, learnt
 * from the emitter (no compile); whether there are any. */
static bool agpu_cpu_learn_refusals(agpu_program *program) {
  char *text = NULL;
  agpu_status status = agpu_parsed_emit_c(program->parsed, program, AGPU_CPU_REFUSAL, &text, NULL);
  free(text);
  return status == AGPU_SUCCESS && program->refusals;
}

/* The shared object from the kernel cache; false when it has none (or a
 * bad one). */
static bool agpu_cpu_from_cache(agpu_program *program, agpu_cpu_program *cpu, const char *hex) {
  void *cached = NULL;
  size_t cached_size = 0;
  uint8_t recorded[AGPU_SHA256_DIGEST_SIZE];
  if (agpu_cache_lookup_digest(hex, &cached, &cached_size, recorded) != AGPU_SUCCESS) return false;
  agpu_status loaded = agpu_cpu_load(cached, cached_size, recorded, &cpu->object);
  free(cached);
  agpu_status bound = loaded == AGPU_SUCCESS ? agpu_cpu_program_bind(cpu, program) : loaded;
  if (loaded == AGPU_SUCCESS && bound != AGPU_SUCCESS && agpu_cpu_learn_refusals(program))
    bound = agpu_cpu_program_bind(cpu, program);
  if (bound == AGPU_SUCCESS) {
    cpu->from_cache = true;
    return true;
  }
  agpu_cpu_unload(&cpu->object); /* a bad entry: build again */
  return false;
}

static bool agpu_cpu_cache_key(const agpu_program *program, const char *identity,
                               char hex[AGPU_CACHE_KEY_HEX_SIZE]) {
  const agpu_parsed *parsed = program->parsed;
  const char *preprocessed = agpu_parsed_preprocessed(parsed);
  if (!preprocessed) return false;
  agpu_cache_key key;
  agpu_cache_key_begin_device(&key, program->device, AGPU_CPU_TARGET, preprocessed,
                              agpu_parsed_options(parsed));
  agpu_cache_key_add_string(&key, "compiler", identity);
  agpu_cache_key_add_u64(&key, "abi", KL_C_ABI_VERSION);
  return agpu_cache_key_final(&key, hex) == AGPU_SUCCESS;
}

/* The translator's C through the system compiler, then stored. */
static agpu_status agpu_cpu_compile_program(agpu_program *program, agpu_cpu_program *cpu,
                                            bool have_key, const char *hex) {
  char *c_source = NULL, *log = NULL;
  agpu_status status =
      agpu_parsed_emit_c(program->parsed, program, AGPU_CPU_REFUSAL, &c_source, &log);
  if (status != AGPU_SUCCESS) {
    if (log) {
      free(program->build_log);
      program->build_log = log;
    }
    return status;
  }
  char *compiler_log = NULL;
  status = agpu_cpu_compile(c_source, strlen(c_source), have_key, &cpu->object, &compiler_log);
  free(compiler_log);
  free(c_source);
  if (status != AGPU_SUCCESS) return status;
  status = agpu_cpu_program_bind(cpu, program);
  if (status == AGPU_SUCCESS && have_key && cpu->object.bytes)
    agpu_cache_store(hex, cpu->object.bytes, cpu->object.size); /* never fails the build */
  free(cpu->object.bytes);
  cpu->object.bytes = NULL;
  return status;
}

/* The CPU backend's translator traits: doubles and 64-bit integers always,
 * no half (the C target has no half arithmetic). */
void agpu_cpu_translate_traits(agpu_device *device, agpu_translate_traits *traits) {
  (void)device;
  *traits = (agpu_translate_traits){.fp64 = true, .int64 = true, .fp16 = false};
}

agpu_status agpu_cpu_program_build(agpu_program *program, const agpu_program_desc *desc) {
  (void)desc; /* the core parsed it: program->parsed */
  const char *identity = agpu_cpu_compiler_identity();
  if (!identity) return AGPU_ERROR_UNSUPPORTED;
  agpu_cpu_program *cpu = calloc(1, sizeof *cpu);
  if (!cpu) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  atomic_init(&cpu->references, 1);
  agpu_status status = agpu_cpu_describe_kernels(agpu_parsed_signatures(program->parsed), cpu);
  char hex[AGPU_CACHE_KEY_HEX_SIZE];
  bool have_key = status == AGPU_SUCCESS && agpu_cpu_cache_key(program, identity, hex);
  if (status == AGPU_SUCCESS && !(have_key && agpu_cpu_from_cache(program, cpu, hex)))
    status = agpu_cpu_compile_program(program, cpu, have_key, hex);
  if (status == AGPU_SUCCESS)
    program->native = cpu;
  else
    agpu_cpu_program_unref(cpu);
  return status;
}

/* For the tests (not in anygpu.h): the SHA-256 of the shared object a CPU
 * program runs, and whether it came from the cache. */
AGPU_API agpu_status agpu_cpu_program_digest(const agpu_program *program,
                                             char hex[AGPU_SHA256_HEX_SIZE], bool *from_cache);
AGPU_API agpu_status agpu_cpu_program_digest(const agpu_program *handle,
                                             char hex[AGPU_SHA256_HEX_SIZE], bool *from_cache) {
  void *object = NULL; /* the public handle is encoded: resolve it (api/handle.c) */
  agpu_status status = agpu_handle_lookup(handle, AGPU_OBJECT_PROGRAM, "agpu_cpu_program_digest",
                                          "program", &object);
  if (status != AGPU_SUCCESS) return status;
  const agpu_program *program = object;
  if (!hex || !program->device || program->device->info.backend != AGPU_BACKEND_CPU ||
      !program->native)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_cpu_program_digest: not a program built on the CPU backend");
  const agpu_cpu_program *cpu = program->native;
  agpu_sha256_hex(cpu->object.digest, hex);
  if (from_cache) *from_cache = cpu->from_cache;
  return AGPU_SUCCESS;
}
