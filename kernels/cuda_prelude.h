// SPDX-License-Identifier: Apache-2.0
/* The prelude of the CUDA C++ and HIP C++ translations, in the order
 * kl_emit_cuda prints it:
 *  1. kl_cuda_prelude_types: scalar typedefs, the vector template _clv and
 *     type traits;
 *  2. kl_cuda_prelude_cuda or kl_cuda_prelude_hip: what differs between
 *     the targets (conversions between float and half bits, whether the
 *     directed-rounding conversion intrinsics can be trusted);
 *  3. kl_cuda_prelude_half: OpenCL's half as a 2-byte type whose arithmetic
 *     is done in float and rounded to half after every operation;
 *  4. kl_cuda_prelude_body: vector operators, builtins, conversions,
 *     vloadN/vstoreN, atomics, work-item functions.
 * Private to the translator. */
#ifndef AGPU_CUDA_PRELUDE_H
#define AGPU_CUDA_PRELUDE_H

extern const char kl_cuda_prelude_types[];
extern const char kl_cuda_prelude_cuda[];
extern const char kl_cuda_prelude_hip[];
extern const char kl_cuda_prelude_half[];
extern const char kl_cuda_prelude_body[];

#endif /* AGPU_CUDA_PRELUDE_H */
