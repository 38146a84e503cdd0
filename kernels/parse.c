// SPDX-License-Identifier: Apache-2.0
/* The parser: preprocessed tokens -> a typed AST (kl.h), with OpenCL C
 * 1.2's type rules applied as each node is made. Implicit conversions are
 * explicit KL_EXPR_CONVERT nodes. Recursive descent, as chibicc; nesting is
 * capped so that no input can exhaust the stack. This file: program scope
 * (functions, kernels, program-scope variables) and the entry point; the
 * grammar's other parts are in parse_*.c (parse_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"

/* ------------------------------------------------------- program scope */

/* The first member (nested structs and arrays included) whose size OpenCL
 * C leaves to the implementation, so that a struct holding it cannot be
 * shared with the host: bool (unless `bool_ok`), size_t, ptrdiff_t. NULL
 * when there is none; *owner is the struct that holds it. */
static const kl_member *unportable_member(const kl_type *t, const kl_type **owner, int depth,
                                          bool bool_ok) {
  while (t->kind == KL_TYPE_ARRAY) t = t->element;
  if (t->kind != KL_TYPE_STRUCT || depth > KL_MAX_DEPTH) return NULL;
  for (const kl_member *m = t->members; m; m = m->next) {
    const kl_type *mt = m->type;
    while (mt->kind == KL_TYPE_ARRAY) mt = mt->element;
    const kl_type *scalar = kl_type_scalar_of(mt);
    if ((scalar->kind == KL_TYPE_BOOL && !bool_ok) || scalar->kind == KL_TYPE_SIZE_T ||
        scalar->kind == KL_TYPE_PTRDIFF_T) {
      *owner = t;
      return m;
    }
    const kl_member *inner = unportable_member(mt, owner, depth + 1, bool_ok);
    if (inner) return inner;
  }
  return NULL;
}

/* A struct shared with the host (a kernel parameter, __global or __constant
 * data) must have a layout every device agrees on. */
static void check_shared_struct(parser *p, const kl_type *t, kl_location at, const char *where) {
  const kl_type *owner = NULL;
  const kl_member *m = unportable_member(t, &owner, 0, false);
  if (m)
    kl_error(p->ctx, at,
             "%s: member '%s' of '%s' has type '%s', whose size is not portable (use a "
             "fixed-size type such as int or uint)",
             where, m->name, kp_type_name(p, kl_type_unqualified(p->ctx, (kl_type *)owner)),
             kp_type_name(p, kl_type_unqualified(p->ctx, m->type)));
}

/* A struct in a buffer: bool members are one byte on every target (as
 * clang, CUDA and C lay them out), which the host must match: a warning;
 * size_t and ptrdiff_t are refused as in check_shared_struct. */
static void check_buffer_struct(parser *p, const kl_type *t, kl_location at, const char *where) {
  const kl_type *owner = NULL;
  if (unportable_member(t, &owner, 0, true)) {
    check_shared_struct(p, t, at, where);
    return;
  }
  const kl_member *m = unportable_member(t, &owner, 0, false);
  if (m)
    kl_warning(p->ctx, at,
               "%s: member '%s' of '%s' is a bool, one byte in memory on every anygpu target (as "
               "clang, CUDA and C lay it out): the host's struct must use a one-byte bool",
               where, m->name, kp_type_name(p, kl_type_unqualified(p->ctx, (kl_type *)owner)));
}

/* The first pointer member of a struct (nested structs and arrays
 * included), or NULL. */
static const kl_member *pointer_member(const kl_type *t, int depth) {
  while (t->kind == KL_TYPE_ARRAY) t = t->element;
  if (t->kind != KL_TYPE_STRUCT || depth > KL_MAX_DEPTH) return NULL;
  for (const kl_member *m = t->members; m; m = m->next) {
    const kl_type *mt = m->type;
    while (mt->kind == KL_TYPE_ARRAY) mt = mt->element;
    if (mt->kind == KL_TYPE_POINTER) return m;
    const kl_member *inner = pointer_member(mt, depth + 1);
    if (inner) return inner;
  }
  return NULL;
}

