// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter: the CPU backend's translation of a program.
 *
 * Each kernel becomes a function that runs a range of whole work-groups
 * (see emit_c_abi.h). Its body is split at the barriers that sit in
 * work-group-uniform control flow: the statements between two barriers form
 * a region, emitted as a loop over the group's work-items; the control flow
 * around barriers (compound statements, and ifs and loops whose conditions
 * are uniform) is emitted once per work-group. A kernel without barriers is
 * one work-item loop the C compiler can vectorise.
 *
 * Variables: one used in a single region is an ordinary C local; one whose
 * value is a pure function of the work-item's ids and the parameters is
 * recomputed in each region that uses it; one used in the group-level
 * control flow is one scalar per work-group (its value is uniform there);
 * any other that lives across a barrier gets one copy per work-item in the
 * group's scratch memory. Barriers in non-uniform control flow, in helper
 * functions or in switch statements are rejected with a diagnostic.
 *
 * Names: every user identifier gets a prefix (v<id>_ variables, kl_f_
 * functions, kl_s<n> structs), so nothing clashes with C or libm. */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit_c_abi.h"
#include "emit_c_internal.h"
#include "emit_isolate.h"
#include "translate.h"

void kc_error(kc_emitter *e, kl_location at, const char *format, ...) {
  if (e->analyzing) return;
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  e->failed = true;
  kl_error(e->ctx, at, "%s", message);
}

bool kc_helper_new(kc_emitter *e, const char *name) {
  for (int i = 0; i < e->helper_count; i++)
    if (strcmp(e->helper_names[i], name) == 0) return false;
  if (e->helper_count == e->helper_capacity) {
    int capacity = e->helper_capacity ? e->helper_capacity * 2 : 64;
    char **grown = realloc(e->helper_names, (size_t)capacity * sizeof *grown);
    if (!grown) {
      e->failed = true;
      return false;
    }
    e->helper_names = grown;
    e->helper_capacity = capacity;
  }
  e->helper_names[e->helper_count++] = kl_strndup(e->ctx, name, strlen(name));
  return true;
}

/* -------------------------------------------------------------- types */

const char *kc_scalar_name(kl_type_kind kind) {
  switch (kind) { /* C's names where OpenCL C's differ (the prelude typedefs the others) */
    case KL_TYPE_BOOL:
      return "_Bool";
    case KL_TYPE_CHAR:
      return "schar";
    case KL_TYPE_HALF:
      return "_Float16";
    default:
      return kl_scalar_spelling(kind);
  }
}

static const char *kc_vector_element_name(kl_type_kind kind) {
  return kind == KL_TYPE_CHAR ? "char" : kc_scalar_name(kind);
}

static int kc_struct_index(kc_emitter *e, const kl_type *type) {
  for (int i = 0; i < e->program->struct_count; i++) {
    const kl_type *s = e->program->structs[i];
    if (s == type || (s->members && s->members == type->members)) return i;
    if (s->name && type->name && strcmp(s->name, type->name) == 0 && !s->members == !type->members)
      return i;
  }
  return -1;
}

static const char *kc_qualifiers(unsigned qualifiers) {
  if ((qualifiers & KL_QUALIFIER_CONST) && (qualifiers & KL_QUALIFIER_VOLATILE))
    return "const volatile ";
  if (qualifiers & KL_QUALIFIER_CONST) return "const ";
  if (qualifiers & KL_QUALIFIER_VOLATILE) return "volatile ";
  return "";
}

/* The name of a non-derived type. */
static const char *kc_base(kc_emitter *e, const kl_type *type) {
  switch (type->kind) {
    case KL_TYPE_VECTOR:
      return kl_format(e->ctx, "%s%d", kc_vector_element_name(type->element->kind), type->length);
    case KL_TYPE_STRUCT: {
      int index = kc_struct_index(e, type);
      const char *keyword = type->is_union ? "union" : "struct";
      if (index < 0)
        return kl_format(e->ctx, "%s kl_t_%s", keyword, type->name ? type->name : "anon");
      return kl_format(e->ctx, "%s kl_s%d", keyword, index);
    }
    default: {
      const char *name = kc_scalar_name(type->kind);
      return name ? name : "void";
    }
  }
}

