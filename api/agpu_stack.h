// SPDX-License-Identifier: Apache-2.0
/* Running an in-process compiler on a stack of its own size. */
#ifndef AGPU_STACK_H
#define AGPU_STACK_H

#include <stddef.h>

/* The compilers anygpu calls in-process (glslang for the SPIR-V target, an
 * OpenCL driver's clBuildProgram) recurse once per level of an
 * expression's tree, and the caller's thread may have a small stack (a
 * 256 KiB thread is enough for anygpu's own passes at the translator's
 * depth limit, 400 levels, but not for glslang or PoCL's Clang there).
 * They run on a thread with this much stack, as the main thread has. */
#define AGPU_COMPILER_STACK_BYTES ((size_t)8 << 20)

/* Runs fn(arg) on a new thread with a stack of `bytes` and waits for it;
 * on the caller's thread when no such thread can be made (no memory). fn
 * must not leave by longjmp. */
void agpu_run_on_stack(size_t bytes, void (*fn)(void *arg), void *arg);

#endif /* AGPU_STACK_H */
