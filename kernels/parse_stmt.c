// SPDX-License-Identifier: Apache-2.0
/* Local declarations, initialisers and statements (parse_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"

/* -------------------------------------------------------- declarations */

kl_variable *kp_new_variable(parser *p, kl_token *name, kl_type *type, kl_address_space space) {
  kl_variable *v = kl_alloc(p->ctx, sizeof *v);
  v->name = kl_strndup(p->ctx, name->text, (size_t)name->length);
  v->type = type;
  v->space = space;
  v->location = kl_token_where(name);
  v->id = p->ctx->next_variable_id++;
  return v;
}

void kp_declare_name(parser *p, kl_token *name, sym **out) {
  sym *old = kp_find_sym_here(p, name->text, name->length);
  if (old) {
    kl_error(p->ctx, kl_token_where(name), "redefinition of '%.*s'", name->length, name->text);
  }
  *out = kp_add_sym(p, name->text, name->length);
}

/* `T a[] = {...}`: the list, typed as the array of its length (qualified). */
kl_node *kp_unsized_array_init(parser *p, kl_type *element, unsigned qualifiers) {
  kl_node *list = kp_init_list(p, kl_type_array(p->ctx, element, 0), 0);
  int n = list->arg_count > 0 ? list->arg_count : 1;
  list->type = kl_type_array(p->ctx, element, n);
  if (qualifiers) list->type = kl_type_qualified(p->ctx, list->type, qualifiers);
  kp_pad_list(p, list, 0);
  return list;
}

/* initializer-list = "{" (initializer ("," initializer)* ","?)? "}" */
kl_node *kp_init_list(parser *p, kl_type *type, int depth) {
  kl_location at = kp_here(p);
  if (depth > 32) {
    kl_limit_error(p->ctx, at, "initializer nested too deeply");
    kl_bail(p->ctx);
  }
  kp_advance(p); /* { */
  kl_node *list = kp_new_node(p, KL_EXPR_INIT_LIST, at);
  list->type = type;
  kl_node head = {0}, *tail = &head;
  int count = 0;
  if (type->kind == KL_TYPE_ARRAY) {
    while (!kp_is(p, "}") && !p->panic && p->tok->kind != KL_TOKEN_END) {
      kl_node *e = kp_initializer(p, type->element, depth + 1);
      if (type->length && count >= type->length) {
        if (count == type->length)
          kl_error(p->ctx, e->location, "too many initializers for '%s'", kp_type_name(p, type));
      } else {
        tail->next = e;
        tail = e;
      }
      count++;
      if (!kp_accept(p, ",")) break;
    }
  } else if (type->kind == KL_TYPE_STRUCT) {
    kl_member *m = type->members;
    while (!kp_is(p, "}") && !p->panic && p->tok->kind != KL_TOKEN_END) {
      if (!m) {
        kl_error(p->ctx, kp_here(p), "too many initializers for '%s'", kp_type_name(p, type));
        while (!kp_is(p, "}") && p->tok->kind != KL_TOKEN_END) {
          if (kp_is(p, "{"))
            kp_skip_parens(p);
          else
            kp_advance(p);
        }
        break;
      }
      kl_node *e = kp_initializer(p, m->type, depth + 1);
      tail->next = e;
      tail = e;
      count++;
      m = type->is_union ? NULL : m->next; /* a union's list sets its first member */
      if (!kp_accept(p, ",")) break;
    }
  } else {
    kl_error(p->ctx, at, "braces around a scalar initializer");
    while (!kp_is(p, "}") && p->tok->kind != KL_TOKEN_END) kp_advance(p);
  }
  kp_expect(p, "}", "to close the initializer");
  list->args = head.next;
  list->arg_count = count;
  return list;
}

/* Pads a brace list to the full aggregate with zeros, so that emitters see
 * one element per array element or member. */
static kl_node *zero_value(parser *p, kl_type *type, kl_location at, int depth);