const char *kc_decl(kc_emitter *e, const kl_type *type, const char *inner) {
  switch (type->kind) {
    case KL_TYPE_ARRAY: {
      const char *wrapped = inner[0] == '*' ? kl_format(e->ctx, "(%s)", inner) : inner;
      return kc_decl(e, type->element, kl_format(e->ctx, "%s[%d]", wrapped, type->length));
    }
    case KL_TYPE_POINTER: {
      const char *quals = "";
      if (type->qualifiers & KL_QUALIFIER_CONST) quals = " const";
      if (type->qualifiers & KL_QUALIFIER_RESTRICT) quals = " restrict";
      return kc_decl(e, type->element,
                     kl_format(e->ctx, "*%s%s%s", quals, inner[0] && quals[0] ? " " : "", inner));
    }
    case KL_TYPE_FUNCTION:
      return kl_format(e->ctx, "void %s", inner);
    default:
      return kl_format(e->ctx, "%s%s%s%s", kc_qualifiers(type->qualifiers), kc_base(e, type),
                       inner[0] ? " " : "", inner);
  }
}

const char *kc_type(kc_emitter *e, const kl_type *type) {
  return kc_decl(e, type, "");
}

/* The type without its top-level const (an array's elements included): the
 * storage of a variable that is declared in one place and assigned in
 * another (one per group, or one per work-item across barriers). */
const kl_type *kc_unqualified(kc_emitter *e, const kl_type *type) {
  if (type->kind == KL_TYPE_ARRAY) {
    const kl_type *element = kc_unqualified(e, type->element);
    if (element == type->element) return type;
    kl_type *copy = kl_alloc(e->ctx, sizeof *copy);
    *copy = *type;
    copy->element = (kl_type *)element;
    return copy;
  }
  if (!(type->qualifiers & KL_QUALIFIER_CONST)) return type;
  kl_type *copy = kl_alloc(e->ctx, sizeof *copy);
  *copy = *type;
  copy->qualifiers &= ~(unsigned)KL_QUALIFIER_CONST;
  return copy;
}

/* ------------------------------------------------------------ helpers */

bool kc_node_int(const kl_node *node, int64_t *value) {
  while (node && (node->kind == KL_EXPR_CONVERT || node->kind == KL_EXPR_CAST)) node = node->lhs;
  if (!node || node->kind != KL_EXPR_INT_LITERAL) return false;
  *value = (int64_t)node->int_value;
  return true;
}

bool kc_is_vector(const kl_type *type) {
  return type && type->kind == KL_TYPE_VECTOR;
}

bool kc_is_barrier(const kl_node *node) {
  return node && node->kind == KL_EXPR_BUILTIN && node->builtin &&
         node->builtin->id == KL_BUILTIN_BARRIER;
}

bool kc_is_barrier_statement(const kl_node *stmt) {
  return stmt->kind == KL_STMT_EXPRESSION && kc_is_barrier(stmt->lhs);
}

/* Whether a tree holds a barrier, user calls counting when the callee has
 * one: check.c's mark (kl_mark_barriers, made again after inlining). */
bool kc_has_barrier(const kl_node *node) {
  return node && node->contains_barrier;
}

typedef struct kc_find_state {
  bool (*match)(const kl_node *node);
  const kl_node *found;
} kc_find_state;

static kc_visit_step kc_find_visit(const kl_node *node, void *context) {
  kc_find_state *state = context;
  if (!state->match(node)) return KC_VISIT_INTO;
  state->found = node;
  return KC_VISIT_STOP;
}

/* The first node of a tree (statements of a switch, every declarator and
 * initializer included) that `match` accepts, or NULL; `depth` levels are
 * already walked, of 1000 at most. */
const kl_node *kc_find(const kl_node *node, int depth, bool (*match)(const kl_node *node)) {
  kc_find_state state = {.match = match};
  kc_visit(node, 1000 - depth, kc_find_visit, &state);
  return state.found;
}

static bool kc_is_barrier_call(const kl_node *node) {
  return node->kind == KL_EXPR_CALL && kc_barrier_helper(node->function);
}

/* A call of a helper with a barrier inside a tree, or NULL. */
const kl_node *kc_barrier_call(const kl_node *node, int depth) {
  return kc_find(node, depth, kc_is_barrier_call);
}

/* Whether a statement holds a break or continue that leaves it (and so
 * targets a loop around it). */
