// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter's bounds-check report (kernels/bounds.c). A checked
 * kernel ends with `if (bad) __agpu_faults(check, site, 0, at, bad);`: a
 * call with an atomic in the work-item loop, which keeps gcc from
 * vectorising the loop at all (triad took 2.3 times as long). Here each
 * work-item stores its three notes in per-group arrays instead, plain
 * stores that vectorise, and the group reports its violating work-items
 * after its work-item loop, in the order of their local ids, with the same
 * call (the same record, count and work-item ids as before). */
#include "emit_c_internal.h"

/* The kernel's report at its end, when it has one at the top level. */
void kc_report_find(kc_emitter *e, const kl_function *fn) {
  e->deferred_report = NULL;
  if (!fn->check_buffer || !fn->body || fn->body->kind != KL_STMT_COMPOUND) return;
  const kl_node *last = NULL;
  for (const kl_node *s = fn->body->body; s; s = s->next) last = s;
  if (!last || last->check_report != 2 || last->kind != KL_STMT_IF || last->otherwise) return;
  const kl_node *call = last->then;
  if (!call || call->kind != KL_STMT_EXPRESSION || !call->lhs || call->lhs->kind != KL_EXPR_CALL ||
      call->lhs->arg_count != 5)
    return;
  e->deferred_report = last;
}

/* The call's arguments: check, site, root, byte offset, count. */
static const kl_node *kc_report_arg(const kc_emitter *e, int index) {
  const kl_node *a = e->deferred_report->then->lhs->args;
  for (int i = 0; i < index && a; i++) a = a->next;
  return a;
}

/* In a work-item loop: a violating work-item's notes into the group's
 * arrays (masked stores where gcc vectorises), count and site in one
 * unsigned long long and the byte offset in a long long: types that no
 * uint access can alias, so that the check buffer's words stay out of the
 * loop. The row's start is computed apart so that gcc sees the stores
 * advance with __lx. */
bool kc_report_stmt(kc_emitter *e, const kl_node *node) {
  if (!e->deferred_report || node != e->deferred_report || e->region < 0) return false;
  klg_buf *o = e->out;
  kc_indent(e);
  klg_puts(o, "if (");
  kc_expr(e, kc_report_arg(e, 4));
  klg_puts(o, ") {\n");
  e->indent++;
  kc_indent(e);
  klg_puts(o, "(__chk_note + (__lz * __ls1 + __ly) * __ls0)[__lx] = (unsigned long long)(");
  kc_expr(e, kc_report_arg(e, 4));
  klg_puts(o, ") | (unsigned long long)(");
  kc_expr(e, kc_report_arg(e, 1));
  klg_puts(o, ") << 32;\n");
  kc_indent(e);
  klg_puts(o, "(__chk_at + (__lz * __ls1 + __ly) * __ls0)[__lx] = ");
  kc_expr(e, kc_report_arg(e, 3));
  klg_puts(o, ";\n");
  kc_close(e, "}\n");
  return true;
}

void kc_report_private_size(kc_emitter *e, klg_buf *o) {
  if (e->deferred_report) klg_puts(o, "  bytes += 2 * kl_align_(sizeof(long long) * items);\n");
}

/* Before the group loop: the arrays, in the thread's scratch, no work-item
 * noted yet (a work-item that returns early stores nothing). */
void kc_report_arrays(kc_emitter *e, klg_buf *o) {
  if (!e->deferred_report) return;
  klg_puts(o,
           "  unsigned long long *__chk_note = (unsigned long long *)__priv;\n"
           "  __priv += kl_align_(sizeof(long long) * __items);\n"
           "  long long *__chk_at = (long long *)__priv; __priv += kl_align_(sizeof(long long) * "
           "__items);\n"
           "  __builtin_memset(__chk_note, 0, sizeof(long long) * __items);\n");
}

/* At the end of each group: its violating work-items report. */
void kc_report_group_end(kc_emitter *e, klg_buf *o) {
  if (!e->deferred_report) return;
  klg_puts(o,
           "    { const size_t __n = __ls0 * __ls1 * __ls2; uint __any = 0;\n"
           "      for (size_t __i = 0; __i < __n; __i++) __any |= (uint)__chk_note[__i];\n"
           "      if (__any) for (size_t __i = 0; __i < __n; __i++) if ((uint)__chk_note[__i]) {\n"
           "        const size_t __lx = __i % __ls0, __ly = __i / __ls0 % __ls1, "
           "__lz = __i / __ls0 / __ls1;\n"
           "        const kl_c_wi __wis = {{__lx, __ly, __lz}, {__gid0, __gid1, __gid2}, "
           "{__ls0, __ls1, __ls2}, {__ng0, __ng1, __ng2}, {__gs0, __gs1, __gs2}, "
           "{__go0, __go1, __go2}, {__gb0, __gb1, __gb2}, {__els0, __els1, __els2}, "
           "__L->work_dim};\n"
           "        kl_f___agpu_faults(&__wis, ");
  kc_expr(e, kc_report_arg(e, 0));
  klg_puts(o,
           ", (uint)(__chk_note[__i] >> 32), 0u, __chk_at[__i], (uint)__chk_note[__i]);\n"
           "        __chk_note[__i] = 0;\n"
           "      } }\n");
}
