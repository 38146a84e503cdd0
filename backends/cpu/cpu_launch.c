// SPDX-License-Identifier: Apache-2.0
/* Kernels and launches on the CPU backend. A program is a loaded shared
 * object whose kernels follow the ABI in kernels/emit_c_abi.h; a launch
 * hands the work-groups to the thread pool, each thread running whole
 * work-groups (all of a group's work-items, barriers included) in its own
 * scratch memory: the group's __local memory and the per-work-item copies of
 * values that live across barriers. A launch is queued (cpu_queue.c) and
 * runs on the queue's thread with the pool. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_internal.h"
#include "cpu_queue.h"

#define AGPU_CPU_SCRATCH_ALIGNMENT 128 /* a double16 */

static size_t agpu_cpu_align(size_t value) {
  return (value + AGPU_CPU_SCRATCH_ALIGNMENT - 1) & ~(size_t)(AGPU_CPU_SCRATCH_ALIGNMENT - 1);
}

agpu_status agpu_cpu_program_bind(agpu_cpu_program *program, const agpu_program *built) {
  for (uint32_t i = 0; i < program->kernel_count; i++) {
    agpu_cpu_kernel_entry *entry = &program->kernels[i];
    entry->abi = NULL;
    if (agpu_program_refusal(built, entry->signature.name)) continue; /* not in the object */
    char symbol[256];
    snprintf(symbol, sizeof symbol, KL_C_KERNEL_SYMBOL_PREFIX "%s", entry->signature.name);
    entry->abi = dlsym(program->object.handle, symbol);
    if (!entry->abi)
      return agpu_error_set(AGPU_ERROR_INTERNAL, "cpu: the compiled program lacks %s", symbol);
    if (entry->abi->abi_version != KL_C_ABI_VERSION ||
        entry->abi->param_count != entry->signature.param_count)
      return agpu_error_set(AGPU_ERROR_INTERNAL,
                            "cpu: kernel '%s' has ABI %u with %u parameters; expected ABI %u "
                            "with %u",
                            entry->signature.name, entry->abi->abi_version, entry->abi->param_count,
                            KL_C_ABI_VERSION, entry->signature.param_count);
  }
  return AGPU_SUCCESS;
}

void agpu_cpu_program_unref(agpu_cpu_program *program) {
  if (!program || atomic_fetch_sub(&program->references, 1) != 1) return;
  agpu_cpu_unload(&program->object);
  for (uint32_t i = 0; i < program->kernel_count; i++) free(program->kernels[i].signature.params);
  free(program->kernels);
  free(program);
}

void agpu_cpu_program_release(agpu_program *program) {
  agpu_cpu_program_unref(program->native);
  program->native = NULL;
}

agpu_status agpu_cpu_kernel_create(agpu_kernel *kernel, const char *name) {
  agpu_cpu_program *program = kernel->program->native;
  if (!program)
    return agpu_error_set(AGPU_ERROR_INVALID_HANDLE, "agpu_kernel_create: the program has no code");
  for (uint32_t i = 0; i < program->kernel_count; i++) {
    agpu_cpu_kernel_entry *entry = &program->kernels[i];
    if (strcmp(entry->signature.name, name) != 0) continue;
    agpu_status status = agpu_kernel_fill_from_signature(kernel, &entry->signature);
    if (status != AGPU_SUCCESS) return status;
    kernel->native = entry;
    atomic_fetch_add(&program->references, 1);
    return AGPU_SUCCESS;
  }
  char names[512] = "";
  size_t used = 0;
  for (uint32_t i = 0; i < program->kernel_count && used < sizeof names; i++)
    used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                             program->kernels[i].signature.name);
  return agpu_error_set(AGPU_ERROR_NOT_FOUND,
                        "agpu_kernel_create: the program has no kernel '%s' (it has: %s)", name,
                        program->kernel_count ? names : "none");
}

char *agpu_cpu_program_kernel_names(const agpu_program *program) {
  const agpu_cpu_program *cpu = program->native;
  if (!cpu) return NULL;
  return agpu_join_kernel_names(cpu->kernel_count ? cpu->kernels[0].signature.name : NULL,
                                cpu->kernel_count, sizeof *cpu->kernels);
}

