// SPDX-License-Identifier: Apache-2.0
/* The kernel generator's statements: declarations, assignments, control
 * flow, local memory between barriers, atomics, private arrays and the
 * uniform loops with barriers (kernel_gen_internal.h). */
#include <stdio.h>

#include "kernel_gen_internal.h"

static const char *const type_names[T_COUNT] = {"uint",   "int",   "ulong", "uint4",
                                                "uchar4", "uint8", "float"};

static void block(kgen *g, int depth, bool in_loop);

/* A uniform loop with barriers (top level only): each round stages a value
 * in local memory between two barriers and reads a neighbour's, reads
 * through a __global pointer that advances by the group size each round,
 * advances a group-level counter, may `continue` early on a uniform
 * condition (after the second barrier, so that no round's writes can race a
 * read), then runs private statements. At most 3 rounds: the pointer stays
 * inside in[]. */
static void barrier_loop(kgen *g) {
  const kgen_var *v = kgen_pick_var(g, T_UINT, true);
  if (!v) return;
  int id = g->next_id++;
  unsigned rounds = kgen_take(g, 3) + 1, step = kgen_take(g, 5) + 1, skip = kgen_take(g, 4);
  bool do_while = kgen_take(g, 2);
  /* the for init: one declarator, or a second induction variable of some
   * type stepped by a comma expression (issue 34) */
  static const char *const induction[] = {"uint", "int", "ulong"};
  unsigned shape = kgen_take(g, 4), second_start = kgen_take(g, 50),
           second_step = kgen_take(g, 7) + 1;
  const char *itype = induction[kgen_take(g, 3)];
  bool carried = kgen_take(g, 2); /* a declarator list that lives across a barrier */
  kgen_indent(g), kgen_put(g, "{\n");
  g->indent++;
  kgen_indent(g), kgen_put(g, "const uint n%d = get_local_size(0);\n", id);
  kgen_indent(g), kgen_put(g, "__global const uint *p%d = in + lid;\n", id);
  kgen_indent(g), kgen_put(g, "uint t%d = 0u, e%d;\n", id, id);
  kgen_indent(g), kgen_put(g, "barrier(CLK_LOCAL_MEM_FENCE); /* earlier reads of tile[] */\n");
  if (do_while) {
    kgen_indent(g), kgen_put(g, "do {\n");
  } else if (shape == 0) {
    kgen_indent(g), kgen_put(g, "for (uint u%d = 0u; u%d < %uu; u%d++) {\n", id, id, rounds, id);
  } else {
    kgen_indent(g),
        kgen_put(g, "for (%s u%d = 0, w%d = (%s)(get_group_id(0) * 3u + %uu); u%d < %u; ", itype,
                 id, id, itype, second_start, id, rounds);
    kgen_put(g, "u%d++, w%d += %u) {\n", id, id, second_step);
  }
  g->indent++;
  if (carried) {
    kgen_indent(g), kgen_put(g, "uint a%d = ", id), kgen_expr(g, T_UINT, 0),
        kgen_put(g, ", b%d;\n", id);
    kgen_indent(g), kgen_put(g, "b%d = a%d * 3u + t%d;\n", id, id, id);
  }
  kgen_indent(g), kgen_put(g, "tile[lid] = "), kgen_expr(g, T_UINT, 0), kgen_put(g, ";\n");
  kgen_indent(g), kgen_put(g, "barrier(CLK_LOCAL_MEM_FENCE);\n");
  if (carried) kgen_indent(g), kgen_put(g, "%s += a%d ^ b%d;\n", v->name, id, id);
  if (!do_while && shape != 0) kgen_indent(g), kgen_put(g, "%s ^= (uint)w%d;\n", v->name, id);
  kgen_indent(g), kgen_put(g, "%s += tile[(lid + %uu + t%d) %% n%d] ^ *p%d;\n", v->name,
                           kgen_take(g, KGEN_LOCAL_SIZE), id, id, id);
  kgen_indent(g), kgen_put(g, "p%d += n%d;\n", id, id);
  kgen_indent(g), kgen_put(g, "t%d += %uu;\n", id, step);
  kgen_indent(g), kgen_put(g, "barrier(CLK_LOCAL_MEM_FENCE);\n");
  if (skip < 3) kgen_indent(g), kgen_put(g, "if (t%d == %uu) continue;\n", id, step * (skip + 1));
  int saved = g->var_count;
  for (unsigned i = kgen_take(g, 3); i > 0 && g->statements < MAX_STATEMENTS; i--)
    kgen_statement(g, 1, false, false); /* no break/continue of this loop: they may diverge */
  g->var_count = saved;
  g->indent--;
  if (do_while)
    kgen_indent(g), kgen_put(g, "} while (t%d < %uu);\n", id, step * rounds);
  else
    kgen_indent(g), kgen_put(g, "}\n");
  kgen_indent(g), kgen_put(g, "e%d = t%d * 5u;\n", id, id);
  kgen_indent(g), kgen_put(g, "%s ^= e%d;\n", v->name, id);
  g->indent--;
  kgen_indent(g), kgen_put(g, "}\n");
}

