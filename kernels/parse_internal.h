// SPDX-License-Identifier: Apache-2.0
/* Private to the parser's files (parse*.c): the parser's state and the
 * grammar functions one file calls in another. Each grammar file holds one
 * part of the language: parse_base.c (tokens, scopes, constant folding,
 * conversions), parse_types.c (declaration specifiers and declarators),
 * parse_expr.c (primary, postfix, unary and cast expressions),
 * parse_operators.c (binary, conditional and assignment operators),
 * parse_stmt.c (local declarations, initialisers, statements), parse.c
 * (program scope: functions, kernels, program-scope variables). */
#ifndef AGPU_PARSE_INTERNAL_H
#define AGPU_PARSE_INTERNAL_H

#include "builtins.h"
#include "kl_front.h"

typedef struct sym {
  const char *name;
  int length;
  kl_variable *variable;
  kl_type *typedef_type;
  kl_function *function;
  bool is_enumerator; /* an enumeration constant: an int of value `enumerator` */
  int64_t enumerator;
  struct sym *next;
} sym;

typedef struct tag {
  const char *name;
  int length;
  kl_type *type;
  struct tag *next;
} tag;

typedef struct scope {
  struct scope *parent;
  sym *syms;
  tag *tags;
} scope;

typedef struct parser {
  kl_context *ctx;
  kl_token *tok;
  kl_token *prev;
  scope *scope;
  kl_program *program;
  kl_function *function;
  kl_variable *locals_tail;
  kl_function *functions_tail;
  kl_variable *constants_tail;
  int depth;
  int loop_depth, switch_depth;
  kl_node *current_switch;
  bool panic;          /* after a syntax error, until the next statement boundary */
  kl_token *decl_name; /* the name being declared, where array size errors are reported */
  bool in_typedef;     /* declaring a typedef: a pointer to a pointer is refused where used */
  kl_address_space declared_space; /* kp_declarator: `* __local name` puts name in __local */
  int struct_capacity;
  int anonymous_structs;
  uint64_t padded_scalars; /* zeros written out by pad_list, bounded by PADDING_BUDGET */
  kl_node *hoisted;        /* compound literals' temporaries for the statement being parsed */
  bool hoist_open;         /* a statement that can take them is being parsed */
  int hoist_blocked;       /* inside operands of &&, || or ?: */
  int compound_literals;
  bool in_parameter;      /* kp_declspec reads a parameter's specifiers: implicit int allowed */
  scope *parameter_scope; /* the function's parameters, while its body is parsed */
  kl_printf_format *printf_tail; /* the program's last printf format */
} parser;

typedef struct decl_spec {
  kl_type *type;
  unsigned qualifiers;
  bool has_space;
  kl_address_space space;
  bool is_typedef, is_kernel, is_inline, is_static;
  bool has_reqd;
  uint32_t reqd[3];
  kl_location reqd_at;
  kl_location at;
  bool implicit_int; /* a parameter's specifiers named no type: 'int' (C89's implicit int) */
  int aligned;       /* __attribute__((aligned(N))): N, else 0 */
  bool packed;       /* __attribute__((packed)) */
  int64_t max_constant_size; /* __attribute__((max_constant_size(N))): N, else 0 */
  kl_location aligned_at, max_constant_at;
} decl_spec;

typedef struct kp_hoist {
  kl_node *head;
  bool open;
  int blocked;
} kp_hoist;