void agpu_cpu_kernel_release(agpu_kernel *kernel) {
  if (!kernel->native) return;
  agpu_cpu_program_unref(kernel->program->native);
  kernel->native = NULL;
}

/* ------------------------------------------------------------ scratch */

/* One scratch block per thread, grown as launches need, freed at thread exit. */
typedef struct agpu_cpu_scratch {
  char *memory;
  size_t size;
} agpu_cpu_scratch;

static pthread_key_t agpu_cpu_scratch_key;
static pthread_once_t agpu_cpu_scratch_once = PTHREAD_ONCE_INIT;
static __thread agpu_cpu_scratch agpu_cpu_thread_scratch;

static void agpu_cpu_scratch_free(void *value) {
  agpu_cpu_scratch *scratch = value;
  free(scratch->memory);
  scratch->memory = NULL;
  scratch->size = 0;
}

static void agpu_cpu_scratch_init(void) {
  pthread_key_create(&agpu_cpu_scratch_key, agpu_cpu_scratch_free);
}

static char *agpu_cpu_scratch_get(size_t size) {
  agpu_cpu_scratch *scratch = &agpu_cpu_thread_scratch;
  if (scratch->size >= size && scratch->memory) return scratch->memory;
  pthread_once(&agpu_cpu_scratch_once, agpu_cpu_scratch_init);
  free(scratch->memory);
  size_t rounded = agpu_cpu_align(size < 4096 ? 4096 : size);
  scratch->memory = aligned_alloc(AGPU_CPU_SCRATCH_ALIGNMENT, rounded);
  scratch->size = scratch->memory ? rounded : 0;
  pthread_setspecific(agpu_cpu_scratch_key, scratch);
  return scratch->memory;
}

/* ------------------------------------------------------------- launch */

/* A queued launch: the arguments as the kernel reads them (values copied,
 * buffers held), the program kept loaded until the launch has run. */
typedef struct agpu_cpu_launch_job {
  agpu_cpu_command command; /* first: the queue runs it */
  kl_c_launch launch;
  const kl_c_kernel *abi;
  agpu_cpu_program *program; /* a reference */
  char name[128];
  size_t groups, scratch_bytes;
  _Atomic int out_of_memory;
  void **pointers;           /* launch.args */
  unsigned char *values;     /* the value arguments' bytes */
  agpu_cpu_buffer **buffers; /* command.uses */
  char (*buffer_names)[64];  /* the parameter each use is bound to */
} agpu_cpu_launch_job;

static void agpu_cpu_run_groups(void *context, size_t begin, size_t end) {
  agpu_cpu_launch_job *job = context;
  char *scratch = agpu_cpu_scratch_get(job->scratch_bytes);
  if (!scratch) {
    atomic_store(&job->out_of_memory, 1);
    return;
  }
  job->abi->run(&job->launch, begin, end - begin, scratch);
}

/* A store just outside a buffer changed its canaries (cpu_memory.c): the
 * first such buffer is the launch's error. */
static agpu_status agpu_cpu_launch_check_buffers(agpu_cpu_launch_job *job) {
  agpu_status status = AGPU_SUCCESS;
  for (uint32_t i = 0; i < job->command.use_count; i++) {
    agpu_cpu_buffer *b = job->buffers[i];
    ptrdiff_t first, last, size = (ptrdiff_t)b->size;
    if (agpu_cpu_memory_check(b, &first, &last) || status != AGPU_SUCCESS) continue;
    bool after = first >= size;
    status = agpu_error_set(
        AGPU_ERROR_KERNEL_FAULT,
        "cpu: kernel '%s' wrote %s buffer '%s' (%zu bytes): bytes %td to %td %s changed (the "
        "canaries around every cpu:0 buffer caught it; docs/reliability.md)",
        job->name, after ? "past the end of" : "before the start of", job->buffer_names[i], b->size,
        after ? first - size : -last, after ? last - size : -first,
        after ? "after its end" : "before its start");
  }
  return status;
}

static agpu_status agpu_cpu_launch_run(agpu_cpu_command *command) {
  agpu_cpu_launch_job *job = (agpu_cpu_launch_job *)command;
  size_t threads = agpu_cpu_pool_threads();
  size_t chunk = job->groups / (threads * 32);
  if (chunk < 1) chunk = 1;
  agpu_cpu_pool_run(job->groups, chunk, agpu_cpu_run_groups, job);
  if (atomic_load(&job->out_of_memory))
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY,
                          "cpu: kernel '%s': no memory for %zu bytes of work-group scratch; the "
                          "launch did not complete",
                          job->name, job->scratch_bytes);
  return agpu_cpu_launch_check_buffers(job);
}