/* A declaration, an assignment or a vector component's (choices 0 to 2). */
static void value_statement(kgen *g, unsigned choice) {
  switch (choice) {
    case 0: { /* a declaration */
      kgen_type type = kgen_pick_type(g);
      int id = g->next_id++;
      kgen_indent(g);
      kgen_put(g, "%s v%d = ", type_names[type], id);
      kgen_expr(g, type, 0);
      kgen_put(g, ";\n");
      kgen_var *v = kgen_add_var(g, type, "v");
      if (v) snprintf(v->name, sizeof v->name, "v%d", id);
      break;
    }
    case 1: { /* an assignment */
      kgen_type type = kgen_pick_type(g);
      const kgen_var *v = kgen_pick_var(g, type, true);
      if (!v) break;
      static const char *const wrapping[] = {"=", "+=", "^=", "*=", "|=", "-="};
      static const char *const bitwise[] = {"=", "^=", "|=", "&="};
      static const char *const arithmetic[] = {"=", "+=", "*=", "-="};
      const char *op = type == T_INT     ? bitwise[kgen_take(g, 4)]
                       : type == T_FLOAT ? arithmetic[kgen_take(g, 4)]
                                         : wrapping[kgen_take(g, 6)];
      kgen_indent(g);
      kgen_put(g, "%s %s ", v->name, op);
      kgen_expr(g, type, 0);
      kgen_put(g, ";\n");
      break;
    }
    case 2: { /* a vector component */
      const kgen_var *wide = kgen_take(g, 3) == 0 ? kgen_pick_var(g, T_UINT8, true) : NULL;
      if (wide) {
        kgen_indent(g);
        if (kgen_take(g, 2)) {
          kgen_put(g, "%s.s%u = ", wide->name, kgen_take(g, 8));
          kgen_expr(g, T_UINT, 0);
        } else {
          kgen_put(g, "%s.%s = ", wide->name, kgen_take(g, 2) ? "hi" : "even");
          kgen_expr(g, T_UINT4, 0);
        }
        kgen_put(g, ";\n");
        break;
      }
      const kgen_var *v = kgen_pick_var(g, T_UINT4, true);
      if (!v) break;
      kgen_indent(g);
      if (kgen_take(g, 2)) {
        kgen_put(g, "%s.%s = ", v->name, (const char *[]){"x", "y", "z", "w"}[kgen_take(g, 4)]);
        kgen_expr(g, T_UINT, 0);
      } else {
        kgen_put(g, "%s.%s = (uint2)(", v->name, kgen_take(g, 2) ? "zw" : "lo");
        kgen_expr(g, T_UINT, 1);
        kgen_put(g, ", ");
        kgen_expr(g, T_UINT, 1);
        kgen_put(g, ")");
      }
      kgen_put(g, ";\n");
      break;
    }
  }
}