/* Zeros are written out (one node each) up to these many scalars per brace
 * list and per translation; GLSL, which cannot express an implicit tail of
 * arrays or structs, refuses what is left implicit beyond them. */
enum { PADDING_PER_LIST = 65536, PADDING_BUDGET = 1 << 20 };

/* How many scalars an object of TYPE holds, saturating far above any limit. */
static uint64_t scalar_count(const kl_type *type) {
  if (type->kind == KL_TYPE_ARRAY) {
    uint64_t inner = scalar_count(type->element),
             length = type->length > 0 ? (uint64_t)type->length : 0;
    return inner && length > (UINT64_C(1) << 40) / inner ? UINT64_C(1) << 40 : inner * length;
  }
  if (type->kind == KL_TYPE_STRUCT) {
    uint64_t sum = 0;
    for (const kl_member *m = type->members; m && sum < (UINT64_C(1) << 40);
         m = type->is_union ? NULL : m->next)
      sum += scalar_count(m->type);
    return sum;
  }
  return 1;
}

void kp_pad_list(parser *p, kl_node *list, int depth) {
  kl_type *type = list->type;
  if (depth > 32) return;
  int wanted = 0;
  if (type->kind == KL_TYPE_ARRAY)
    wanted = type->length;
  else if (type->kind == KL_TYPE_STRUCT)
    for (kl_member *m = type->members; m; m = type->is_union ? NULL : m->next) wanted++;
  kl_node *tail = NULL;
  int count = 0;
  for (kl_node *e = list->args; e; e = e->next) {
    tail = e;
    count++;
  }
  kl_member *m = type->kind == KL_TYPE_STRUCT ? type->members : NULL;
  for (int i = 0; i < count && m; i++) m = m->next;
  uint64_t tail_scalars =
      type->kind == KL_TYPE_ARRAY ? (uint64_t)(wanted - count) * scalar_count(type->element) : 0;
  if (type->kind == KL_TYPE_ARRAY &&
      (tail_scalars > PADDING_PER_LIST || p->padded_scalars + tail_scalars > PADDING_BUDGET)) {
    /* large zero tails stay implicit: arg_count < length means "the rest are
     * zero" (counted in scalars, so that int g[4096][4096] = {{1}} does not
     * become millions of nodes) */
    list->arg_count = count;
    return;
  }
  p->padded_scalars += tail_scalars;
  for (; count < wanted; count++) {
    kl_type *et = type->kind == KL_TYPE_ARRAY ? type->element : m->type;
    if (m) m = m->next;
    kl_node *z = zero_value(p, et, list->location, depth + 1);
    if (tail)
      tail->next = z;
    else
      list->args = z;
    tail = z;
  }
  list->arg_count = count;
}

static kl_node *zero_value(parser *p, kl_type *type, kl_location at, int depth) {
  if (type->kind == KL_TYPE_ARRAY || type->kind == KL_TYPE_STRUCT) {
    kl_node *list = kp_new_node(p, KL_EXPR_INIT_LIST, at);
    list->type = type;
    kp_pad_list(p, list, depth);
    return list;
  }
  return kl_convert(p->ctx, kp_new_int(p, 0, NULL, at), type);
}

/* {a, b, ...} for a vector, as OpenCL C takes it: the parts are scalars
 * (converted to the element type) and vectors of the element type whose
 * components add up to the length, exactly as in a vector literal; {} is
 * zero. The result is the vector literal, so every emitter prints it. */