static void check_kernel_param(parser *p, kl_function *f, kl_variable *v) {
  kl_type *t = v->type;
  if (t->kind == KL_TYPE_POINTER) {
    kl_address_space s = t->pointee_space;
    if (s == KL_SPACE_PRIVATE)
      kl_error(p->ctx, v->location,
               "kernel pointer parameter '%s' must be __global, __constant or __local", v->name);
    if (t->element->kind == KL_TYPE_STRUCT && s == KL_SPACE_LOCAL)
      kl_error(p->ctx, v->location, "structs in __local memory are not supported (parameter '%s')",
               v->name);
    else if (t->element->kind == KL_TYPE_STRUCT)
      check_buffer_struct(p, t->element, v->location,
                          kl_format(p->ctx, "a struct in %s memory (parameter '%s')",
                                    s == KL_SPACE_CONSTANT ? "__constant" : "__global", v->name));
    if (t->element->kind == KL_TYPE_BOOL)
      kl_error(p->ctx, v->location,
               "kernel parameter '%s' cannot point to bool (its size is not portable)", v->name);
    if (t->element->kind == KL_TYPE_SIZE_T || t->element->kind == KL_TYPE_PTRDIFF_T)
      kl_error(p->ctx, v->location,
               "kernel parameter '%s' cannot point to '%s' (its size is not portable)", v->name,
               kp_type_name(p, t->element));
    return;
  }
  if (t->kind == KL_TYPE_BOOL || t->kind == KL_TYPE_SIZE_T || t->kind == KL_TYPE_PTRDIFF_T ||
      t->kind == KL_TYPE_HALF)
    kl_error(p->ctx, v->location, "kernel parameter '%s' cannot have type '%s' in OpenCL C",
             v->name, kp_type_name(p, t));
  if (t->kind == KL_TYPE_STRUCT)
    check_shared_struct(p, t, v->location,
                        kl_format(p->ctx, "a struct kernel parameter ('%s')", v->name));
  const kl_member *pm = t->kind == KL_TYPE_STRUCT ? pointer_member(t, 0) : NULL;
  if (pm)
    kl_error(p->ctx, v->location,
             "a struct kernel parameter ('%s') cannot hold pointers (member '%s'): OpenCL C "
             "forbids it, and a host has no device addresses to give; build the struct in the "
             "kernel",
             v->name, pm->name);
  (void)f;
}

static bool same_signature(kl_function *a, kl_type *rt, kl_variable *params, int count) {
  if (!kl_type_equal(a->return_type, rt) || a->param_count != count) return false;
  kl_variable *x = a->params, *y = params;
  for (; x && y; x = x->next, y = y->next)
    if (!kl_type_equal(x->type, y->type)) return false;
  return true;
}

/* `__global * buffer`: C89's implicit int, which OpenCL compilers accept
 * with a warning. */
static void implicit_int_warning(parser *p, const kl_token *name, kl_location at) {
  if (name)
    kl_warning(p->ctx, kl_token_where(name),
               "parameter '%.*s' has no type: 'int' is assumed (write the type)", name->length,
               name->text);
  else
    kl_warning(p->ctx, at, "a parameter has no type: 'int' is assumed (write the type)");
}

