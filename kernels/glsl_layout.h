// SPDX-License-Identifier: Apache-2.0
/* How a kernel translated to GLSL 4.50 (kl_emit_glsl, kernels/emit_glsl.c)
 * takes its arguments, for the Vulkan backend.
 *
 * One shader per kernel. Descriptor set 0 holds one storage buffer per
 * __global or __constant pointer parameter, at bindings 0, 1, ... in
 * parameter order (std430, the element type as declared; a buffer argument
 * is bound whole, from its start). Scalars, vectors and structs passed by
 * value live in one parameter block with explicit offsets (OpenCL C's size
 * and alignment; size_t and ptrdiff_t take 8 bytes, read whole, see
 * below; an 8- or 16-vector is a struct of
 * 4-vectors whose std430 size is OpenCL's and whose alignment, 4 elements,
 * divides OpenCL's, so buffers of them and their offsets in the block are
 * OpenCL's too). The block starts with a 32-byte header
 * the runtime fills for every dispatch:
 *   offset  0: uint32 group_offset[3]  added to gl_WorkGroupID: the first
 *              group of this vkCmdDispatch when a launch is split over
 *              several (group counts over maxComputeWorkGroupCount), else 0
 *   offset 12: uint32 work_dim         get_work_dim()
 *   offset 16: uint32 num_groups[3]    groups of the whole launch
 *   offset 28: uint32 last_short       work-items the last group in
 *              dimension 0 lacks (0 when every group is whole). A launch
 *              with a smaller last group (OpenCL 2.0's non-uniform
 *              work-groups) runs it as a dispatch of its own with a
 *              pipeline specialised for its size (so gl_WorkGroupSize.x is
 *              its real size) and for the size asked for (spec id
 *              KL_GLSL_ENQUEUED_SPEC_ID), and group_offset.x its group id;
 *              get_global_size(0) subtracts last_short. Declared by the
 *              shader only when used.
 * The block is a push-constant block when it fits KL_GLSL_PUSH_LIMIT bytes,
 * else a readonly storage buffer at binding `block_binding` (the runtime
 * writes the same bytes there).
 *
 * Specialisation constants: ids 0, 1, 2 are the work-group size
 * (local_size_x_id ...; the default is the kernel's required size or 1);
 * each __local pointer parameter has its own id (3, 4, ...) whose value is
 * its element count (the launch's byte count / element_size). Id
 * KL_GLSL_ENQUEUED_SPEC_ID is the enqueued work-group size in dimension 0
 * (get_enqueued_local_size(0), and through it get_global_id(0) and
 * get_global_size(0)): the work-group size, but in the dispatch of a
 * smaller last group (above), where it is the size the launch asked for.
 *
 * Semantics of the GLSL target: size_t and ptrdiff_t are 64 bits, uint64_t
 * and int64_t (get_global_id etc. return uint64_t, computed from the 32-bit
 * group id and size; converted straight to 32 bits they are computed in 32
 * bits), so they need shaderInt64 (KL_GLSL_NEEDS_SIZE64); 8- and 16-bit
 * integer types need
 * shaderInt8/Int16 and the 8/16-bit storage features, 64-bit ones
 * shaderInt64, double shaderFloat64, half shaderFloat16 and 16-bit storage:
 * `capabilities` says which.
 */
#ifndef AGPU_GLSL_LAYOUT_H
#define AGPU_GLSL_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#define KL_GLSL_PUSH_LIMIT 128u
#define KL_GLSL_HEADER_SIZE 32u
#define KL_GLSL_GROUP_OFFSET_OFFSET 0u
#define KL_GLSL_WORK_DIM_OFFSET 12u
#define KL_GLSL_NUM_GROUPS_OFFSET 16u
#define KL_GLSL_LAST_SHORT_OFFSET 28u
#define KL_GLSL_FIRST_LOCAL_SPEC_ID 3u
/* below glslang's limit on constant_id (2047), far above the __local ids */
#define KL_GLSL_ENQUEUED_SPEC_ID 2040u
/* Program-scope __constant data is written into the shader as constant
 * arrays; more than OpenCL's minimum CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE is
 * refused. A private array of more elements than KL_GLSL_INLINE_ELEMENTS
 * with an initialiser is zero-filled by a loop, then given its non-zero
 * elements; an array constructor over KL_GLSL_MAX_INIT_ELEMENTS elements
 * (in an initialiser of any other kind) is refused. */