static kl_node *vector_init_list(parser *p, kl_type *type) {
  kl_location at = kp_here(p);
  kp_advance(p); /* { */
  if (kp_accept(p, "}")) {
    /* {}: a literal of zeros (which a __constant__ table in CUDA can hold) */
    kl_node *n = kp_new_node(p, KL_EXPR_VECTOR_LITERAL, at);
    kl_node head = {0}, *tail = &head;
    for (int i = 0; i < type->length; i++) {
      tail->next = zero_value(p, type->element, at, 0);
      tail = tail->next;
    }
    n->args = head.next;
    n->arg_count = type->length;
    n->type = type;
    return n;
  }
  kl_node head = {0}, *tail = &head;
  int count = 0, components = 0;
  while (!kp_is(p, "}") && !p->panic && p->tok->kind != KL_TOKEN_END) {
    if (kp_is(p, "{")) {
      kl_error(p->ctx, kp_here(p),
               "braces inside the initializer of a '%s': its parts are scalars "
               "and vectors",
               kp_type_name(p, type));
      kp_skip_parens(p);
      if (!kp_accept(p, ",")) break;
      continue;
    }
    kl_node *part = kp_vector_part(p, type, true, &components);
    tail->next = part;
    tail = part;
    count++;
    if (!kp_accept(p, ",")) break;
  }
  kp_expect(p, "}", "to close the initializer");
  if (count == 1 && kl_type_equal(head.next->type, type)) return head.next;
  if (components != type->length && !p->panic)
    kl_error(p->ctx, at, "%s elements in the initializer of a '%s': it needs %d, %d given",
             components < type->length ? "too few" : "too many", kp_type_name(p, type),
             type->length, components);
  kl_node *n = kp_new_node(p, KL_EXPR_VECTOR_LITERAL, at);
  n->args = head.next;
  n->arg_count = count;
  n->type = type;
  return n;
}

/* initializer = initializer-list | assignment */
kl_node *kp_initializer(parser *p, kl_type *type, int depth) {
  if (kp_is(p, "{") && type->kind == KL_TYPE_VECTOR) return vector_init_list(p, type);
  if (kp_is(p, "{")) {
    kl_node *list = kp_init_list(p, type, depth);
    if (type->kind == KL_TYPE_ARRAY || type->kind == KL_TYPE_STRUCT) kp_pad_list(p, list, depth);
    return list;
  }
  kl_location at = kp_here(p);
  kl_node *e = kp_assignment(p);
  if (type->kind == KL_TYPE_ARRAY) {
    kl_error(p->ctx, at, "an array needs a brace-enclosed initializer");
    return e;
  }
  kl_node *c = kp_assign_convert(p, e, type, at, "initialization");
  return c ? c : e;
}

/* A pointer to a pointer, from a typedef (declared freely: host headers
 * shared with kernels have them) where it is used. */
void kp_check_pointer_depth(parser *p, const kl_type *type, kl_location at) {
  for (; type && type->kind == KL_TYPE_ARRAY; type = type->element) {
  }
  if (type && type->kind == KL_TYPE_POINTER && type->element->kind == KL_TYPE_POINTER)
    kl_error(p->ctx, at, "pointer to pointer types are not supported");
}

void kp_check_variable_type(parser *p, kl_type *type, kl_location at, kl_token *name) {
  kp_check_pointer_depth(p, type, at);
  if (type->kind == KL_TYPE_VOID)
    kl_error(p->ctx, at, "variable '%.*s' has type 'void'", name->length, name->text);
  if (type->kind == KL_TYPE_STRUCT && !type->members)
    kl_error(p->ctx, at, "variable '%.*s' has an incomplete type '%s'", name->length, name->text,
             kp_type_name(p, type));
}

/* A declaration statement inside a function: returns a list of
 * KL_STMT_DECLARATION (through next). */