/* if, for, while, do, switch, break and continue (choices 3 to 8). */
static void control_statement(kgen *g, unsigned choice, int depth, bool in_loop) {
  switch (choice) {
    case 3: /* if / else */
      kgen_indent(g), kgen_put(g, "if "), kgen_condition(g, 0), kgen_put(g, " ");
      block(g, depth + 1, in_loop);
      if (kgen_take(g, 2)) {
        kgen_indent(g), kgen_put(g, "else ");
        block(g, depth + 1, in_loop);
      }
      break;
    case 4: { /* for */
      kgen_indent(g);
      int id = g->next_id++;
      kgen_put(g, "for (uint k%d = 0u; k%d < %uu; k%d++) ", id, id, kgen_take(g, 5) + 1, id);
      kgen_var *k = g->var_count < MAX_VARS ? &g->vars[g->var_count++] : NULL;
      if (k) {
        snprintf(k->name, sizeof k->name, "k%d", id);
        k->type = T_UINT, k->read_only = true, k->array = false;
      }
      int saved = g->var_count - (k ? 1 : 0);
      block(g, depth + 1, true);
      g->var_count = saved;
      break;
    }
    case 5: { /* while, counting down first */
      int id = g->next_id++;
      kgen_indent(g), kgen_put(g, "{\n");
      g->indent++;
      kgen_indent(g), kgen_put(g, "uint w%d = %uu;\n", id, kgen_take(g, 4) + 1);
      kgen_indent(g), kgen_put(g, "while (w%d > 0u) {\n", id);
      g->indent++;
      kgen_indent(g), kgen_put(g, "w%d--;\n", id);
      int saved = g->var_count;
      kgen_var *w = kgen_add_var(g, T_UINT, "w");
      if (w) snprintf(w->name, sizeof w->name, "w%d", id), w->read_only = true;
      for (unsigned i = kgen_take(g, 3) + 1; i > 0 && g->statements < MAX_STATEMENTS; i--)
        kgen_statement(g, depth + 1, true, false);
      g->var_count = saved;
      g->indent--;
      kgen_indent(g), kgen_put(g, "}\n");
      g->indent--;
      kgen_indent(g), kgen_put(g, "}\n");
      break;
    }
    case 6: { /* do / while, counting up first */
      int id = g->next_id++;
      kgen_indent(g), kgen_put(g, "{\n");
      g->indent++;
      kgen_indent(g), kgen_put(g, "uint d%d = 0u;\n", id);
      kgen_indent(g), kgen_put(g, "do {\n");
      g->indent++;
      kgen_indent(g), kgen_put(g, "d%d++;\n", id);
      int saved = g->var_count;
      for (unsigned i = kgen_take(g, 3) + 1; i > 0 && g->statements < MAX_STATEMENTS; i--)
        kgen_statement(g, depth + 1, true, false);
      g->var_count = saved;
      g->indent--;
      kgen_indent(g), kgen_put(g, "} while (d%d < %uu);\n", id, kgen_take(g, 4) + 1);
      g->indent--;
      kgen_indent(g), kgen_put(g, "}\n");
      break;
    }
    case 7: { /* switch, with a fall-through */
      kgen_indent(g), kgen_put(g, "switch ("), kgen_expr(g, T_UINT, 1), kgen_put(g, " & 3u) {\n");
      static const char *const labels[] = {"case 0u:", "case 1u:", "case 2u:", "default:"};
      for (int c = 0; c < 4; c++) {
        kgen_indent(g), kgen_put(g, "%s {\n", labels[c]);
        g->indent++;
        int saved = g->var_count;
        for (unsigned i = kgen_take(g, 2) + 1; i > 0 && g->statements < MAX_STATEMENTS; i--)
          kgen_statement(g, depth + 1, in_loop, false);
        g->var_count = saved;
        if (c != 1 || kgen_take(g, 2)) kgen_indent(g), kgen_put(g, "break;\n");
        g->indent--;
        kgen_indent(g), kgen_put(g, "}\n");
      }
      kgen_indent(g), kgen_put(g, "}\n");
      break;
    }
    case 8: /* break / continue */
      if (in_loop) {
        kgen_indent(g), kgen_put(g, "if "), kgen_condition(g, 1),
            kgen_put(g, " %s;\n", kgen_take(g, 2) ? "break" : "continue");
      }
      break;
  }
}

/* An array element, local memory between barriers, atomics, a private
 * array (choices 9 to 12). */
