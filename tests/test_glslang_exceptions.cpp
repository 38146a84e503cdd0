// SPDX-License-Identifier: Apache-2.0
// glslang's C++ exceptions must not cross anygpu's C API (issue 33, item 6).
// This program replaces the global operator new (which the glslang linked
// into the library's objects uses) with one that throws std::bad_alloc
// after a given number of allocations, as under a memory limit, then
// translates a kernel to SPIR-V: the call must return an error saying glslang
// ran out of memory, never abort the process ("terminate called after
// throwing an instance of 'std::bad_alloc'"), and the next translation must
// work. Deterministic: it fails at the 1st, 2nd, ... 4000th allocation in
// turn, until a compile makes fewer allocations than that.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "anygpu.h"

static std::atomic<long> allocations_left{-1};  // -1: never fail

static void *allocate(std::size_t size) {
  long left = allocations_left.load();
  if (left >= 0) {
    if (left == 0) throw std::bad_alloc();
    allocations_left.fetch_sub(1);
  }
  void *p = std::malloc(size ? size : 1);
  if (!p) throw std::bad_alloc();
  return p;
}

void *operator new(std::size_t size) {
  return allocate(size);
}
void *operator new[](std::size_t size) {
  return allocate(size);
}
void *operator new(std::size_t size, const std::nothrow_t &) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void *operator new[](std::size_t size, const std::nothrow_t &) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void *p, const std::nothrow_t &) noexcept {
  std::free(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept {
  std::free(p);
}
void operator delete(void *p) noexcept {
  std::free(p);
}
void operator delete[](void *p) noexcept {
  std::free(p);
}
void operator delete(void *p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void *p, std::size_t) noexcept {
  std::free(p);
}

#if defined(__SANITIZE_ADDRESS__)
// glslang is not exception-safe: what it had allocated when std::bad_alloc
// unwound it stays allocated (a leak after an out-of-memory, which the
// library accepts). LeakSanitizer is told to ignore what this file's
// operator new allocated, that is all of glslang's C++ allocations; the
// library's own (malloc) are still checked.
extern "C" const char *__lsan_default_suppressions(void);
extern "C" const char *__lsan_default_suppressions(void) {
  return "leak:test_glslang_exceptions.cpp\n";
}
#endif

static const char *source =
    "__kernel void saxpy(__global float *y, __global const float *x, float a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n";

static agpu_status translate(void) {
  agpu_translate_desc desc;
  std::memset(&desc, 0, sizeof desc);
  desc.source = source;
  desc.target = AGPU_TARGET_SPIRV;
  agpu_translation *t = nullptr;
  agpu_status status = agpu_translate(&desc, &t);
  agpu_translation_release(t);
  return status;
}

int main() {
  agpu_status first = translate();  // initialises glslang
  if (first == AGPU_ERROR_UNSUPPORTED) {
    std::printf("skip: anygpu was built without glslang\n0 passed, 0 failed, 1 skipped\n");
    return 77;
  }
  int failed = 0, refused = 0;
  if (first != AGPU_SUCCESS) {
    std::printf("FAIL the plain translation: %s\n", agpu_last_error());
    failed++;
  }
  long n = 0;
  for (; n < 4000; n += n < 64 ? 1 : 37) {
    allocations_left.store(n);
    agpu_status status = translate();
    allocations_left.store(-1);
    if (status == AGPU_SUCCESS) break;  // the compile needs fewer allocations
    refused++;
    if (status != AGPU_ERROR_OUT_OF_HOST_MEMORY ||
        !std::strstr(agpu_last_error(), "glslang ran out of memory")) {
      std::printf("FAIL failing allocation %ld: %s: %s\n", n, agpu_status_name(status),
                  agpu_last_error());
      failed++;
    }
    if (translate() != AGPU_SUCCESS) {
      std::printf("FAIL the translation after failing allocation %ld: %s\n", n, agpu_last_error());
      failed++;
    }
  }
  std::printf("%d translations ran out of memory in glslang and returned an error\n", refused);
  if (refused == 0) {
    std::printf("FAIL no translation reached glslang's allocations\n");
    failed++;
  }
  std::printf("%d passed, %d failed, 0 skipped\n", failed ? 0 : 1, failed ? 1 : 0);
  return failed ? 1 : 0;
}