static kl_node *local_declaration(parser *p) {
  decl_spec spec;
  kl_location at = kp_here(p);
  kp_declspec(p, &spec, true);
  if (spec.is_kernel) kl_error(p->ctx, at, "a kernel cannot be declared inside a function");
  if (spec.has_reqd) kl_error(p->ctx, spec.reqd_at, "reqd_work_group_size applies to kernels only");
  kl_node head = {0}, *tail = &head;
  if (kp_accept(p, ";")) return kp_new_node(p, KL_STMT_EMPTY, at); /* struct declaration */
  kl_address_space space = spec.has_space ? spec.space : KL_SPACE_PRIVATE;
  for (bool first = true; !p->panic; first = false) {
    if (!first && !kp_accept(p, ",")) break;
    kl_token *name = NULL;
    kl_type *base = kl_type_qualified(p->ctx, spec.type, spec.qualifiers | spec.type->qualifiers);
    p->in_typedef = spec.is_typedef;
    kl_type *type = kp_declarator(p, base, space, &name, false);
    p->in_typedef = false;
    bool pointer_in_local = p->declared_space == KL_SPACE_LOCAL && type->kind == KL_TYPE_POINTER;
    if (!name) {
      kp_syntax_error_at(p, kp_here(p), "expected a variable name, found ",
                         kp_token_text(p, p->tok));
      break;
    }
    int unsized = 0;
    type = kp_array_suffix(p, type, &unsized);
    type = kp_declarator_attributes(p, &spec, type, name);
    if (kp_is(p, "(")) {
      kl_error(p->ctx, kp_here(p), "functions cannot be declared inside a function");
      kp_skip_parens(p);
      continue;
    }
    if (spec.is_typedef) {
      sym *s;
      kp_declare_name(p, name, &s);
      s->typedef_type = type;
      if (unsized) kl_error(p->ctx, kl_token_where(name), "the array needs a size");
      continue;
    }
    kl_address_space var_space = pointer_in_local                ? KL_SPACE_LOCAL
                                 : type->kind == KL_TYPE_POINTER ? KL_SPACE_PRIVATE
                                                                 : space;
    if (var_space == KL_SPACE_GLOBAL)
      kl_error(p->ctx, kl_token_where(name),
               "variables in a function cannot be __global: "
               "pass a __global pointer instead");
    if (var_space == KL_SPACE_CONSTANT)
      kl_error(p->ctx, kl_token_where(name),
               "__constant variables must be declared at program scope");
    if (var_space == KL_SPACE_LOCAL && p->function && !p->function->is_kernel)
      kl_error(p->ctx, kl_token_where(name),
               "__local variables can only be declared in kernel functions, "
               "not in '%s'",
               p->function->name);
    kp_check_variable_type(p, type, kl_token_where(name), name);
    if (spec.is_static) kl_error(p->ctx, at, "'static' variables are not supported");
    kl_variable *v = kp_new_variable(p, name, type, var_space);
    type = kp_view_declare(p, v);
    sym *s;
    kp_declare_name(p, name, &s);
    kl_node *decl = kp_new_node(p, KL_STMT_DECLARATION, kl_token_where(name));
    decl->variable = v;
    if (kp_accept(p, "=")) {
      if (var_space == KL_SPACE_LOCAL)
        kl_error(p->ctx, kl_token_where(name), "__local variables cannot be initialized");
      if (unsized && kp_is(p, "{")) {
        /* float a[] = {...}: the length from the list */
        v->initializer = kp_unsized_array_init(p, type->element, 0);
        v->type = type = v->initializer->type;
      } else {
        v->initializer = kp_initializer(p, type, 0);
        kp_view_check_init(p, v, v->initializer);
      }
    } else if (unsized) {
      kl_error(p->ctx, kl_token_where(name), "the array '%.*s' needs a size or an initializer",
               name->length, name->text);
    } else if (type->qualifiers & KL_QUALIFIER_CONST && type->kind != KL_TYPE_POINTER &&
               var_space == KL_SPACE_PRIVATE) {
      kl_warning(p->ctx, kl_token_where(name), "const variable '%.*s' is not initialised",
                 name->length, name->text);
    }
    s->variable = v; /* visible from here on (after its initializer) */
    if (p->function) {
      if (p->locals_tail)
        p->locals_tail->next = v;
      else
        p->function->locals = v;
      p->locals_tail = v;
    }
    tail->next = decl;
    tail = decl;
  }
  kp_expect(p, ";", "after the declaration");
  if (!head.next) return kp_new_node(p, KL_STMT_EMPTY, at);
  return head.next;
}

/* ---------------------------------------------------------- statements */