static void agpu_cpu_launch_destroy(agpu_cpu_command *command) {
  agpu_cpu_launch_job *job = (agpu_cpu_launch_job *)command;
  agpu_cpu_program_unref(job->program);
  free(job);
}

agpu_status agpu_cpu_launch(agpu_queue *queue, agpu_kernel *kernel, uint32_t dims,
                            const size_t global[3], const size_t local[3], uint32_t nargs,
                            const agpu_arg args[]) {
  const agpu_cpu_kernel_entry *entry = kernel->native;
  size_t groups = 1, items = 1;
  size_t num_groups[3];
  for (int d = 0; d < 3; d++) {
    num_groups[d] = global[d] / local[d] + (global[d] % local[d] != 0); /* the last partial */
    groups *= num_groups[d];
    items *= local[d];
  }
  if (groups == 0) return AGPU_SUCCESS;
  /* one allocation: the job, the argument pointers, the held buffers, the values */
  size_t values = 0;
  for (uint32_t i = 0; i < nargs; i++)
    if (args[i].kind == AGPU_ARG_VALUE) values += agpu_cpu_align(args[i].size);
  size_t pointers_at = agpu_cpu_align(sizeof(agpu_cpu_launch_job));
  size_t buffers_at = pointers_at + agpu_cpu_align(nargs * sizeof(void *));
  size_t names_at = buffers_at + agpu_cpu_align(nargs * sizeof(agpu_cpu_buffer *));
  size_t values_at = names_at + agpu_cpu_align(nargs * 64);
  char *block = calloc(1, values_at + values);
  if (!block) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  agpu_cpu_launch_job *job = (agpu_cpu_launch_job *)block;
  job->pointers = (void **)(block + pointers_at);
  job->buffers = (agpu_cpu_buffer **)(block + buffers_at);
  job->buffer_names = (char(*)[64])(block + names_at);
  job->values = (unsigned char *)(block + values_at);
  job->command.run = agpu_cpu_launch_run;
  job->command.destroy = agpu_cpu_launch_destroy;
  job->command.uses = job->buffers;
  job->abi = entry->abi;
  job->program = kernel->program->native;
  atomic_fetch_add(&job->program->references, 1);
  snprintf(job->name, sizeof job->name, "%s", kernel->info.name);
  job->groups = groups;
  job->launch.work_dim = dims;
  for (int d = 0; d < 3; d++) {
    job->launch.global_size[d] = global[d];
    job->launch.local_size[d] = local[d];
    job->launch.num_groups[d] = num_groups[d];
  }
  size_t offset = agpu_cpu_align(entry->abi->static_local_bytes), value_offset = 0;
  for (uint32_t i = 0; i < nargs; i++) {
    switch (args[i].kind) {
      case AGPU_ARG_BUFFER: {
        agpu_cpu_buffer *buffer = args[i].buffer->native;
        job->pointers[i] = buffer->data;
        if (i < kernel->info.param_count)
          snprintf(job->buffer_names[job->command.use_count], 64, "%s",
                   kernel->info.params[i].name);
        job->buffers[job->command.use_count++] = buffer;
        break;
      }
      case AGPU_ARG_VALUE:
        memcpy(job->values + value_offset, args[i].value.bytes, args[i].size);
        job->pointers[i] = job->values + value_offset;
        value_offset += agpu_cpu_align(args[i].size);
        break;
      case AGPU_ARG_LOCAL:
        job->pointers[i] = (void *)(uintptr_t)offset;
        offset += agpu_cpu_align(args[i].size);
        break;
    }
  }
  job->launch.args = job->pointers;
  job->launch.private_offset = offset;
  job->scratch_bytes = offset + (entry->abi->private_bytes ? entry->abi->private_bytes(items) : 0);
  if (job->scratch_bytes == 0) job->scratch_bytes = 1;
  atomic_init(&job->out_of_memory, 0);
  return agpu_cpu_queue_submit(queue, &job->command);
}
