// SPDX-License-Identifier: Apache-2.0
/* Opens the HIP runtime (libamdhip64) and hiprtc at run time and resolves
 * their symbol tables. Neither is ever closed: ROCm 5's libamdhip64 leaks at
 * dlclose, and LeakSanitizer then blames whatever library is mapped at the
 * same address next. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_dl.h"
#include "hip_internal.h"

/* ROCm 6's soname, ROCm 5's, the development link, then ROCm's own prefix. */
static const char *const agpu_hip_runtime_names[] = {
    "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so", "/opt/rocm/lib/libamdhip64.so"};

agpu_hip_api *agpu_hip_load(agpu_backend *backend) {
  void *library =
      agpu_dl_open_first(backend, agpu_hip_runtime_names,
                         sizeof agpu_hip_runtime_names / sizeof agpu_hip_runtime_names[0]);
  if (!library) {
    /* The reason starts with the first dlerror(), as every backend's does. */
    size_t used = strlen(backend->reason);
    snprintf(backend->reason + used, sizeof backend->reason - used,
             ": the AMD ROCm runtime (HIP) is not installed");
    return NULL;
  }
  agpu_hip_api *api = agpu_dl_api_new(backend, library, sizeof *api);
  if (!api) return NULL;
  api->library = library;
  snprintf(api->library_name, sizeof api->library_name, "%s", backend->library);
  const agpu_dl_symbol symbols[] = {
#define AGPU_HIP_SYMBOL(name, ret, params, optional_) {#name, (void **)&api->name, optional_},
      AGPU_HIP_SYMBOLS(AGPU_HIP_SYMBOL)
#undef AGPU_HIP_SYMBOL
  };
  if (!agpu_dl_load_symbols(backend, library, symbols, sizeof symbols / sizeof symbols[0])) {
    free(api);
    return NULL;
  }
  if (api->hipRuntimeGetVersion) api->hipRuntimeGetVersion(&api->runtime_version);
  return api;
}

/* ------------------------------------------------------------------ hiprtc */

static pthread_mutex_t agpu_hiprtc_lock = PTHREAD_MUTEX_INITIALIZER;
static agpu_hiprtc_api agpu_hiprtc; /* guarded by the lock until loaded */
static bool agpu_hiprtc_tried, agpu_hiprtc_loaded;
static char agpu_hiprtc_why[512];

/* Resolves every hiprtc symbol from `library`; false when one is missing. */
static bool agpu_hiprtc_resolve(void *library, const char *name, agpu_hiprtc_api *rtc) {
  memset(rtc, 0, sizeof *rtc);
#define AGPU_HIPRTC_RESOLVE(symbol, ret, params, optional)                            \
  *(void **)&rtc->symbol = dlsym(library, #symbol);                                   \
  if (!rtc->symbol && !(optional)) {                                                  \
    snprintf(agpu_hiprtc_why, sizeof agpu_hiprtc_why, "%s has no %s", name, #symbol); \
    return false;                                                                     \
  }
  AGPU_HIPRTC_SYMBOLS(AGPU_HIPRTC_RESOLVE)
#undef AGPU_HIPRTC_RESOLVE
  rtc->library = library;
  snprintf(rtc->library_name, sizeof rtc->library_name, "%s", name);
  int major = 0, minor = 0;
  if (rtc->hiprtcVersion && rtc->hiprtcVersion(&major, &minor) == AGPU_HIPRTC_SUCCESS)
    snprintf(rtc->version, sizeof rtc->version, "%d.%d", major, minor);
  return true;
}

static void agpu_hiprtc_load(const agpu_hip_api *runtime) {
  if (runtime && dlsym(runtime->library, "hiprtcCreateProgram") &&
      agpu_hiprtc_resolve(runtime->library, runtime->library_name, &agpu_hiprtc)) {
    agpu_hiprtc_loaded = true;
    return;
  }
  /* ROCm 6 (and 5.3+) ship libhiprtc; ROCm 5 has hiprtc in libamdhip64. */
  static const char *const names[] = {
      "libhiprtc.so.6",   "libhiprtc.so.5",   "libhiprtc.so",   "/opt/rocm/lib/libhiprtc.so",
      "libamdhip64.so.5", "libamdhip64.so.6", "libamdhip64.so", "/opt/rocm/lib/libamdhip64.so"};
  char first_error[256] = "";
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    void *library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      if (!first_error[0]) snprintf(first_error, sizeof first_error, "%s", dlerror());
      continue;
    }
    if (dlsym(library, "hiprtcCreateProgram") &&
        agpu_hiprtc_resolve(library, names[i], &agpu_hiprtc)) {
      agpu_hiprtc_loaded = true;
      return;
    }
    /* Left loaded: see the top of this file. */
  }
  snprintf(agpu_hiprtc_why, sizeof agpu_hiprtc_why,
           "hiprtc not found (tried libhiprtc.so.6, .so.5, libhiprtc.so and the hiprtc symbols "
           "of libamdhip64): %s",
           first_error[0] ? first_error : "no library has hiprtcCreateProgram");
}

const agpu_hiprtc_api *agpu_hiprtc_get(const agpu_hip_api *runtime, char *why, size_t why_size) {
  pthread_mutex_lock(&agpu_hiprtc_lock);
  if (!agpu_hiprtc_tried) {
    agpu_hiprtc_tried = true;
    agpu_hiprtc_load(runtime);
  }
  bool loaded = agpu_hiprtc_loaded;
  if (!loaded && why && why_size) snprintf(why, why_size, "%s", agpu_hiprtc_why);
  pthread_mutex_unlock(&agpu_hiprtc_lock);
  return loaded ? &agpu_hiprtc : NULL;
}