static void synchronize(parser *p) {
  /* after a syntax error: skip to the end of the statement */
  int level = 0;
  while (p->tok->kind != KL_TOKEN_END) {
    if (kp_is(p, "{")) level++;
    if (kp_is(p, "}")) {
      if (level == 0) break;
      level--;
      if (level == 0) {
        kp_advance(p);
        break;
      }
    }
    if (level == 0 && kp_is(p, ";")) {
      kp_advance(p);
      break;
    }
    kp_advance(p);
  }
  p->panic = false;
}

static kl_node *condition_in_parens(parser *p, const char *what) {
  kp_expect(p, "(", kl_format(p->ctx, "after '%s'", what));
  kl_node *c = kp_decay(p, kp_expression(p));
  kp_expect(p, ")", kl_format(p->ctx, "after the %s condition", what));
  kp_check_scalar_condition(p, c, kl_format(p->ctx, "the condition of '%s'", what));
  return c;
}

/* for-statement = "for" "(" (declaration | expression? ";") expression? ";"
 *                 expression? ")" statement */
static kl_node *for_statement(parser *p, kl_location at) {
  kl_node *n;
  n = kp_new_node(p, KL_STMT_FOR, at);
  kp_push_scope(p);
  kp_expect(p, "(", "after 'for'");
  if (kp_accept(p, ";")) {
    n->init = NULL;
  } else if (kp_is_type_start(p, p->tok)) {
    n->init = local_declaration(p);
  } else {
    kl_node *e = kp_new_node(p, KL_STMT_EXPRESSION, kp_here(p));
    e->lhs = kp_expression(p);
    n->init = e;
    kp_expect(p, ";", "after the for initialisation");
  }
  if (!kp_is(p, ";")) {
    n->condition = kp_decay(p, kp_expression(p));
    kp_check_scalar_condition(p, n->condition, "the condition of 'for'");
  }
  kp_expect(p, ";", "after the for condition");
  if (!kp_is(p, ")")) n->increment = kp_expression(p);
  kp_expect(p, ")", "after the for clauses");
  p->loop_depth++;
  n->body = kp_statement(p);
  p->loop_depth--;
  kp_pop_scope(p);
  return n;
}

/* switch-statement = "switch" "(" expression ")" statement */
static kl_node *switch_statement(parser *p, kl_location at) {
  kl_node *n;
  n = kp_new_node(p, KL_STMT_SWITCH, at);
  kp_expect(p, "(", "after 'switch'");
  kl_node *c = kp_expression(p);
  kp_expect(p, ")", "after the switch value");
  if (!kp_is_integer_like(c->type) || c->type->kind == KL_TYPE_VECTOR) {
    kl_error(p->ctx, c->location, "the switch value must be an integer, not '%s'",
             kp_type_name(p, c->type));
  } else {
    c = kl_convert(p->ctx, c, kl_type_promote(p->ctx, c->type));
  }
  n->condition = c;
  kl_node *saved = p->current_switch;
  p->current_switch = n;
  p->switch_depth++;
  n->body = kp_statement(p);
  p->switch_depth--;
  p->current_switch = saved;
  return n;
}

