// SPDX-License-Identifier: Apache-2.0
/* The backends: one line each, the one place the core and the tools learn
 * what a backend is (issue 17). Adding a backend is its folder under
 * backends/ (filling one agpu_backend_ops), a line here, a value at the end
 * of agpu_backend_kind in anygpu.h and its CMake fragment; docs/new-backend.md
 * has the checklist.
 *
 *   X(kind, name, ops, target, gpu_rank, cpu_rank, colour, formats, environment, flags)
 *
 * kind         its agpu_backend_kind
 * name         the selector prefix and the name in messages
 * ops          its ops table (backends/<name>/<name>_backend.c)
 * target       what the translator emits for it (agpu_target)
 * gpu_rank     among the backends exposing one physical GPU, which speaks
 *              for it and which the default selection prefers (lower first)
 * cpu_rank     the same among the backends exposing the CPU
 * colour       its colour in bench charts
 * formats      the native formats agpu_program_create_native loads (bits of
 *              1 << agpu_native_format)
 * environment  the variables it honours, space-separated (the doctor shows
 *              them)
 * flags        AGPU_BACKEND_SURVIVES_FORK: usable in a child after fork();
 *              AGPU_BACKEND_TESTING: no real device (the null backend): never
 *              the default device, hidden by the tools when it has none */
#ifndef AGPU_BACKEND_LIST_H
#define AGPU_BACKEND_LIST_H

#define AGPU_FORMAT_BIT(format) (1u << AGPU_NATIVE_##format)

#define AGPU_BACKEND_LIST(X)                                                                     \
  X(AGPU_BACKEND_CUDA, "cuda", agpu_cuda_backend_ops, AGPU_TARGET_CUDA, 0, 3, "#2ca02c",         \
    AGPU_FORMAT_BIT(PTX) | AGPU_FORMAT_BIT(CUBIN),                                               \
    "CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER LD_LIBRARY_PATH", 0)                                 \
  X(AGPU_BACKEND_HIP, "hip", agpu_hip_backend_ops, AGPU_TARGET_HIP, 0, 3, "#d62728",             \
    AGPU_FORMAT_BIT(HIP_CODE_OBJECT),                                                            \
    "HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HSA_OVERRIDE_GFX_VERSION LD_LIBRARY_PATH", 0)      \
  X(AGPU_BACKEND_VULKAN, "vulkan", agpu_vulkan_backend_ops, AGPU_TARGET_SPIRV, 2, 2, "#9467bd",  \
    AGPU_FORMAT_BIT(SPIRV),                                                                      \
    "VK_DRIVER_FILES VK_ICD_FILENAMES VK_ADD_DRIVER_FILES VK_LOADER_DRIVERS_SELECT "             \
    "VK_LOADER_DRIVERS_DISABLE MESA_VK_DEVICE_SELECT",                                           \
    0)                                                                                           \
  X(AGPU_BACKEND_OPENCL, "opencl", agpu_opencl_backend_ops, AGPU_TARGET_OPENCL, 1, 1, "#ff7f0e", \
    AGPU_FORMAT_BIT(OPENCL_C) | AGPU_FORMAT_BIT(SPIRV),                                          \
    "OCL_ICD_VENDORS OCL_ICD_FILENAMES OPENCL_VENDOR_PATH POCL_DEVICES", 0)                      \
  X(AGPU_BACKEND_CPU, "cpu", agpu_cpu_backend_ops, AGPU_TARGET_C, 3, 0, "#1f77b4", 0,            \
    "CC ANYGPU_CPU_THREADS ANYGPU_CPU_MARCH", AGPU_BACKEND_SURVIVES_FORK)                        \
  X(AGPU_BACKEND_NULL, "null", agpu_null_backend_ops, AGPU_TARGET_OPENCL, 9, 9, "#7f7f7f", 0,    \
    "ANYGPU_NULL_DEVICES", AGPU_BACKEND_SURVIVES_FORK | AGPU_BACKEND_TESTING)

#endif /* AGPU_BACKEND_LIST_H */