bool kc_has_escape(const kl_node *node, bool in_loop, bool in_switch, int depth) {
  if (!node || depth > 400) return false;
  switch (node->kind) {
    case KL_STMT_BREAK:
      return !in_loop && !in_switch;
    case KL_STMT_CONTINUE:
      return !in_loop;
    case KL_STMT_FOR:
    case KL_STMT_WHILE:
    case KL_STMT_DO:
      return kc_has_escape(node->body, true, in_switch, depth + 1);
    case KL_STMT_SWITCH:
      return kc_has_escape(node->body, in_loop, true, depth + 1);
    case KL_STMT_COMPOUND:
      for (const kl_node *child = node->body; child; child = child->next)
        if (kc_has_escape(child, in_loop, in_switch, depth + 1)) return true;
      return false;
    case KL_STMT_IF:
      return kc_has_escape(node->then, in_loop, in_switch, depth + 1) ||
             kc_has_escape(node->otherwise, in_loop, in_switch, depth + 1);
    case KL_STMT_CASE:
      return kc_has_escape(node->body, in_loop, in_switch, depth + 1);
    default:
      return false;
  }
}

bool kc_has_return(const kl_node *node, int depth) {
  if (!node || depth > 400) return false;
  if (node->kind == KL_STMT_RETURN) return true;
  const kl_node *children[] = {node->then, node->otherwise, node->body};
  for (size_t i = 0; i < sizeof children / sizeof *children; i++)
    if (children[i] && kc_has_return(children[i], depth + 1)) return true;
  if (node->kind == KL_STMT_COMPOUND || node->kind == KL_STMT_SWITCH)
    for (const kl_node *child = node->body; child; child = child->next)
      if (kc_has_return(child, depth + 1)) return true;
  return false;
}

/* ---------------------------------------------------------- functions */

static void kc_reset_function(kc_emitter *e, const kl_function *fn) {
  e->function = fn;
  e->stream.count = 0;
  e->stream_guarded = false;
  e->stream_redirect = NULL;
  e->region = -1;
  e->region_count = 0;
  e->region_label = 0;
  e->loop_depth = e->breakable_depth = e->group_loop_depth = 0;
  e->indent = 1;
}

static void kc_helper_function(kc_emitter *e, const kl_function *fn, bool prototype_only) {
  klg_buf *o = e->out;
  kc_reset_function(e, fn);
  e->in_kernel = false;
  e->barrier_mode = false;
  klg_printf(o, "static %s(const kl_c_wi *__wi",
             kc_decl(e, fn->return_type, kl_format(e->ctx, "kl_f_%s", fn->name)));
  for (kl_variable *param = fn->params; param; param = param->next) {
    kc_var *info = kc_var_of(e, param);
    if (info) info->cls = KC_VAR_PLAIN;
    klg_printf(o, ", %s", kc_decl(e, param->type, kc_var_name(e, param)));
  }
  klg_puts(o, ")");
  if (prototype_only) {
    klg_puts(o, ";\n");
    return;
  }
  for (kl_variable *var = fn->locals; var; var = var->next) {
    kc_var *info = kc_var_of(e, var);
    if (info) info->cls = KC_VAR_PLAIN;
    if (var->space == KL_SPACE_LOCAL)
      kc_error(e, var->location, "__local variables may only be declared in a kernel");
  }
  if (fn->features & KL_FEATURE_BARRIER || kc_has_barrier(fn->body)) {
    /* reported at the barrier by kc_stmt */
  }
  klg_puts(o, " {\n  (void)__wi;\n");
  if (fn->body)
    for (const kl_node *stmt = fn->body->kind == KL_STMT_COMPOUND ? fn->body->body : fn->body; stmt;
         stmt = stmt->next)
      kc_stmt(e, stmt);
  klg_puts(o, "}\n\n");
}

static bool kc_is_call(const kl_node *node) {
  return node->kind == KL_EXPR_CALL;
}

static bool kc_calls_anything(const kl_node *node, int depth) {
  return kc_find(node, depth, kc_is_call) != NULL;
}