static void function_declaration(parser *p, decl_spec *spec, kl_type *rt, kl_token *name) {
  kl_context *ctx = p->ctx;
  kl_location at = kl_token_where(name);
  char *fname = kl_strndup(ctx, name->text, (size_t)name->length);
  if (kl_builtin_lookup(ctx, name->text, name->length, NULL))
    kl_error(ctx, at, "'%s' is a builtin function: it cannot be redefined", fname);
  kp_advance(p); /* ( */
  kp_push_scope(p);
  kl_variable head = {0}, *tail = &head;
  int count = 0;
  if (kp_is(p, "void") && kl_token_is(p->tok->next, ")")) {
    kp_advance(p);
  } else if (!kp_is(p, ")")) {
    do {
      decl_spec ps;
      kl_location param_at = kp_here(p);
      if (!kp_is_type_start(p, p->tok)) {
        kp_syntax_error_at(p, kp_here(p), "expected a parameter type, found ",
                           kp_token_text(p, p->tok));
        break;
      }
      p->in_parameter = true;
      kp_declspec(p, &ps, false);
      p->in_parameter = false;
      kl_token *pname = NULL;
      kl_type *base = kl_type_qualified(ctx, ps.type, ps.qualifiers | ps.type->qualifiers);
      kl_type *pt =
          kp_declarator(p, base, ps.has_space ? ps.space : KL_SPACE_PRIVATE, &pname, true);
      int unsized = 0;
      pt = kp_array_suffix(p, pt, &unsized);
      kp_check_pointer_depth(p, pt, pname ? kl_token_where(pname) : kp_here(p));
      kp_declarator_attributes(p, &ps, pt, pname);
      if (ps.max_constant_size &&
          !(pt->kind == KL_TYPE_POINTER && ps.has_space && ps.space == KL_SPACE_CONSTANT))
        kl_error(ctx, ps.max_constant_at, "max_constant_size applies to __constant pointers");
      if (pt->kind == KL_TYPE_ARRAY)
        pt = kl_type_pointer(ctx, pt->element, ps.has_space ? ps.space : KL_SPACE_PRIVATE);
      if (ps.has_space && pt->kind != KL_TYPE_POINTER && ps.space != KL_SPACE_PRIVATE)
        kl_error(ctx, param_at, "a parameter that is not a pointer cannot be in %s memory",
                 ps.space == KL_SPACE_GLOBAL  ? "__global"
                 : ps.space == KL_SPACE_LOCAL ? "__local"
                                              : "__constant");
      if (pt->kind == KL_TYPE_VOID) {
        kl_error(ctx, param_at, "a parameter cannot have type void");
      }
      if (pt->kind == KL_TYPE_STRUCT && !pt->members)
        kl_error(ctx, param_at, "a parameter of an incomplete type");
      if (ps.implicit_int) implicit_int_warning(p, pname, param_at);
      kl_token fake = *p->tok;
      if (!pname) {
        fake.text = "";
        fake.length = 0;
        fake.location = param_at;
        fake.expanded_from = (kl_location){0};
        pname = &fake;
      }
      kl_variable *v = kp_new_variable(p, pname, pt, KL_SPACE_PRIVATE);
      pt = kp_view_declare(p, v);
      v->is_parameter = true;
      if (pname != &fake) {
        sym *s;
        kp_declare_name(p, pname, &s);
        s->variable = v;
      }
      tail->next = v;
      tail = v;
      count++;
      if (count > 128) {
        kl_error(ctx, param_at, "too many parameters");
        kl_bail(ctx);
      }
    } while (kp_accept(p, ",") && !p->panic);
  }
  kp_expect(p, ")", "after the parameters");
  while (kp_is(p, "__attribute__")) kp_attribute(p, spec);

  /* the function itself, in the program scope (so the body can see it for recursion checks) */
  scope *inner = p->scope;
  p->scope = inner->parent;
  sym *s = kp_find_sym_here(p, name->text, name->length);
  kl_function *f = NULL;
  if (s && s->function) {
    f = s->function;
    if (!same_signature(f, rt, head.next, count))
      kl_error(ctx, at, "conflicting types for '%s'", fname);
    if (f->is_kernel != spec->is_kernel)
      kl_error(ctx, at, "'%s' declared both as a kernel and as a function", fname);
  } else if (s) {
    kl_error(ctx, at, "redefinition of '%s' as a function", fname);
  }
  bool new_function = !f;
  if (!f) {
    f = kl_alloc(ctx, sizeof *f);
    f->name = fname;
    f->location = at;
    f->return_type = rt;
    f->is_kernel = spec->is_kernel;
    s = kp_add_sym(p, name->text, name->length);
    s->function = f;
  }
  p->scope = inner;
  if (spec->has_reqd) {
    if (!spec->is_kernel)
      kl_error(ctx, spec->reqd_at, "reqd_work_group_size applies to kernels only");
    f->has_required_work_group_size = true;
    memcpy(f->required_work_group_size, spec->reqd, sizeof spec->reqd);
  }
  if (spec->is_kernel && rt->kind != KL_TYPE_VOID)
    kl_error(ctx, at, "kernel function '%s' must return void, not '%s'", fname,
             kp_type_name(p, rt));
  if (rt->kind == KL_TYPE_ARRAY) kl_error(ctx, at, "a function cannot return an array");
  if (spec->has_space) kl_error(ctx, at, "a function cannot have an address space");
  if (spec->is_typedef) kl_error(ctx, at, "function typedefs are not supported");

  if (kp_is(p, "{")) {
    if (f->body) kl_error(ctx, at, "redefinition of '%s'", fname);
    f->params = head.next; /* the definition's names */
    f->param_count = count;
    f->location = at;
    if (spec->is_kernel)
      for (kl_variable *v = f->params; v; v = v->next) check_kernel_param(p, f, v);
    for (kl_variable *v = f->params; v; v = v->next)
      if (!v->name[0])
        kl_error(ctx, v->location, "a parameter of a function definition needs a name");
    p->function = f;
    p->parameter_scope = p->scope;
    p->locals_tail = NULL;
    f->locals = NULL;
    p->loop_depth = p->switch_depth = 0;
    p->current_switch = NULL;
    kl_node *body = kp_compound(p, false);
    f->body = body ? body : kp_new_node(p, KL_STMT_COMPOUND, at);
    p->function = NULL;
    p->parameter_scope = NULL;
  } else {
    if (new_function) {
      f->params = head.next;
      f->param_count = count;
    }
    kp_expect(p, ";", "after the function declaration");
  }
  kp_pop_scope(p);
  if (new_function) {
    if (p->functions_tail)
      p->functions_tail->next = f;
    else
      p->program->functions = f;
    p->functions_tail = f;
  }
}

