// SPDX-License-Identifier: Apache-2.0
/* NVRTC: found with dlopen on the first build (once per process), and the
 * compile of translated CUDA C++ to a cubin or PTX for one device. */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_stack.h"
#include "cuda_internal.h"
#include "cuda_abi.h"

const char agpu_cuda_nvrtc_options_text[] = "-std=c++17 --diag-suppress=177,550";

static pthread_once_t agpu_nvrtc_once = PTHREAD_ONCE_INIT;
static agpu_cuda_nvrtc agpu_nvrtc; /* written once, under agpu_nvrtc_once */
static bool agpu_nvrtc_loaded;     /* likewise */
static char agpu_nvrtc_why[2048];  /* likewise: every place tried, when none loads */

static void agpu_nvrtc_note(const char *format, const char *a, const char *b) {
  size_t used = strlen(agpu_nvrtc_why);
  if (used < sizeof agpu_nvrtc_why)
    snprintf(agpu_nvrtc_why + used, sizeof agpu_nvrtc_why - used, format, a, b);
}

static bool agpu_nvrtc_try(const char *name) {
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *error = dlerror();
    agpu_nvrtc_note("%s%s", agpu_nvrtc_why[0] ? "; " : "", error ? error : name);
    return false;
  }
  agpu_cuda_nvrtc *n = &agpu_nvrtc;
  bool complete = true;
#define AGPU_NVRTC_LOOKUP(field, optional, parameters)       \
  n->field = (agpu_nvrtc_pfn_##field)dlsym(library, #field); \
  if (!n->field && !(optional)) complete = false;
  AGPU_NVRTC_SYMBOLS(AGPU_NVRTC_LOOKUP)
#undef AGPU_NVRTC_LOOKUP
  n->nvrtcGetErrorString =
      (agpu_nvrtc_pfn_nvrtcGetErrorString)dlsym(library, "nvrtcGetErrorString");
  if (!complete) {
    agpu_nvrtc_note("%s%s lacks the nvrtc* entry points", agpu_nvrtc_why[0] ? "; " : "", name);
    dlclose(library);
    memset(n, 0, sizeof *n);
    return false;
  }
  n->library = library;
  struct link_map *map = NULL;
  snprintf(n->path, sizeof n->path, "%s", name);
  if (dlinfo(library, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0])
    snprintf(n->path, sizeof n->path, "%s", map->l_name);
  if (n->nvrtcVersion(&n->major, &n->minor) != AGPU_NVRTC_SUCCESS) n->major = n->minor = 0;
  int count = 0;
  if (n->nvrtcGetNumSupportedArchs && n->nvrtcGetSupportedArchs &&
      n->nvrtcGetNumSupportedArchs(&count) == AGPU_NVRTC_SUCCESS && count > 0 &&
      count <= AGPU_NVRTC_MAX_ARCHES && n->nvrtcGetSupportedArchs(n->arches) == AGPU_NVRTC_SUCCESS)
    n->arch_count = count;
  return true;
}

/* The CUDA major version of the driver this process has loaded (12 for
 * 12.4), 0 when libcuda is not loaded. */
static int agpu_nvrtc_driver_major(void) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!library) library = dlopen("libcuda.so", RTLD_NOW | RTLD_NOLOAD);
  if (!library) return 0;
  int version = 0;
  agpu_cu_pfn_cuDriverGetVersion get =
      (agpu_cu_pfn_cuDriverGetVersion)dlsym(library, "cuDriverGetVersion");
  if (!get || get(&version) != AGPU_CUDA_SUCCESS) version = 0;
  dlclose(library); /* only drops the reference NOLOAD took */
  return version / 1000;
}

/* Sonames first (the dynamic linker's search, LD_LIBRARY_PATH included),
 * then the toolkit's usual places. The NVRTC of the driver's own major
 * version goes first and newer ones last: an older driver cannot load what
 * a newer NVRTC makes. */