/* Decides how each variable of a kernel with barriers is kept. */
static void kc_classify(kc_emitter *e, const kl_function *fn) {
  for (kl_variable *var = fn->locals; var; var = var->next) {
    kc_var *info = kc_var_of(e, var);
    if (!info) continue;
    if (var->space == KL_SPACE_LOCAL) {
      info->cls = KC_VAR_LOCAL_STATIC;
      continue;
    }
    if (info->decl_region == -1) {
      info->cls = KC_VAR_PLAIN;
      continue;
    }
    bool other_region = false;
    for (int i = 0; i < info->region_count; i++)
      if (info->regions[i] != info->decl_region) other_region = true;
    info->cls = KC_VAR_REMAT; /* provisional, for kc_pure of later variables */
    bool remat = !info->assigned && !info->address_taken && var->initializer &&
                 var->initializer->kind != KL_STMT_COMPOUND &&
                 var->initializer->kind != KL_EXPR_INIT_LIST &&
                 (kl_type_is_scalar(var->type) || kc_is_vector(var->type)) &&
                 kc_pure(e, var->initializer, 0);
    if (info->used_at_group)
      info->cls = KC_VAR_GROUP;
    else if (remat)
      info->cls = KC_VAR_REMAT;
    else if (!other_region)
      info->cls = KC_VAR_PLAIN;
    else
      info->cls = KC_VAR_ARRAY;
  }
  /* a remat variable's inputs must be available wherever it is recomputed */
  bool changed = true;
  while (changed) {
    changed = false;
    for (kl_variable *var = fn->locals; var; var = var->next) {
      kc_var *info = kc_var_of(e, var);
      if (!info || info->cls != KC_VAR_REMAT) continue;
      if (!kc_pure(e, var->initializer, 0)) {
        bool other_region = false;
        for (int i = 0; i < info->region_count; i++)
          if (info->regions[i] != info->decl_region) other_region = true;
        info->cls = other_region ? KC_VAR_ARRAY : KC_VAR_PLAIN;
        changed = true;
      }
    }
  }
}

/* Adds each remat variable's inputs to the regions it is used in. */
static void kc_remat_closure(kc_emitter *e, const kl_node *node, int region, int depth) {
  if (!node || depth > 64) return;
  if (node->kind == KL_EXPR_VARIABLE && !node->variable->is_program_scope) {
    kc_var *info = kc_var_of(e, node->variable);
    if (info && info->cls == KC_VAR_REMAT && !kc_var_in_region(info, region)) {
      int saved = e->region;
      bool analyzing = e->analyzing;
      e->region = region;
      e->analyzing = true;
      kc_var_use(e, node->variable);
      e->analyzing = analyzing;
      e->region = saved;
      kc_remat_closure(e, node->variable->initializer, region, depth + 1);
    }
    return;
  }
  const kl_node *children[] = {node->lhs, node->rhs, node->condition, node->then, node->otherwise};
  for (size_t i = 0; i < sizeof children / sizeof *children; i++)
    kc_remat_closure(e, children[i], region, depth + 1);
  for (const kl_node *arg = node->args; arg; arg = arg->next)
    kc_remat_closure(e, arg, region, depth + 1);
}