static void program_variable(parser *p, decl_spec *spec, kl_type *type, kl_token *name) {
  kl_context *ctx = p->ctx;
  int unsized = 0;
  type = kp_array_suffix(p, type, &unsized);
  if (spec->is_typedef && type->kind == KL_TYPE_STRUCT && type->name &&
      strncmp(type->name, "__anon", 6) == 0)
    type->name = kl_strndup(ctx, name->text, (size_t)name->length);
  type = kp_declarator_attributes(p, spec, type, name);
  if (spec->is_typedef) {
    sym *s;
    kp_declare_name(p, name, &s);
    s->typedef_type = type;
    return;
  }
  kl_location at = kl_token_where(name);
  bool is_constant = spec->has_space && spec->space == KL_SPACE_CONSTANT;
  if (type->kind == KL_TYPE_POINTER) {
    kl_error(ctx, at, "program-scope pointers are not supported");
  } else if (!is_constant) {
    kl_error(ctx, at, "program-scope variables must be __constant in OpenCL C 1.2 ('%.*s')",
             name->length, name->text);
  }
  kp_check_variable_type(p, type, at, name);
  if (type->kind == KL_TYPE_STRUCT || type->kind == KL_TYPE_ARRAY)
    check_shared_struct(
        p, type, at,
        kl_format(ctx, "a struct in __constant memory ('%.*s')", name->length, name->text));
  type = kl_type_qualified(ctx, type, type->qualifiers | KL_QUALIFIER_CONST);
  kl_variable *v = kp_new_variable(p, name, type, KL_SPACE_CONSTANT);
  v->is_program_scope = true;
  sym *s;
  kp_declare_name(p, name, &s);
  if (kp_accept(p, "=")) {
    kl_location init_at = kp_here(p);
    if (unsized && kp_is(p, "{")) {
      v->initializer = kp_unsized_array_init(p, type->element, KL_QUALIFIER_CONST);
      v->type = v->initializer->type;
    } else {
      v->initializer = kp_initializer(p, type, 0);
    }
    (void)init_at;
  } else {
    if (is_constant)
      kl_error(ctx, at, "__constant variable '%.*s' needs an initializer", name->length,
               name->text);
    if (unsized) kl_error(ctx, at, "the array needs a size");
  }
  s->variable = v;
  if (p->constants_tail)
    p->constants_tail->next = v;
  else
    p->program->constants = v;
  p->constants_tail = v;
}

static void external_declaration(parser *p) {
  decl_spec spec;
  kl_location at = kp_here(p);
  if (!kp_is_type_start(p, p->tok)) {
    if (p->tok->kind == KL_TOKEN_IDENTIFIER && p->tok->next->kind == KL_TOKEN_IDENTIFIER)
      kp_syntax_error_at(
          p, at, kl_format(p->ctx, "unknown type name '%.*s'", p->tok->length, p->tok->text), NULL);
    else
      kp_syntax_error_at(p, at, "expected a declaration, found ", kp_token_text(p, p->tok));
    kp_advance(p);
    return;
  }
  kp_declspec(p, &spec, true);
  if (kp_accept(p, ";")) return; /* struct declaration */
  for (bool first = true; !p->panic; first = false) {
    if (!first && !kp_accept(p, ",")) break;
    kl_token *name = NULL;
    kl_type *base = kl_type_qualified(p->ctx, spec.type, spec.qualifiers | spec.type->qualifiers);
    p->in_typedef = spec.is_typedef;
    kl_type *type =
        kp_declarator(p, base, spec.has_space ? spec.space : KL_SPACE_PRIVATE, &name, false);
    p->in_typedef = false;
    if (!name) {
      kp_syntax_error_at(p, kp_here(p), "expected a name, found ", kp_token_text(p, p->tok));
      return;
    }
    if (kp_is(p, "(")) {
      /* An address space in the specifiers belongs to a returned pointer's pointee. */
      spec.has_space = spec.has_space && type->kind != KL_TYPE_POINTER;
      function_declaration(p, &spec, type, name);
      return;
    }
    if (spec.is_kernel)
      kl_error(p->ctx, kl_token_where(name), "'__kernel' applies to functions only");
    program_variable(p, &spec, type, name);
  }
  kp_expect(p, ";", "after the declaration");
}