/* labeled-statement = ("case" constant-expression | "default") ":" statement */
static kl_node *case_label(parser *p, kl_location at) {
  kl_token *t = p->tok;
  kl_node *n;
  bool is_default = kp_tok_is(t, "default");
  kp_advance(p);
  n = kp_new_node(p, KL_STMT_CASE, at);
  n->is_default = is_default;
  kl_location value_at = at;
  if (!is_default) {
    value_at = kp_here(p);
    kl_node *v = kp_conditional(p);
    int64_t value = 0;
    if (!kl_eval_int(p->ctx, v, &value))
      kl_error(p->ctx, value_at, "case label is not an integer constant expression");
    if (p->current_switch)
      value = (int64_t)kp_wrap_to(p->current_switch->condition->type, (uint64_t)value);
    n->case_value = value;
  }
  kp_expect(p, ":", is_default ? "after 'default'" : "after the case value");
  if (!p->current_switch) {
    kl_error(p->ctx, at, "'%s' outside of a switch", is_default ? "default" : "case");
  } else {
    kl_node *sw = p->current_switch;
    kl_node **link = &sw->cases;
    for (kl_node *c = sw->cases; c; c = c->next_case) {
      if (c->is_default && is_default) kl_error(p->ctx, at, "more than one default in a switch");
      if (!c->is_default && !is_default && c->case_value == n->case_value)
        kl_error(p->ctx, value_at, "duplicate case value %lld", (long long)n->case_value);
      link = &c->next_case;
    }
    *link = n;
  }
  if (kp_is(p, "}"))
    n->body = kp_new_node(p, KL_STMT_EMPTY, kp_here(p));
  else
    n->body = kp_statement(p);
  return n;
}

/* return-statement = "return" expression? ";" */
static kl_node *return_statement(parser *p, kl_location at) {
  kl_node *n;
  n = kp_new_node(p, KL_STMT_RETURN, at);
  kl_type *rt = p->function ? p->function->return_type : kp_int_type(p);
  if (!kp_is(p, ";")) {
    kl_node *e = kp_expression(p);
    if (rt->kind == KL_TYPE_VOID) {
      if (e->type->kind != KL_TYPE_VOID)
        kl_error(p->ctx, at, "void function '%s' cannot return a value",
                 p->function ? p->function->name : "");
      n->lhs = e;
    } else {
      kl_node *c = kp_assign_convert(p, e, rt, e->location, "return");
      n->lhs = c ? c : e;
    }
  } else if (rt->kind != KL_TYPE_VOID) {
    kl_error(p->ctx, at, "non-void function '%s' must return a value of type '%s'",
             p->function ? p->function->name : "", kp_type_name(p, rt));
  }
  kp_expect(p, ";", "after the return statement");
  return n;
}

/* statement = compound | if | while | do | for | switch | labeled | break |
 *             continue | return | declaration | expression? ";" */