static size_t kc_align_up(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/* The kernel's variables classified: pass 1 emits the body into a scratch
 * buffer to see which variables are used where. false when out of memory. */
static bool kc_kernel_analyze(kc_emitter *e, const kl_function *fn) {
  kc_reset_function(e, fn);
  e->in_kernel = true;
  kc_report_find(e, fn);
  e->uses_calls = kc_calls_anything(fn->body, 0);
  e->barrier_mode = kc_has_barrier(fn->body);
  e->has_return = kc_has_return(fn->body, 0) || kc_find(fn->body, 0, kc_is_masked);
  e->mask_depth = 0;
  klg_buf *final = e->out;

  /* parameters */
  int index = 0;
  for (kl_variable *param = fn->params; param; param = param->next, index++) {
    kc_var *info = kc_var_of(e, param);
    if (!info) return false;
    info->param_index = index;
    info->decl_region = -2;
    info->cls = KC_VAR_PARAM;
  }
  for (kl_variable *var = fn->locals; var; var = var->next) {
    kc_var *info = kc_var_of(e, var);
    if (!info) return false;
    info->cls = var->space == KL_SPACE_LOCAL ? KC_VAR_LOCAL_STATIC : KC_VAR_PLAIN;
  }

  /* pass 1: which variables are used where (the text is thrown away) */
  klg_buf scratch;
  klg_init(&scratch, e->ctx);
  e->out = &scratch;
  e->analyzing = true;
  e->indent = 2;
  kc_group_list(e, fn->body && fn->body->kind == KL_STMT_COMPOUND ? fn->body->body : fn->body,
                false);
  e->analyzing = false;
  e->out = final;

  for (kl_variable *param = fn->params; param; param = param->next) {
    kc_var *info = kc_var_of(e, param);
    /* assigned: a copy per work-item, or one per group when the group-level
     * control flow reads it (then it is uniform, or the condition is refused) */
    if (info->assigned)
      info->cls = !e->barrier_mode      ? KC_VAR_PLAIN
                  : info->used_at_group ? KC_VAR_GROUP
                                        : KC_VAR_ARRAY;
  }
  if (e->barrier_mode) {
    kc_classify(e, fn);
    for (kl_variable *var = fn->locals; var; var = var->next) {
      kc_var *info = kc_var_of(e, var);
      if (info && info->cls == KC_VAR_REMAT)
        for (int i = 0; i < info->region_count; i++)
          kc_remat_closure(e, var->initializer, info->regions[i], 0);
    }
  }

  return true;
}

/* kl_private_<name>: the scratch bytes per work-item the kernel needs. */
static void kc_kernel_private_size(kc_emitter *e, const kl_function *fn) {
  klg_buf *o = e->out;
  klg_printf(o, "static size_t kl_private_%s(size_t items) {\n  size_t bytes = 0;\n", fn->name);
  if (e->barrier_mode && e->has_return) klg_puts(o, "  bytes += kl_align_(items);\n");
  kc_report_private_size(e, o);
  for (kl_variable *var = fn->params; var; var = var->next)
    if (kc_var_of(e, var)->cls == KC_VAR_ARRAY)
      klg_printf(o, "  bytes += kl_align_(sizeof(%s) * items);\n", kc_type(e, var->type));
  for (kl_variable *var = fn->locals; var; var = var->next)
    if (kc_var_of(e, var)->cls == KC_VAR_ARRAY)
      klg_printf(o, "  bytes += kl_align_(sizeof(%s) * items);\n", kc_type(e, var->type));
  klg_puts(o, "  (void)items;\n  return bytes;\n}\n\n");
}

/* The parameters, read from the launch's argument pointers. */
static void kc_kernel_params(kc_emitter *e, const kl_function *fn) {
  klg_buf *o = e->out;
  for (kl_variable *param = fn->params; param; param = param->next) {
    kc_var *info = kc_var_of(e, param);
    const char *name = kc_var_name(e, param);
    bool copy = info->cls != KC_VAR_PARAM;
    const char *target = copy ? kl_format(e->ctx, "__arg_%s", name) : name;
    if (param->type->kind == KL_TYPE_POINTER) {
      if (param->type->pointee_space == KL_SPACE_LOCAL)
        /* __local memory is reached through this pointer only: restrict */
        klg_printf(
            o, "  %s = (%s)(__scratch + (uintptr_t)__L->args[%d]);\n",
            kc_decl(e, param->type, copy ? target : kl_format(e->ctx, "restrict %s", target)),
            kc_type(e, param->type), info->param_index);
      else
        klg_printf(o, "  %s = (%s)__L->args[%d];\n", kc_decl(e, param->type, target),
                   kc_type(e, param->type), info->param_index);
    } else {
      klg_printf(o, "  %s; __builtin_memcpy(&%s, __L->args[%d], sizeof %s);\n",
                 kc_decl(e, param->type, target), target, info->param_index, target);
    }
    klg_printf(o, "  (void)%s;\n", target);
  }
}

/* The static __local variables, laid out at the start of the group's
 * scratch; returns their bytes. */
static size_t kc_kernel_locals(kc_emitter *e, const kl_function *fn) {
  klg_buf *o = e->out;
  size_t local_offset = 0;
  for (kl_variable *var = fn->locals; var; var = var->next) {
    if (var->space != KL_SPACE_LOCAL) continue;
    size_t alignment = var->type->align > 16 ? (size_t)var->type->align : 16;
    local_offset = kc_align_up(local_offset, alignment);
    const char *name = kc_var_name(e, var);
    if (var->type->kind == KL_TYPE_ARRAY) {
      const char *pointer = kc_decl(e, var->type->element, kl_format(e->ctx, "*%s", name));
      const char *cast = kc_decl(e, var->type->element, "*");
      klg_printf(o, "  %s = (%s)(__scratch + %zu);\n", pointer, cast, local_offset);
    } else {
      klg_printf(o, "  %s = (%s)(__scratch + %zu);\n",
                 kc_decl(e, var->type, kl_format(e->ctx, "*%s", name)), kc_decl(e, var->type, "*"),
                 local_offset);
    }
    local_offset += (size_t)(var->type->size > 0 ? var->type->size : 1);
  }
  return local_offset;
}

/* The per-work-item arrays of the variables that live across barriers,
 * then the loop over the range's groups with each group's sizes and the
 * copies of parameters made per work-item or per group. */
static void kc_kernel_groups(kc_emitter *e, const kl_function *fn) {
  klg_buf *o = e->out;
  klg_puts(o, "  char *__priv = __scratch + __L->private_offset; (void)__priv;\n");
  if (e->barrier_mode && e->has_return)
    klg_puts(o,
             "  unsigned char *__ret = (unsigned char *)__priv; __priv += kl_align_(__items);\n");
  for (int pass = 0; pass < 2; pass++) {
    for (kl_variable *var = pass == 0 ? fn->params : fn->locals; var; var = var->next) {
      kc_var *info = kc_var_of(e, var);
      if (info->cls != KC_VAR_ARRAY) continue;
      const char *name = kc_var_name(e, var);
      const kl_type *type = kc_unqualified(e, var->type);
      klg_printf(o, "  %s = (%s)__priv; __priv += kl_align_(sizeof(%s) * __items);\n",
                 kc_decl(e, type, kl_format(e->ctx, "*%s", name)), kc_decl(e, type, "*"),
                 kc_type(e, type));
    }
  }
  kc_report_arrays(e, o);
  klg_puts(o,
           "  for (size_t __g = __first; __g < __first + __count; __g++) {\n"
           "    const size_t __gid0 = __g % __ng0, __gid1 = (__g / __ng0) % __ng1, "
           "__gid2 = __g / __ng0 / __ng1;\n"
           "    const size_t __ls0 = __gs0 - __gid0 * __els0 < __els0 ? __gs0 - __gid0 * __els0 : "
           "__els0, __ls1 = __gs1 - __gid1 * __els1 < __els1 ? __gs1 - __gid1 * __els1 : __els1, "
           "__ls2 = __gs2 - __gid2 * __els2 < __els2 ? __gs2 - __gid2 * __els2 : __els2;\n"
           "    const size_t __gb0 = __gid0 * __els0 + __go0, __gb1 = __gid1 * __els1 + __go1, "
           "__gb2 = __gid2 * __els2 + __go2;\n"
           "    (void)__gb0; (void)__gb1; (void)__gb2;\n");
  if (e->barrier_mode && e->has_return) klg_puts(o, "    __builtin_memset(__ret, 0, __items);\n");
  for (kl_variable *var = fn->params; var; var = var->next) {
    kc_var *info = kc_var_of(e, var);
    if (info->cls != KC_VAR_ARRAY) continue;
    const char *name = kc_var_name(e, var);
    klg_printf(o, "    for (size_t __i = 0; __i < __items; __i++) %s[__i] = __arg_%s;\n", name,
               name);
  }
  for (kl_variable *var = fn->params; var; var = var->next)
    if (kc_var_of(e, var)->cls == KC_VAR_GROUP)
      klg_printf(o, "    %s = __arg_%s;\n",
                 kc_decl(e, kc_unqualified(e, var->type), kc_var_name(e, var)),
                 kc_var_name(e, var));
  for (kl_variable *var = fn->locals; var; var = var->next) {
    kc_var *info = kc_var_of(e, var);
    if (info->cls != KC_VAR_GROUP) continue;
    klg_printf(o, "    %s;\n", kc_decl(e, kc_unqualified(e, var->type), kc_var_name(e, var)));
  }
}

/* One kernel: its private size, kl_run_<name> over a range of whole
 * work-groups, and its kl_c_kernel_<name> descriptor (emit_c_abi.h). */
static void kc_kernel(kc_emitter *e, const kl_function *fn) {
  if (!kc_kernel_analyze(e, fn)) return;
  kc_stream_plan(e, fn);
  kc_kernel_private_size(e, fn);
  klg_buf *o = e->out;
  klg_printf(o,
             "static void kl_run_%s(const kl_c_launch *__L, size_t __first, size_t __count, "
             "char *__scratch) {\n",
             fn->name);
  /* __els: the enqueued local size; a group's own size (__ls) is smaller
   * in the last group of a dimension the local size does not divide */
  klg_puts(o,
           "  const size_t __els0 = __L->local_size[0], __els1 = __L->local_size[1], "
           "__els2 = __L->local_size[2];\n"
           "  const size_t __ng0 = __L->num_groups[0], __ng1 = __L->num_groups[1], "
           "__ng2 = __L->num_groups[2];\n"
           "  const size_t __gs0 = __L->global_size[0], __gs1 = __L->global_size[1], "
           "__gs2 = __L->global_size[2];\n"
           "  const size_t __go0 = __L->global_offset[0], __go1 = __L->global_offset[1], "
           "__go2 = __L->global_offset[2];\n"
           "  const size_t __items = __els0 * __els1 * __els2;\n"
           "  (void)__ng2; (void)__gs0; (void)__gs1; (void)__gs2; (void)__items;\n");
  kc_kernel_params(e, fn);
  kc_stream_launch(e);
  size_t local_offset = kc_kernel_locals(e, fn);
  kc_kernel_groups(e, fn);
  /* pass 2: the code */
  e->indent = 2;
  e->region_count = 0;
  e->region = -1;
  kc_group_list(e, fn->body && fn->body->kind == KL_STMT_COMPOUND ? fn->body->body : fn->body,
                false);
  kc_report_group_end(e, o);
  klg_puts(o, "  }\n");
  kc_stream_fence(e);
  klg_puts(o, "}\n\n");
  int param_count = 0;
  for (kl_variable *param = fn->params; param; param = param->next) param_count++;
  klg_printf(o,
             "KL_EXPORT const kl_c_kernel kl_c_kernel_%s = {%uu, %d, %zu, kl_private_%s, "
             "kl_run_%s};\n\n",
             fn->name, KL_C_ABI_VERSION, param_count, local_offset, fn->name, fn->name);
}

/* ------------------------------------------------------------ prelude */

static void kc_prelude(klg_buf *o) {
  klg_puts(o, "/* generated by anygpu's host-C emitter, translator version ");
  klg_puts(o, KL_TRANSLATOR_VERSION);
  klg_puts(o,
           " */\n"
           "#define _GNU_SOURCE 1\n"
           "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n\n"
           "typedef signed char schar;\ntypedef unsigned char uchar;\n"
           "typedef unsigned short ushort;\ntypedef unsigned int uint;\n"
           "typedef unsigned long ulong;\n");
  static const char *const elements[][2] = {{"char", "signed char"}, {"uchar", "unsigned char"},
                                            {"short", "short"},      {"ushort", "unsigned short"},
                                            {"int", "int"},          {"uint", "unsigned int"},
                                            {"long", "long"},        {"ulong", "unsigned long"},
                                            {"float", "float"},      {"double", "double"}};
  static const int sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  static const int lengths[] = {2, 3, 4, 8, 16};
  for (int i = 0; i < 10; i++)
    for (int l = 0; l < 5; l++) {
      int lanes = lengths[l] == 3 ? 4 : lengths[l];
      klg_printf(o, "typedef %s %s%d __attribute__((vector_size(%d)));\n", elements[i][1],
                 elements[i][0], lengths[l], lanes * sizes[i]);
    }
  klg_puts(
      o, "\n" KL_C_ABI_TEXT
         "\n\n"
         "typedef struct kl_c_wi { size_t lid[3], gid[3], lsz[3], ngr[3], gsz[3], goff[3], gb[3], "
         "els[3]; unsigned dim; } kl_c_wi;\n"
         "#define KL_EXPORT __attribute__((visibility(\"default\")))\n"
         "static inline size_t kl_align_(size_t n) { return (n + 127) & ~(size_t)127; }\n\n");
}

static void kc_structs(kc_emitter *e, klg_buf *o) {
  for (int i = 0; i < e->program->struct_count; i++) {
    const kl_type *s = e->program->structs[i];
    const char *keyword = s->is_union ? "union" : "struct";
    klg_printf(o, "%s kl_s%d {\n", keyword, i);
    for (const kl_member *m = s->members; m; m = m->next)
      klg_printf(o, "  %s%s;\n", kc_decl(e, m->type, m->name), kl_member_gnu_attributes(e->ctx, m));
    klg_printf(o, "}%s;\n", kl_struct_gnu_attributes(e->ctx, s));
    for (const kl_member *m = s->members; m; m = m->next)
      klg_printf(o, "_Static_assert(offsetof(%s kl_s%d, %s) == %d, \"layout of %s\");\n", keyword,
                 i, m->name, m->offset, s->name ? s->name : keyword);
    if (s->size > 0)
      klg_printf(o, "_Static_assert(sizeof(%s kl_s%d) == %d, \"size of %s\");\n", keyword, i,
                 s->size, s->name ? s->name : keyword);
  }
  if (e->program->struct_count) klg_puts(o, "\n");
}

static void kc_expression_callback(void *e, const kl_node *node) {
  kc_expr(e, node);
}

/* With `isolate`, a function the C target cannot express is recorded as
 * failed (what the emitter said of it since `mark`) and the next one is
 * emitted afresh; without, the program fails. */
static void kc_isolate(kc_emitter *e, kl_isolation *iso, const kl_function *fn, int mark,
                       bool isolate) {
  if (!isolate || !e->failed) return;
  kl_isolation_fail(iso, fn, mark);
  e->failed = false;
}

/* The helpers' prototypes, their definitions (a helper whose prototype
 * fails is not defined: it would fail again), then the kernels. Helpers
 * with barriers are inlined into the kernels (emit_c_inline.c). */
static void kc_functions(kc_emitter *e, klg_buf *body, kl_isolation *iso, bool isolate) {
  for (int pass = 0; pass < 3; pass++) {
    if (pass == 1) {
      kl_isolation_segment_at(iso, NULL, body->length);
      klg_puts(body, "\n");
    }
    for (const kl_function *fn = e->program->functions; fn; fn = fn->next) {
      if (!fn->body || fn->is_kernel != (pass == 2) || (pass < 2 && kc_barrier_helper(fn)) ||
          (pass == 1 && kl_isolation_failed(iso, fn)))
        continue;
      int mark = kl_diagnostic_count(e->ctx);
      kl_isolation_segment_at(iso, fn, body->length);
      if (pass < 2)
        kc_helper_function(e, fn, pass == 0);
      else
        kc_kernel(e, kc_inline_barrier_helpers(e, fn));
      kc_isolate(e, iso, fn, mark, isolate);
    }
  }
  kl_isolation_segment_at(iso, NULL, body->length);
}

const char *kl_emit_c(kl_context *ctx, const kl_program *program) {
  return kl_emit_c_kernels(ctx, program, NULL);
}

const char *kl_emit_c_kernels(kl_context *ctx, const kl_program *program,
                              kl_refused_kernel **refused) {
  kc_emitter emitter;
  memset(&emitter, 0, sizeof emitter);
  kc_emitter *e = &emitter;
  e->ctx = ctx;
  e->program = program;
  e->printer = (klg_c_printer){.emitter = e, .expression = kc_expression_callback};
  e->region = -1;
  klg_buf prelude, body;
  klg_init(&prelude, ctx);
  klg_init(&body, ctx);
  klg_init(&e->helpers, ctx);
  kc_prelude(&prelude);
  kc_structs(e, &prelude);

  e->out = &body;
  /* program-scope constants */
  for (kl_variable *var = program->constants; var; var = var->next) {
    klg_printf(&body, "static const %s", kc_decl(e, var->type, kc_var_name(e, var)));
    if (var->initializer) {
      klg_puts(&body, " = ");
      e->static_init = true;
      kc_initializer(e, var->initializer);
      e->static_init = false;
    }
    klg_puts(&body, ";\n");
  }
  /* helpers with barriers are inlined into the kernels (emit_c_inline.c),
   * whose variables then need ids of their own */
  for (const kl_variable *var = program->constants; var; var = var->next)
    if (var->id >= e->next_variable_id) e->next_variable_id = var->id + 1;
  for (const kl_function *fn = program->functions; fn; fn = fn->next) {
    for (const kl_variable *var = fn->params; var; var = var->next)
      if (var->id >= e->next_variable_id) e->next_variable_id = var->id + 1;
    for (const kl_variable *var = fn->locals; var; var = var->next)
      if (var->id >= e->next_variable_id) e->next_variable_id = var->id + 1;
  }
  /* with `refused`, a helper or kernel the C target cannot express is left
   * out, and so is every kernel that calls such a helper (emit_isolate.h);
   * a constant that fails fails the program */
  bool isolate = refused && !e->failed;
  kl_isolation iso;
  kl_isolation_init(&iso, ctx, program, "C");
  kc_functions(e, &body, &iso, isolate);

  const char *result = NULL;
  if (!e->failed) {
    size_t length = body.length;
    const char *kept = body.data;
    if (isolate) {
      kl_isolation_refuse_kernels(&iso, refused);
      kept = kl_isolation_text(&iso, body.data, body.length, &length);
    }
    size_t total = prelude.length + e->helpers.length + length;
    char *text = kl_alloc(ctx, total + 1);
    memcpy(text, prelude.data, prelude.length);
    if (e->helpers.length) memcpy(text + prelude.length, e->helpers.data, e->helpers.length);
    memcpy(text + prelude.length + e->helpers.length, kept, length);
    text[total] = '\0';
    result = text;
  }
  free(e->helper_names);
  free(e->vars);
  return result;
}
