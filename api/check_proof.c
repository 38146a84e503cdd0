// SPDX-License-Identifier: Apache-2.0
/* Bounds checking's proofs at launch (agpu_check.h; the translator's half
 * is kernels/bounds_proof.c): each kernel's postfix program of largest
 * offsets, evaluated against a launch's sizes, scalar arguments and
 * extents. A launch it proves in bounds runs the program built without
 * checks (api/check_twin.c): no access of that launch can fault. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_check.h"
#include "agpu_core.h"
#include "translate.h"

enum { AGPU_PROOF_STACK = 64 };
/* Values at or above this are not proven: nothing below it overflows. */
static const uint64_t agpu_proof_limit = (uint64_t)1 << 62;

bool agpu_check_copy_proofs(agpu_check_table *table, const kl_program *program) {
  uint32_t count = 0;
  for (const kl_check_proof *p = program->check_proofs; p; p = p->next) count++;
  table->proofs = calloc((size_t)count + 1, sizeof *table->proofs);
  if (!table->proofs) return false;
  for (const kl_check_proof *p = program->check_proofs; p; p = p->next) {
    agpu_check_proof *to = &table->proofs[table->proof_count++];
    to->kernel = agpu_strdup(p->kernel);
    to->never = p->never;
    if (p->never) {
      const char *file = p->where.source ? p->where.source->name : "<source>";
      if (asprintf(&to->why, "%s:%d:%d: %s", file, p->where.line, p->where.column,
                   p->why ? p->why : "") < 0)
        to->why = NULL;
    }
    to->ops = malloc(((size_t)p->op_count + 1) * sizeof *to->ops);
    if (!to->kernel || !to->ops || (p->never && !to->why)) return false;
    if (p->op_count) memcpy(to->ops, p->ops, (size_t)p->op_count * sizeof *to->ops);
    to->op_count = (uint32_t)p->op_count;
  }
  return true;
}

void agpu_check_free_proofs(agpu_check_table *table) {
  for (uint32_t i = 0; i < table->proof_count; i++) {
    free(table->proofs[i].kernel);
    free(table->proofs[i].why);
    free(table->proofs[i].ops);
  }
  free(table->proofs);
}

const agpu_check_proof *agpu_check_proof_of(const agpu_check_table *table, const char *kernel) {
  for (uint32_t i = 0; i < table->proof_count; i++)
    if (strcmp(table->proofs[i].kernel, kernel) == 0) return &table->proofs[i];
  return NULL;
}

/* A scalar argument's value: false where it is not one of `bytes` bytes,
 * or is negative in a signed type. */
static bool agpu_proof_arg(const agpu_arg *arg, uint64_t bytes, bool is_signed, uint64_t *value) {
  if (arg->kind != AGPU_ARG_VALUE || arg->size != bytes || bytes == 0 || bytes > 8) return false;
  uint64_t v = 0;
  for (uint64_t i = 0; i < bytes; i++) v |= (uint64_t)arg->value.bytes[i] << (8 * i);
  if (is_signed && (v >> (8 * bytes - 1)) & 1) return false;
  *value = v;
  return true;
}

/* What a leaf op pushes. */
static bool agpu_proof_leaf(const kl_proof_op *op, const size_t global[3], const size_t local[3],
                            const agpu_arg *args, uint32_t nargs, uint64_t *value) {
  int d = op->index;
  if (op->kind != KL_PROOF_CONST && op->kind != KL_PROOF_ARG && (d < 0 || d > 2)) return false;
  switch (op->kind) {
    case KL_PROOF_CONST:
      *value = op->value;
      return true;
    case KL_PROOF_GLOBAL_ID:
      *value = global[d] - 1;
      return true;
    case KL_PROOF_LOCAL_ID:
      *value = local[d] - 1;
      return true;
    case KL_PROOF_GROUP_ID:
      *value = (global[d] + local[d] - 1) / local[d] - 1;
      return true;
    case KL_PROOF_GLOBAL_SIZE:
      *value = global[d];
      return true;
    case KL_PROOF_LOCAL_SIZE: /* the last group's may be smaller: this is the largest */
      *value = local[d];
      return true;
    case KL_PROOF_NUM_GROUPS:
      *value = (global[d] + local[d] - 1) / local[d];
      return true;
    case KL_PROOF_ARG:
      return d >= 0 && (uint32_t)d < nargs &&
             agpu_proof_arg(&args[d], op->value, op->extent != 0, value);
    default:
      return false;
  }
}