/* The depth of every tree the parser built, measured without recursion
 * before any recursive walker (check.c, the emitters, eval) sees it. The
 * parser's own nesting cap counts its recursion, not the tree: a chain
 * such as a + b + c + ... or v.xyzw.xyzw... is parsed by a loop but is a
 * tree one level deeper per operator. Deeper than KL_MAX_TREE_DEPTH is an
 * error at the statement holding it. */
typedef struct {
  const kl_node *node;
  int depth;
  const kl_node *statement; /* the nearest statement above, for the message */
} tree_item;

typedef struct {
  kl_context *ctx;
  tree_item *items;
  size_t count, capacity;
} tree_walk;

static void tree_push(tree_walk *w, const kl_node *n, int depth, const kl_node *statement,
                      bool list) {
  for (; n; n = list ? n->next : NULL) {
    if (w->count == w->capacity) {
      size_t capacity = w->capacity ? 2 * w->capacity : 256;
      tree_item *bigger = kl_alloc(w->ctx, capacity * sizeof *bigger);
      if (w->count) memcpy(bigger, w->items, w->count * sizeof *bigger);
      w->items = bigger;
      w->capacity = capacity;
    }
    w->items[w->count++] = (tree_item){n, depth, statement};
  }
}

/* False (after the error) when a tree under `root` is too deep. */
static bool check_tree_depth(tree_walk *w, const kl_node *root, kl_location fallback) {
  w->count = 0;
  tree_push(w, root, 0, NULL, false);
  while (w->count) {
    tree_item it = w->items[--w->count];
    const kl_node *n = it.node;
    bool statement = n->kind >= KL_STMT_COMPOUND && n->kind <= KL_STMT_EMPTY;
    if (statement) it.statement = n;
    if (it.depth > KL_MAX_TREE_DEPTH) {
      kl_limit_error(
          w->ctx, it.statement ? it.statement->location : fallback,
          "expression nested too deeply (more than %d levels, each operator of a chain "
          "such as a + b + c or v.xyzw.xyzw one level): split it into several statements",
          KL_MAX_TREE_DEPTH);
      return false;
    }
    int d = it.depth + 1;
    tree_push(w, n->lhs, d, it.statement, false);
    tree_push(w, n->rhs, d, it.statement, false);
    tree_push(w, n->condition, d, it.statement, false);
    tree_push(w, n->then, d, it.statement, true);
    tree_push(w, n->otherwise, d, it.statement, true);
    tree_push(w, n->init, d, it.statement, true);
    tree_push(w, n->increment, d, it.statement, false);
    tree_push(w, n->body, d, it.statement, true);
    tree_push(w, n->args, d, it.statement, true);
    if (n->kind == KL_STMT_DECLARATION && n->variable)
      tree_push(w, n->variable->initializer, d, it.statement, false);
  }
  return true;
}

static void check_tree_depths(kl_context *ctx, kl_program *program) {
  tree_walk w = {.ctx = ctx};
  for (kl_variable *v = program->constants; v; v = v->next)
    if (v->initializer) check_tree_depth(&w, v->initializer, v->location);
  for (kl_function *f = program->functions; f; f = f->next)
    if (f->body) check_tree_depth(&w, f->body, f->location);
}

kl_program *kl_parse(kl_context *ctx, kl_token *tokens) {
  parser p = {.ctx = ctx, .tok = tokens};
  p.program = kl_alloc(ctx, sizeof *p.program);
  kp_push_scope(&p);
  while (p.tok->kind != KL_TOKEN_END) {
    external_declaration(&p);
    if (p.panic) {
      /* skip to a likely start of the next declaration */
      int level = 0;
      while (p.tok->kind != KL_TOKEN_END) {
        if (kp_is(&p, "{"))
          level++;
        else if (kp_is(&p, "}")) {
          level--;
          if (level <= 0) {
            kp_advance(&p);
            kp_accept(&p, ";");
            break;
          }
        } else if (level == 0 && kp_is(&p, ";")) {
          kp_advance(&p);
          break;
        }
        kp_advance(&p);
      }
      p.panic = false;
    }
  }
  for (kl_function *f = p.program->functions; f; f = f->next)
    if (!f->body && f->is_kernel)
      kl_error(ctx, f->location, "kernel '%s' is declared but not defined", f->name);
  check_tree_depths(ctx, p.program);
  return p.program;
}