static void agpu_nvrtc_load_once(void) {
  static const int majors[] = {13, 12, 11};
  int driver = agpu_nvrtc_driver_major();
  int order[3], count = 0;
  for (int pass = 0; pass < 3; pass++)
    for (size_t i = 0; i < sizeof majors / sizeof majors[0]; i++) {
      bool own = majors[i] == driver, older = driver == 0 || majors[i] < driver;
      if ((pass == 0 && own) || (pass == 1 && !own && older) || (pass == 2 && !own && !older))
        order[count++] = majors[i];
    }
  char names[8][32];
  int name_count = 0;
  for (int i = 0; i < count; i++) {
    snprintf(names[name_count++], sizeof names[0], "libnvrtc.so.%d", order[i]);
    if (order[i] == 11) snprintf(names[name_count++], sizeof names[0], "libnvrtc.so.11.2");
  }
  snprintf(names[name_count++], sizeof names[0], "libnvrtc.so");
  for (int i = 0; i < name_count; i++)
    if (agpu_nvrtc_try(names[i])) {
      agpu_nvrtc_loaded = true;
      return;
    }
  const char *roots[] = {getenv("CUDA_PATH"), getenv("CUDA_HOME"), "/usr/local/cuda"};
  for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++) {
    if (!roots[r] || !roots[r][0]) continue;
    for (int i = 0; i < name_count; i++) {
      if (strcmp(names[i], "libnvrtc.so.11.2") == 0) continue;
      char path[1024];
      snprintf(path, sizeof path, "%s/lib64/%s", roots[r], names[i]);
      if (agpu_nvrtc_try(path)) {
        agpu_nvrtc_loaded = true;
        return;
      }
    }
  }
}

const agpu_cuda_nvrtc *agpu_cuda_nvrtc_get(const char **why) {
  pthread_once(&agpu_nvrtc_once, agpu_nvrtc_load_once);
  if (why) *why = agpu_nvrtc_why;
  return agpu_nvrtc_loaded ? &agpu_nvrtc : NULL;
}

bool agpu_cuda_choose_target(const agpu_cuda_nvrtc *nvrtc, int cc, bool force_ptx, char *target,
                             size_t target_size, bool *cubin) {
  if (nvrtc->arch_count == 0) { /* NVRTC before 11.2: PTX, at most compute_80 */
    *cubin = false;
    snprintf(target, target_size, "compute_%d", cc < 80 ? cc : 80);
    return true;
  }
  int best = 0;
  for (int i = 0; i < nvrtc->arch_count; i++) {
    if (nvrtc->arches[i] == cc && !force_ptx && nvrtc->nvrtcGetCUBIN) {
      *cubin = true;
      snprintf(target, target_size, "sm_%d", cc);
      return true;
    }
    if (nvrtc->arches[i] <= cc && nvrtc->arches[i] > best) best = nvrtc->arches[i];
  }
  *cubin = false;
  if (best == 0) {
    snprintf(target, target_size, "sm_%d (NVRTC %d.%d knows sm_%d to sm_%d)", cc, nvrtc->major,
             nvrtc->minor, nvrtc->arches[0], nvrtc->arches[nvrtc->arch_count - 1]);
    return false;
  }
  snprintf(target, target_size, "compute_%d", best);
  return true;
}

static char *agpu_nvrtc_log(const agpu_cuda_nvrtc *nvrtc, agpu_nvrtc_program program) {
  size_t size = 0;
  if (nvrtc->nvrtcGetProgramLogSize(program, &size) != AGPU_NVRTC_SUCCESS || size <= 1) return NULL;
  char *log = calloc(1, size + 1);
  if (log && nvrtc->nvrtcGetProgramLog(program, log) != AGPU_NVRTC_SUCCESS) {
    free(log);
    return NULL;
  }
  /* Without trailing blank lines. */
  size_t length = log ? strlen(log) : 0;
  while (length > 0 && (log[length - 1] == '\n' || log[length - 1] == ' ')) log[--length] = '\0';
  if (log && !log[0]) {
    free(log);
    return NULL;
  }
  return log;
}

static const char *agpu_nvrtc_error(const agpu_cuda_nvrtc *nvrtc, agpu_nvrtc_result result) {
  const char *text = nvrtc->nvrtcGetErrorString ? nvrtc->nvrtcGetErrorString(result) : NULL;
  return text ? text : "NVRTC error";
}

typedef struct agpu_nvrtc_call {
  const agpu_cuda_nvrtc *nvrtc;
  agpu_nvrtc_program program;
  const char *const *options;
  agpu_nvrtc_result result;
} agpu_nvrtc_call;

/* an NVRTC too old for --diag-suppress is asked again without it */
static void agpu_nvrtc_compile_on_stack(void *data) {
  agpu_nvrtc_call *call = data;
  call->result = call->nvrtc->nvrtcCompileProgram(call->program, 4, call->options);
  if (call->result == AGPU_NVRTC_ERROR_INVALID_OPTION)
    call->result = call->nvrtc->nvrtcCompileProgram(call->program, 3, call->options);
}

/* Runs nvrtcCompileProgram on a stack of its own size (NVRTC's front end
 * recurses once per level of an expression; agpu_stack.h). */