kl_node *kp_statement(parser *p) {
  kp_enter_depth(p);
  kl_location at = kp_here(p);
  kl_node *n;
  kl_token *t = p->tok;
  if (kp_is(p, "{")) {
    n = kp_compound(p, true);
  } else if (kp_tok_is(t, "if")) {
    kp_advance(p);
    n = kp_new_node(p, KL_STMT_IF, at);
    n->condition = condition_in_parens(p, "if");
    n->then = kp_statement(p);
    if (kp_tok_is(p->tok, "else")) {
      kp_advance(p);
      n->otherwise = kp_statement(p);
    }
  } else if (kp_tok_is(t, "while")) {
    kp_advance(p);
    n = kp_new_node(p, KL_STMT_WHILE, at);
    n->condition = condition_in_parens(p, "while");
    p->loop_depth++;
    n->body = kp_statement(p);
    p->loop_depth--;
  } else if (kp_tok_is(t, "do")) {
    kp_advance(p);
    n = kp_new_node(p, KL_STMT_DO, at);
    p->loop_depth++;
    n->body = kp_statement(p);
    p->loop_depth--;
    if (!kp_tok_is(p->tok, "while"))
      kp_syntax_error_at(p, kp_here(p), "expected 'while' after the do body, found ",
                         kp_token_text(p, p->tok));
    else
      kp_advance(p);
    n->condition = condition_in_parens(p, "do-while");
    kp_expect(p, ";", "after do-while");
  } else if (kp_tok_is(t, "for")) {
    kp_advance(p);
    n = for_statement(p, at);
  } else if (kp_tok_is(t, "switch")) {
    kp_advance(p);
    n = switch_statement(p, at);
  } else if (kp_tok_is(t, "case") || kp_tok_is(t, "default")) {
    n = case_label(p, at);
  } else if (kp_tok_is(t, "break")) {
    kp_advance(p);
    n = kp_new_node(p, KL_STMT_BREAK, at);
    if (!p->loop_depth && !p->switch_depth)
      kl_error(p->ctx, at, "'break' outside a loop or switch");
    kp_expect(p, ";", "after 'break'");
  } else if (kp_tok_is(t, "continue")) {
    kp_advance(p);
    n = kp_new_node(p, KL_STMT_CONTINUE, at);
    if (!p->loop_depth) kl_error(p->ctx, at, "'continue' outside a loop");
    kp_expect(p, ";", "after 'continue'");
  } else if (kp_tok_is(t, "return")) {
    kp_advance(p);
    kp_hoist saved;
    kp_hoist_open(p, &saved);
    n = kp_hoist_close(p, &saved, return_statement(p, at), false);
  } else if (kp_tok_is(t, "goto")) {
    kl_error(p->ctx, at, "goto is not supported (structured control flow only)");
    kp_advance(p);
    while (!kp_is(p, ";") && p->tok->kind != KL_TOKEN_END && !kp_is(p, "}")) kp_advance(p);
    kp_accept(p, ";");
    n = kp_new_node(p, KL_STMT_EMPTY, at);
  } else if (kp_tok_is(t, "printf") && kl_token_is(t->next, "(") &&
             !kp_find_sym(p, t->text, t->length)) {
    n = kp_printf_statement(p);
  } else if (kp_accept(p, ";")) {
    n = kp_new_node(p, KL_STMT_EMPTY, at);
  } else if (t->kind == KL_TOKEN_IDENTIFIER && kl_token_is(t->next, ":") &&
             !kp_is_type_start(p, t) && !kp_find_sym(p, t->text, t->length)) {
    kl_warning(p->ctx, at, "label '%.*s' is ignored: goto is not supported", t->length, t->text);
    kp_advance(p);
    kp_advance(p);
    n = kp_new_node(p, KL_STMT_EMPTY, at);
  } else if (kp_is_type_start(p, t)) {
    kp_hoist saved;
    kp_hoist_open(p, &saved);
    n = kp_hoist_close(p, &saved, local_declaration(p), true);
  } else if (t->kind == KL_TOKEN_IDENTIFIER && t->next->kind == KL_TOKEN_IDENTIFIER &&
             !kp_find_sym(p, t->text, t->length) &&
             !kl_builtin_lookup(p->ctx, t->text, t->length, NULL)) {
    kp_syntax_error_at(p, at, kl_format(p->ctx, "unknown type name '%.*s'", t->length, t->text),
                       NULL);
    n = kp_new_node(p, KL_STMT_EMPTY, at);
  } else {
    kp_hoist saved;
    kp_hoist_open(p, &saved);
    n = kp_new_node(p, KL_STMT_EXPRESSION, at);
    n->lhs = kp_expression(p);
    kp_expect(p, ";", "after the expression");
    n = kp_hoist_close(p, &saved, n, false);
  }
  if (p->panic) synchronize(p);
  kp_leave_depth(p);
  return n;
}

/* compound-statement = "{" (declaration | statement)* "}" */
kl_node *kp_compound(parser *p, bool new_scope) {
  kl_location at = kp_here(p);
  kl_node *n = kp_new_node(p, KL_STMT_COMPOUND, at);
  if (!kp_accept(p, "{")) {
    kp_syntax_error_at(p, at, "expected '{', found ", kp_token_text(p, p->tok));
    return n;
  }
  if (new_scope) kp_push_scope(p);
  kl_node head = {0}, *tail = &head;
  while (!kp_is(p, "}") && p->tok->kind != KL_TOKEN_END) {
    kl_node *s = kp_statement(p);
    tail->next = s;
    while (tail->next) tail = tail->next;
  }
  if (p->tok->kind == KL_TOKEN_END)
    kl_error(p->ctx, at, "expected '}' to close this block, found end of input");
  kp_accept(p, "}");
  if (new_scope) kp_pop_scope(p);
  n->body = head.next;
  return n;
}