kl_location kp_here(parser *p);
bool kp_is(parser *p, const char *text);
void kp_advance(parser *p);
bool kp_accept(parser *p, const char *text);
void kp_syntax_error_at(parser *p, kl_location at, const char *message, const char *detail);
const char *kp_token_text(parser *p, const kl_token *t);
void kp_expect(parser *p, const char *text, const char *context);
void kp_enter_depth(parser *p);
void kp_leave_depth(parser *p);
kl_node *kp_new_node(parser *p, kl_node_kind kind, kl_location at);
kl_type *kp_int_type(parser *p);
kl_location kp_expr_start(const kl_node *n);
kl_node *kp_new_int(parser *p, uint64_t value, kl_type *type, kl_location at);
kl_node *kp_error_expr(parser *p, kl_location at);
const char *kp_type_name(parser *p, const kl_type *t);
void kp_push_scope(parser *p);
void kp_pop_scope(parser *p);
sym *kp_find_sym(parser *p, const char *name, int length);
sym *kp_find_sym_here(parser *p, const char *name, int length);
sym *kp_add_sym(parser *p, const char *name, int length);
tag *kp_find_tag(parser *p, const char *name, int length, bool here_only);
uint64_t kp_wrap_to(const kl_type *type, uint64_t v);
bool kp_eval(kl_context *ctx, const kl_node *n, int64_t *out, int depth);
bool kp_is_null_constant(parser *p, const kl_node *n);
bool kp_is_bool_or_arith(const kl_type *t);
kl_node *kp_decay(parser *p, kl_node *n);
kl_address_space kp_lvalue_space(const kl_node *n);
kl_node *kp_assign_convert(parser *p, kl_node *n, kl_type *to, kl_location at, const char *what);
bool kp_tok_is(const kl_token *t, const char *text);
const char *kp_image_name_kind(const kl_token *t);
bool kp_is_type_start(parser *p, const kl_token *t);
void kp_skip_parens(parser *p);
void kp_attribute(parser *p, decl_spec *spec);
void kp_attributes(parser *p, decl_spec *spec);
kl_type *kp_declarator_attributes(parser *p, decl_spec *spec, kl_type *type, kl_token *name);
void kp_layout_struct(parser *p, kl_type *type, const decl_spec *attributes);
void kp_declspec(parser *p, decl_spec *spec, bool allow_storage);
kl_type *kp_array_suffix(parser *p, kl_type *base, int *unsized);
kl_type *kp_declarator(parser *p, kl_type *base, kl_address_space pointee_space, kl_token **name,
                       bool is_param);
bool kp_check_scalar_condition(parser *p, kl_node *n, const char *what);
bool kp_is_modifiable(parser *p, kl_node *n, const char *what);
kl_node *kp_vector_part(parser *p, kl_type *type, bool in_braces, int *components);
kl_node *kp_unary(parser *p);
kl_node *kp_cast_expr(parser *p);
bool kp_is_integer_like(const kl_type *t);
kl_node *kp_new_binary(parser *p, kl_operator op, kl_node *lhs, kl_node *rhs, kl_location at);
kl_node *kp_new_unary(parser *p, kl_operator op, kl_node *x, kl_location at);
kl_node *kp_conditional(parser *p);
kl_node *kp_assignment(parser *p);
kl_node *kp_expression(parser *p);
int kp_escape(parser *p, const char **cursor, const char *end, kl_location at);
/* parse_printf.c: `printf(...);` as a statement, lowered to ordinary code
 * that appends a record to the function's printf buffer; and that buffer,
 * the current function's hidden last parameter, made on first use. */
kl_node *kp_printf_statement(parser *p);
kl_variable *kp_printf_buffer(parser *p);
kl_variable *kp_new_variable(parser *p, kl_token *name, kl_type *type, kl_address_space space);
void kp_declare_name(parser *p, kl_token *name, sym **out);
kl_node *kp_init_list(parser *p, kl_type *type, int depth);
kl_node *kp_unsized_array_init(parser *p, kl_type *element, unsigned qualifiers);
void kp_pad_list(parser *p, kl_node *list, int depth);
kl_node *kp_initializer(parser *p, kl_type *type, int depth);
void kp_check_pointer_depth(parser *p, const kl_type *type, kl_location at);
void kp_check_variable_type(parser *p, kl_type *type, kl_location at, kl_token *name);
kl_node *kp_statement(parser *p);
kl_node *kp_compound(parser *p, bool new_scope);
void kp_hoist_open(parser *p, kp_hoist *saved);
kl_node *kp_hoist_close(parser *p, kp_hoist *saved, kl_node *n, bool is_declaration);
kl_node *kp_compound_literal(parser *p, kl_type *type, kl_location at);
bool kp_is_pointer_to_array(const kl_type *t);
kl_type *kp_view_flat(parser *p, const kl_type *t);
kl_node *kp_view_cast(parser *p, kl_type *type, kl_node *x, kl_location at,
                      kl_node *(*cast)(parser *, kl_type *, kl_node *, kl_location));
kl_node *kp_view_index(parser *p, kl_node *base, kl_node *index, kl_location at);
kl_type *kp_view_declare(parser *p, kl_variable *v);
void kp_view_check_init(parser *p, const kl_variable *v, const kl_node *init);
void kp_view_escapes(parser *p, const kl_node *n);

#endif /* AGPU_PARSE_INTERNAL_H */