static agpu_nvrtc_result agpu_nvrtc_run(const agpu_cuda_nvrtc *nvrtc, agpu_nvrtc_program program,
                                        const char *target, bool no_fmad) {
  char architecture[64];
  snprintf(architecture, sizeof architecture, "--gpu-architecture=%s", target);
  /* --fmad=false: #pragma OPENCL FP_CONTRACT OFF (NVRTC has no pragma for it). */
  const char *options[] = {architecture, "-std=c++17", no_fmad ? "--fmad=false" : "-std=c++17",
                           "--diag-suppress=177,550"};
  agpu_nvrtc_call call = {nvrtc, program, options, AGPU_NVRTC_SUCCESS};
  agpu_run_on_stack(AGPU_COMPILER_STACK_BYTES, agpu_nvrtc_compile_on_stack, &call);
  return call.result;
}

/* The cubin or PTX of a compiled program into out. */
static agpu_status agpu_nvrtc_take_output(const agpu_cuda_nvrtc *nvrtc, agpu_nvrtc_program program,
                                          agpu_cuda_binary *out) {
  size_t size = 0;
  agpu_nvrtc_result result = out->cubin ? nvrtc->nvrtcGetCUBINSize(program, &size)
                                        : nvrtc->nvrtcGetPTXSize(program, &size);
  if (result != AGPU_NVRTC_SUCCESS || size == 0)
    return agpu_error_set(AGPU_ERROR_BACKEND, "cuda: %s failed: %s (%d)",
                          out->cubin ? "nvrtcGetCUBINSize" : "nvrtcGetPTXSize",
                          agpu_nvrtc_error(nvrtc, result), (int)result);
  out->data = malloc(size + 1);
  if (!out->data) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cuda: out of host memory");
  result = out->cubin ? nvrtc->nvrtcGetCUBIN(program, out->data)
                      : nvrtc->nvrtcGetPTX(program, out->data);
  if (result != AGPU_NVRTC_SUCCESS)
    return agpu_error_set(AGPU_ERROR_BACKEND, "cuda: %s failed: %s (%d)",
                          out->cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX",
                          agpu_nvrtc_error(nvrtc, result), (int)result);
  out->data[size] = '\0';
  out->size = size;
  return AGPU_SUCCESS;
}

agpu_status agpu_cuda_compile(const char *source, const char *name, int cc, bool force_ptx,
                              agpu_cuda_binary *out) {
  memset(out, 0, sizeof *out);
  const char *why = NULL;
  const agpu_cuda_nvrtc *nvrtc = agpu_cuda_nvrtc_get(&why);
  if (!nvrtc)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "cuda: NVRTC was not found, so portable kernels cannot be built (native "
                          "PTX and cubin programs still load); install the CUDA toolkit's NVRTC "
                          "or set CUDA_PATH. Tried: %s",
                          why);
  if (!agpu_cuda_choose_target(nvrtc, cc, force_ptx, out->target, sizeof out->target, &out->cubin))
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED, "cuda: NVRTC (%s) cannot compile for %s",
                          nvrtc->path, out->target);
  agpu_nvrtc_program program = NULL;
  agpu_nvrtc_result result =
      nvrtc->nvrtcCreateProgram(&program, source, name ? name : "<source>", 0, NULL, NULL);
  if (result != AGPU_NVRTC_SUCCESS)
    return agpu_error_set(result == AGPU_NVRTC_ERROR_OUT_OF_MEMORY ? AGPU_ERROR_OUT_OF_HOST_MEMORY
                                                                   : AGPU_ERROR_BACKEND,
                          "cuda: nvrtcCreateProgram failed: %s (%d)",
                          agpu_nvrtc_error(nvrtc, result), (int)result);
  result = agpu_nvrtc_run(nvrtc, program, out->target,
                          strstr(source, KL_CUDA_FP_CONTRACT_OFF_MARK) != NULL);
  out->log = agpu_nvrtc_log(nvrtc, program);
  agpu_status status = AGPU_SUCCESS;
  if (result != AGPU_NVRTC_SUCCESS) {
    status = agpu_error_set(AGPU_ERROR_BUILD_FAILED,
                            "cuda: NVRTC %d.%d could not compile %s for %s: %s (%d)%s%s",
                            nvrtc->major, nvrtc->minor, name ? name : "<source>", out->target,
                            agpu_nvrtc_error(nvrtc, result), (int)result,
                            out->log ? ":\n" : " (no log)", out->log ? out->log : "");
  } else {
    status = agpu_nvrtc_take_output(nvrtc, program, out);
  }
  nvrtc->nvrtcDestroyProgram(&program);
  if (status != AGPU_SUCCESS) {
    free(out->data);
    out->data = NULL;
    out->size = 0;
  }
  return status;
}

void agpu_cuda_binary_free(agpu_cuda_binary *binary) {
  free(binary->data);
  free(binary->log);
  memset(binary, 0, sizeof *binary);
}