#define KL_GLSL_MAX_CONSTANT_BYTES 65536u
#define KL_GLSL_INLINE_ELEMENTS 64
#define KL_GLSL_MAX_INIT_ELEMENTS 65536

typedef enum kl_glsl_param_kind {
  KL_GLSL_PARAM_BUFFER, /* __global / __constant pointer: a storage buffer */
  KL_GLSL_PARAM_VALUE,  /* by value: bytes in the parameter block */
  KL_GLSL_PARAM_LOCAL,  /* __local pointer: a shared array sized by a spec constant */
} kl_glsl_param_kind;

typedef struct kl_glsl_param {
  const char *name;
  kl_glsl_param_kind kind;
  uint32_t binding;      /* BUFFER */
  bool readonly;         /* BUFFER: the kernel never writes it */
  bool writeonly;        /* BUFFER: the kernel never reads it */
  uint32_t offset, size; /* VALUE: where the OpenCL value's bytes go in the block */
  uint32_t spec_id;      /* LOCAL */
  uint32_t element_size; /* LOCAL and BUFFER: bytes per element */
  /* BUFFER in a by-address variant (kl_emit_glsl_variant): the shader
   * reaches it through a buffer reference (GL_EXT_buffer_reference), the
   * buffer's VkDeviceAddress at address_offset in the block; its binding
   * stays in the layout, unused by the shader. */
  bool by_address;
  uint32_t address_offset;
} kl_glsl_param;

enum {
  KL_GLSL_NEEDS_INT8 = 1u << 0,  /* shaderInt8, storageBuffer8BitAccess (and push constants) */
  KL_GLSL_NEEDS_INT16 = 1u << 1, /* shaderInt16, storageBuffer16BitAccess */
  KL_GLSL_NEEDS_INT64 = 1u << 2, /* shaderInt64 */
  KL_GLSL_NEEDS_FP64 = 1u << 3,  /* shaderFloat64 */
  KL_GLSL_NEEDS_INT64_ATOMICS = 1u << 4, /* shaderBufferInt64Atomics / SharedInt64Atomics */
  KL_GLSL_NEEDS_FP16 = 1u << 5,          /* shaderFloat16, storageBuffer16BitAccess (half) */
  /* The shader uses floating point and declares SignedZeroInfNanPreserve
   * (SPV_KHR_float_controls) for the widths it uses, so that the driver
   * keeps IEEE infinities, NaNs and signed zeros as OpenCL C requires:
   * Vulkan 1.2 or VK_KHR_shader_float_controls, and
   * shaderSignedZeroInfNanPreserveFloat32 (Float64 with FP64, Float16 with
   * FP16) in VkPhysicalDeviceFloatControlsProperties. */
  KL_GLSL_NEEDS_FLOAT_CONTROLS = 1u << 6,
  /* The kernel uses size_t or ptrdiff_t (get_global_id and the other
   * work-item functions return size_t): 64-bit, so shaderInt64, as with
   * KL_GLSL_NEEDS_INT64, which is set with it; a separate bit so that a
   * device without shaderInt64 refuses it naming size_t. */
  KL_GLSL_NEEDS_SIZE64 = 1u << 7,
  /* The kernel stores pointers in structs: bufferDeviceAddress (Vulkan
   * 1.2), its buffers reached by address (emit_glsl_address.c). */
  KL_GLSL_NEEDS_BUFFER_ADDRESS = 1u << 8,
};

typedef struct kl_glsl_layout {
  const char *kernel;
  int param_count;
  const kl_glsl_param *params; /* one per kernel parameter, in order */
  uint32_t buffer_count;       /* bindings 0 .. buffer_count-1 */
  uint32_t block_size;         /* bytes of the parameter block, header included */
  bool block_in_buffer;        /* false: push constants; true: storage buffer at block_binding */
  uint32_t block_binding;
  uint32_t local_param_count; /* spec ids 3 .. 3+count-1 */
  unsigned capabilities;      /* KL_GLSL_NEEDS_* */
} kl_glsl_layout;

/* The emitter's entry points that return a layout are in translate.h. */

#endif /* AGPU_GLSL_LAYOUT_H */
