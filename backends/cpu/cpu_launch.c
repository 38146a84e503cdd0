/* Kernels and launches on the CPU backend. A program is a loaded shared
 * object whose kernels follow the ABI in kernels/emit_c_abi.h; a launch
 * hands the work-groups to the thread pool, each thread running whole
 * work-groups (all of a group's work-items, barriers included) in its own
 * scratch memory: the group's __local memory and the per-work-item copies of
 * values that live across barriers. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_internal.h"

#define AGPU_CPU_SCRATCH_ALIGNMENT 128 /* a double16 */

static size_t agpu_cpu_align(size_t value) {
  return (value + AGPU_CPU_SCRATCH_ALIGNMENT - 1) & ~(size_t)(AGPU_CPU_SCRATCH_ALIGNMENT - 1);
}

agpu_status agpu_cpu_program_bind(agpu_cpu_program *program) {
  for (uint32_t i = 0; i < program->kernel_count; i++) {
    agpu_cpu_kernel_entry *entry = &program->kernels[i];
    char symbol[256];
    snprintf(symbol, sizeof symbol, KL_C_KERNEL_SYMBOL_PREFIX "%s", entry->name);
    entry->abi = dlsym(program->object.handle, symbol);
    if (!entry->abi)
      return agpu_error_set(AGPU_ERROR_INTERNAL, "cpu: the compiled program lacks %s", symbol);
    if (entry->abi->abi_version != KL_C_ABI_VERSION ||
        entry->abi->param_count != entry->param_count)
      return agpu_error_set(AGPU_ERROR_INTERNAL,
                            "cpu: kernel '%s' has ABI %u with %u parameters; expected ABI %u "
                            "with %u",
                            entry->name, entry->abi->abi_version, entry->abi->param_count,
                            KL_C_ABI_VERSION, entry->param_count);
  }
  return AGPU_SUCCESS;
}

void agpu_cpu_program_unref(agpu_cpu_program *program) {
  if (!program || atomic_fetch_sub(&program->references, 1) != 1) return;
  agpu_cpu_unload(&program->object);
  for (uint32_t i = 0; i < program->kernel_count; i++) free(program->kernels[i].params);
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
    if (strcmp(entry->name, name) != 0) continue;
    kernel->params = calloc(entry->param_count ? entry->param_count : 1, sizeof *kernel->params);
    if (!kernel->params)
      return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
    if (entry->param_count)
      memcpy(kernel->params, entry->params, entry->param_count * sizeof *kernel->params);
    kernel->info.param_count = entry->param_count;
    kernel->info.has_required_work_group_size = entry->has_required_work_group_size;
    memcpy(kernel->info.required_work_group_size, entry->required_work_group_size,
           sizeof entry->required_work_group_size);
    kernel->info.max_work_group_size = kernel->program->device->info.max_work_group_size;
    kernel->native = entry;
    atomic_fetch_add(&program->references, 1);
    return AGPU_SUCCESS;
  }
  char names[512] = "";
  size_t used = 0;
  for (uint32_t i = 0; i < program->kernel_count && used < sizeof names; i++)
    used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                             program->kernels[i].name);
  return agpu_error_set(AGPU_ERROR_NOT_FOUND,
                        "agpu_kernel_create: the program has no kernel '%s' (it has: %s)", name,
                        program->kernel_count ? names : "none");
}

char *agpu_cpu_program_kernel_names(const agpu_program *program) {
  const agpu_cpu_program *cpu = program->native;
  if (!cpu) return NULL;
  return agpu_join_kernel_names(cpu->kernel_count ? cpu->kernels[0].name : NULL, cpu->kernel_count,
                                sizeof *cpu->kernels);
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

typedef struct agpu_cpu_launch_job {
  kl_c_launch launch;
  const kl_c_kernel *abi;
  size_t scratch_bytes;
  _Atomic int out_of_memory;
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

agpu_status agpu_cpu_launch(agpu_queue *queue, agpu_kernel *kernel, uint32_t dims,
                            const size_t global[3], const size_t local[3], uint32_t nargs,
                            const agpu_arg args[]) {
  const agpu_cpu_kernel_entry *entry = kernel->native;
  agpu_cpu_launch_job job;
  memset(&job, 0, sizeof job);
  job.abi = entry->abi;
  job.launch.work_dim = dims;
  size_t groups = 1, items = 1;
  for (int d = 0; d < 3; d++) {
    job.launch.global_size[d] = global[d];
    job.launch.local_size[d] = local[d];
    job.launch.num_groups[d] = global[d] / local[d];
    groups *= job.launch.num_groups[d];
    items *= local[d];
  }
  if (groups == 0) return AGPU_SUCCESS;
  void *small[32];
  void **pointers = nargs <= 32 ? small : malloc(nargs * sizeof *pointers);
  if (!pointers) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  size_t offset = agpu_cpu_align(entry->abi->static_local_bytes);
  for (uint32_t i = 0; i < nargs; i++) {
    switch (args[i].kind) {
      case AGPU_ARG_BUFFER:
        pointers[i] = args[i].buffer->native;
        break;
      case AGPU_ARG_VALUE:
        pointers[i] = (void *)args[i].value.bytes;
        break;
      case AGPU_ARG_LOCAL:
        pointers[i] = (void *)(uintptr_t)offset;
        offset += agpu_cpu_align(args[i].size);
        break;
    }
  }
  job.launch.args = pointers;
  job.launch.private_offset = offset;
  job.scratch_bytes = offset + (entry->abi->private_bytes ? entry->abi->private_bytes(items) : 0);
  if (job.scratch_bytes == 0) job.scratch_bytes = 1;
  atomic_init(&job.out_of_memory, 0);
  size_t threads = agpu_cpu_pool_threads();
  size_t chunk = groups / (threads * 32);
  if (chunk < 1) chunk = 1;
  agpu_cpu_pool_run(groups, chunk, agpu_cpu_run_groups, &job);
  if (pointers != small) free(pointers);
  if (atomic_load(&job.out_of_memory))
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY,
                          "cpu: kernel '%s': no memory for %zu bytes of work-group scratch; the "
                          "launch did not complete",
                          kernel->info.name, job.scratch_bytes);
  return AGPU_SUCCESS;
}