/* One op on the stack of *depth values; false: not proven. */
static bool agpu_proof_step(const kl_proof_op *op, uint64_t *stack, uint32_t *depth,
                            const size_t global[3], const size_t local[3], const agpu_arg *args,
                            uint32_t nargs) {
  uint32_t n = *depth;
  if (op->kind <= KL_PROOF_ARG) {
    if (n == AGPU_PROOF_STACK || !agpu_proof_leaf(op, global, local, args, nargs, &stack[n]))
      return false;
    *depth = n + 1;
    return stack[n] < agpu_proof_limit;
  }
  if (n == 0) return false;
  uint64_t *top = &stack[n - 1];
  bool pops = op->kind <= KL_PROOF_MIN || op->kind >= KL_PROOF_CHECK_WIDTH;
  if (op->kind <= KL_PROOF_MIN && n < 2) return false;
  switch (op->kind) {
    case KL_PROOF_ADD:
      top[-1] += top[0]; /* both below 2^62: no wrap */
      break;
    case KL_PROOF_MUL:
      if (top[0] && top[-1] > (agpu_proof_limit - 1) / top[0]) return false;
      top[-1] *= top[0];
      break;
    case KL_PROOF_MIN:
      if (top[0] < top[-1]) top[-1] = top[0];
      break;
    case KL_PROOF_MAX:
      if (top[0] > top[-1]) top[-1] = top[0];
      break;
    case KL_PROOF_SHL:
      if (op->value > 62 || *top > (agpu_proof_limit - 1) >> op->value) return false;
      *top <<= op->value;
      break;
    case KL_PROOF_SHR:
      *top = op->value > 63 ? 0 : *top >> op->value;
      break;
    case KL_PROOF_DIV:
      if (!op->value) return false;
      *top /= op->value;
      break;
    case KL_PROOF_DEC:
      if (*top) --*top;
      break;
    case KL_PROOF_SUB:
      *top = *top > op->value ? *top - op->value : 0;
      break;
    case KL_PROOF_WIDTH: /* top + extent: a guard's `i + c` (extent below 2^40) */
      if (op->extent > ((uint64_t)1 << 40) || (op->value < 64 && (*top + op->extent) >> op->value))
        return false;
      break;
    case KL_PROOF_CHECK_WIDTH:
      if (op->value < 64 && *top >> op->value) return false;
      break;
    case KL_PROOF_FITS: {
      uint64_t extent = op->index < 0                 ? op->extent
                        : (uint32_t)op->index < nargs ? agpu_check_arg_extent(&args[op->index])
                                                      : 0;
      if (*top + op->value > extent) return false;
      break;
    }
    default:
      return false;
  }
  if (pops) *depth = n - 1;
  return *depth == 0 || stack[*depth - 1] < agpu_proof_limit;
}

bool agpu_check_proof_holds(const agpu_check_proof *proof, const size_t global[3],
                            const size_t local[3], const agpu_arg *args, uint32_t nargs) {
  if (!proof || proof->never) return false;
  uint64_t stack[AGPU_PROOF_STACK];
  uint32_t depth = 0;
  for (uint32_t i = 0; i < proof->op_count; i++)
    if (!agpu_proof_step(&proof->ops[i], stack, &depth, global, local, args, nargs)) return false;
  return depth == 0;
}
