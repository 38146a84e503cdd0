// SPDX-License-Identifier: Apache-2.0
/* Shared by the files of test_glsl_fp64_math (its header comment says what
 * it tests): test_glsl_fp64_tools.c (a work directory, commands, the tables
 * of builtins, GLSL shaders validated), test_glsl_fp64_c.c (the library
 * built as C), test_glsl_fp64_reference.c (long double references and the
 * argument domains) and test_glsl_fp64_vulkan.c (a Vulkan device running
 * the SPIR-V). */
#ifndef AGPU_TEST_GLSL_FP64_H
#define AGPU_TEST_GLSL_FP64_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dlfcn.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glsl_fp64_math.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
/* The Vulkan driver's own allocations (lavapipe keeps some past
 * vkDestroyInstance) are not the library's leaks. */
#define DRIVER_ALLOCATIONS_BEGIN() __lsan_disable()
#define DRIVER_ALLOCATIONS_END() __lsan_enable()
#else
#define DRIVER_ALLOCATIONS_BEGIN() ((void)0)
#define DRIVER_ALLOCATIONS_END() ((void)0)
#endif

#if defined(__has_include)
#if __has_include(<vulkan/vulkan.h>)
#define FP64_HAVE_VULKAN_H 1
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#endif
#endif

#ifndef AGPU_TEST_CC
#define AGPU_TEST_CC "cc"
#endif

/* ---- the builtins, their C signatures and limits ---- */

typedef enum { D_D, D_DD, D_DI, I_D, I_DD } kind_t;

typedef struct fn_info {
  const char *builtin;
  kind_t kind;
  double ulp_limit; /* OpenCL C 1.2, section 7.4, double */
} fn_info;

typedef double (*fn_d_d)(double);
typedef double (*fn_d_dd)(double, double);
typedef double (*fn_d_di)(double, int);
typedef int (*fn_i_d)(double);
typedef int (*fn_i_dd)(double, double);

/* ---- argument domains ---- */

typedef struct range_t {
  char mode; /* 'u' uniform, 'l' log-uniform magnitude, 's' the same with a
                random sign, 'i' uniform integers */
  double lo, hi;
} range_t;

typedef struct domain_t {
  const char *builtin;
  range_t x[3], y[3];
  int n_lo[3], n_hi[3];
} domain_t;

#define TINY 4.9406564584124654e-324
#define HUGE_D 1.7976931348623157e308

#ifdef FP64_HAVE_VULKAN_H
/* clang-format off */
#define VK_FUNCTIONS(X) \
  X(DestroyInstance) \
  X(EnumeratePhysicalDevices) \
  X(GetPhysicalDeviceFeatures) \
  X(GetPhysicalDeviceProperties) \
  X(GetPhysicalDeviceQueueFamilyProperties) \
  X(GetPhysicalDeviceMemoryProperties) \
  X(CreateDevice) \
  X(DestroyDevice) \
  X(GetDeviceQueue) \
  X(CreateBuffer) \
  X(DestroyBuffer) \
  X(GetBufferMemoryRequirements) \
  X(AllocateMemory) \
  X(FreeMemory) \
  X(BindBufferMemory) \
  X(MapMemory) \
  X(UnmapMemory) \
  X(CreateShaderModule) \
  X(DestroyShaderModule) \
  X(CreateDescriptorSetLayout) \
  X(DestroyDescriptorSetLayout) \
  X(CreatePipelineLayout) \
  X(DestroyPipelineLayout) \
  X(CreateComputePipelines) \
  X(DestroyPipeline) \
  X(CreateDescriptorPool) \
  X(DestroyDescriptorPool) \
  X(AllocateDescriptorSets) \
  X(UpdateDescriptorSets) \
  X(CreateCommandPool) \
  X(DestroyCommandPool) \
  X(AllocateCommandBuffers) \
  X(BeginCommandBuffer) \
  X(EndCommandBuffer) \
  X(CmdBindPipeline) \
  X(CmdBindDescriptorSets) \
  X(CmdDispatch) \
  X(CmdPipelineBarrier) \
  X(QueueSubmit) \
  X(QueueWaitIdle)
/* clang-format on */

typedef struct vk_api {
  PFN_vkGetInstanceProcAddr GetInstanceProcAddr;
  PFN_vkCreateInstance CreateInstance;
#define VK_MEMBER(name) PFN_vk##name name;
  VK_FUNCTIONS(VK_MEMBER)
#undef VK_MEMBER
} vk_api;

/* One compute device with shaderFloat64, its queue and two host-visible
 * storage buffers. */
typedef struct vk_run {
  void *loader;
  vk_api vk;
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  uint32_t family;
  char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
} vk_run;
#endif

/* test_glsl_fp64_tools.c */
extern char fp64_work_dir[512];
extern char fp64_glslang[600], fp64_spirv_val[600];
bool fp64_make_work_dir(void);
bool fp64_write_text(const char *path, const char *a, const char *b);
void fp64_print_log(const char *path);
int fp64_run_logged(const char *command, const char *log);
/* A compute shader that calls every function in `text` reachable from the
 * builtins named; whether a shader compiles and validates. */
char *fp64_shader_for(const char *text, const char *const *names, size_t count);
bool fp64_glsl_valid(const char *label, const char *shader);
/* The builtins measured, with their C signatures and limits; every builtin
 * the library has. */
extern const fn_info fp64_functions[];
extern const size_t fp64_function_count;
extern const char *fp64_all_builtins[];
extern const size_t fp64_builtin_count;
#define FUNCTION_COUNT fp64_function_count
#define BUILTIN_COUNT fp64_builtin_count

/* test_glsl_fp64_c.c: the library built as C (the degraded variant with
 * `degraded`), the build in use, a function of it, one call of it. */
extern void *fp64_library_so, *fp64_degraded_so, *fp64_active_so;
bool fp64_build_c_variant(bool degraded, char *why, size_t size);
bool fp64_build_c_library(char *why, size_t size);
void *fp64_symbol(const char *name);
double fp64_call(const fn_info *info, void *fn, double x, double y, int n);

/* test_glsl_fp64_reference.c: the exact value of a builtin, the error of a
 * result in ulp, the argument domains of each builtin. */
long double fp64_reference(const char *f, double x, double y, int n);
double fp64_ulp_error(double got, long double want, bool absolute_near_zero);
extern const domain_t fp64_domains[];
extern const size_t fp64_domain_count;

/* test_glsl_fp64_vulkan.c: a device with doubles opened and closed, a
 * shader run over records; the shader of every function; whether a case
 * involves a subnormal. */
#ifdef FP64_HAVE_VULKAN_H
bool fp64_vk_open(vk_run *r, char *why, size_t size);
void fp64_vk_close(vk_run *r);
bool fp64_vk_dispatch(vk_run *r, const uint32_t *spv, size_t spv_bytes, const double *in,
                      double *out, uint32_t count);
#endif
char *fp64_device_shader(void);
bool fp64_involves_subnormal(double x, double y, long double want);

#endif