static void memory_statement(kgen *g, unsigned choice) {
  switch (choice) {
    case 9: { /* an array element */
      const kgen_var *a = kgen_pick_array(g);
      if (!a) break;
      kgen_indent(g), kgen_put(g, "%s[", a->name), kgen_expr(g, T_UINT, 1),
          kgen_put(g, " & 3u] %s ", kgen_take(g, 2) ? "=" : "^=");
      kgen_expr(g, T_UINT, 0), kgen_put(g, ";\n");
      break;
    }
    case 10: { /* local memory between barriers (top level: uniform control flow) */
      const kgen_var *v = kgen_pick_var(g, T_UINT, true);
      if (!v) break;
      kgen_indent(g), kgen_put(g, "barrier(CLK_LOCAL_MEM_FENCE);\n");
      kgen_indent(g), kgen_put(g, "tile[lid] = "), kgen_expr(g, T_UINT, 0), kgen_put(g, ";\n");
      kgen_indent(g), kgen_put(g, "barrier(CLK_LOCAL_MEM_FENCE);\n");
      unsigned offset = kgen_take(g, KGEN_LOCAL_SIZE);
      if (g->have_pointer_helper && kgen_take(g, 2))
        kgen_indent(g), kgen_put(g, "%s ^= read_tile(tile, lid + %uu);\n", v->name, offset);
      else
        kgen_indent(g),
            kgen_put(g, "%s += tile[(lid + %uu) %% %uu];\n", v->name, offset, KGEN_LOCAL_SIZE);
      break;
    }
    case 11: { /* atomics: each shared word gets one kind of update only, so that the
                  result does not depend on the order the work-items run in */
      static const char *const ops[] = {"atomic_add", "atomic_xor", "atomic_or",
                                        "atomic_and", "atomic_min", "atomic_max"};
      kgen_indent(g);
      unsigned op = kgen_take(g, 6);
      if (g->have_pointer_helper && kgen_take(g, 2)) {
        kgen_put(g, "bump(acc, "), kgen_expr(g, T_UINT, 1), kgen_put(g, ");\n");
      } else if (op == 0) {
        kgen_put(g, "atomic_add(&acc["), kgen_expr(g, T_UINT, 1), kgen_put(g, " & 1u], ");
        kgen_expr(g, T_UINT, 1), kgen_put(g, ");\n");
      } else {
        kgen_put(g, "%s(&acc[%u], ", ops[op], op + 1), kgen_expr(g, T_UINT, 1), kgen_put(g, ");\n");
      }
      break;
    }
    default: { /* a private array */
      int id = g->next_id++;
      kgen_indent(g), kgen_put(g, "uint a%d[4] = {", id);
      for (int i = 0; i < 4; i++) {
        if (i) kgen_put(g, ", ");
        kgen_expr(g, T_UINT, 1);
      }
      kgen_put(g, "};\n");
      kgen_var *a = kgen_add_var(g, T_UINT, "a");
      if (a) snprintf(a->name, sizeof a->name, "a%d", id), a->array = true;
      break;
    }
  }
}

void kgen_statement(kgen *g, int depth, bool in_loop, bool top) {
  g->statements++;
  unsigned choice = kgen_take(g, top ? (g->options.barriers ? 16 : 13) : 10);
  if (choice >= 13) {
    barrier_loop(g);
    return;
  }
  if (depth >= MAX_STMT_DEPTH && choice >= 3 && choice <= 7) choice = 0;
  if (choice <= 2)
    value_statement(g, choice);
  else if (choice <= 8)
    control_statement(g, choice, depth, in_loop);
  else
    memory_statement(g, choice);
}

static void block(kgen *g, int depth, bool in_loop) {
  kgen_put(g, "{\n");
  g->indent++;
  int saved = g->var_count;
  for (unsigned i = kgen_take(g, 3) + 1; i > 0 && g->statements < MAX_STATEMENTS; i--)
    kgen_statement(g, depth, in_loop, false);
  g->var_count = saved;
  g->indent--;
  kgen_indent(g);
  kgen_put(g, "}\n");
}
