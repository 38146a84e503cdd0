// SPDX-License-Identifier: Apache-2.0
/* The kernel language front end: what its passes share.
 *
 * Pipeline: source -> tokens (lex.c) -> preprocessed tokens (preprocess.c)
 * -> typed AST (parse.c, with types in type.c and builtins in builtins.c)
 * -> checks (check.c) -> one emitter per target (emit_*.c).
 *
 * Everything a translation allocates lives in its kl_context's arena and is
 * freed at once with kl_context_destroy; the translator holds no global
 * mutable state, so translations on different threads are independent.
 * The prefix kl_ stands for "kernel language".
 */
#ifndef AGPU_KL_H
#define AGPU_KL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ context */

typedef struct kl_arena kl_arena;
typedef struct kl_context kl_context;

void *kl_alloc(kl_context *ctx, size_t size); /* zeroed; never NULL (see kl_context) */
char *kl_strndup(kl_context *ctx, const char *text, size_t length);
char *kl_format(kl_context *ctx, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------- source */

typedef struct kl_source {
  const char *name; /* as shown in diagnostics */
  const char *text; /* NUL-terminated copy */
  size_t length;
  /* #include (include.c): whether `name` is a file's path (includes are then
   * looked for next to it first), how deep it was included (the main source
   * is 0), and the #include that read it. */
  bool is_file;
  int include_depth;
  const struct kl_source *included_from;
  int included_at_line;
} kl_source;

typedef struct kl_location {
  const kl_source *source;
  int line;   /* 1-based */
  int column; /* 1-based, in bytes */
} kl_location;

/* -------------------------------------------------------- diagnostics */

typedef enum kl_severity { KL_NOTE, KL_WARNING, KL_ERROR } kl_severity;

typedef struct kl_diagnostic {
  kl_severity severity;
  kl_location location;
  const char *message;
  struct kl_diagnostic *next;
} kl_diagnostic;

/* Records "file:line:col: error: message" with the source line and a caret.
 * After too many errors the translation stops (kl_context says how). */
void kl_error(kl_context *ctx, kl_location at, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void kl_warning(kl_context *ctx, kl_location at, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void kl_note(kl_context *ctx, kl_location at, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* An error that is one of the translator's own limits (nesting depth,
 * expansion size, source size), not a refusal of the language: recorded as
 * kl_error does, and kl_hit_limit says so afterwards, so that a caller can
 * tell "too big for us" from "outside the subset" without reading text. */
void kl_limit_error(kl_context *ctx, kl_location at, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
bool kl_hit_limit(const kl_context *ctx);
int kl_error_count(const kl_context *ctx);

/* ------------------------------------------------------------- tokens */

typedef enum kl_token_kind {
  KL_TOKEN_IDENTIFIER, /* keywords too: the parser tells them apart */
  KL_TOKEN_PUNCTUATOR,
  KL_TOKEN_NUMBER, /* a pp-number; the parser converts it */
  KL_TOKEN_STRING,
  KL_TOKEN_CHARACTER,
  KL_TOKEN_END,
} kl_token_kind;

typedef struct kl_token {
  kl_token_kind kind;
  const char *text; /* not NUL-terminated: use length */
  int length;
  kl_location location;
  /* Where the macro whose expansion produced this token was used, for
   * diagnostics; location.source is NULL for tokens made by ## or #. */
  kl_location expanded_from;
  bool at_line_start;
  bool space_before;
  struct kl_token *next;
  struct kl_hideset *hideset; /* the preprocessor's: macros not to expand again */
} kl_token;

/* -------------------------------------------------------------- types */

typedef enum kl_type_kind {
  KL_TYPE_VOID,
  KL_TYPE_BOOL,
  KL_TYPE_CHAR,
  KL_TYPE_UCHAR,
  KL_TYPE_SHORT,
  KL_TYPE_USHORT,
  KL_TYPE_INT,
  KL_TYPE_UINT,
  KL_TYPE_LONG,
  KL_TYPE_ULONG,
  KL_TYPE_SIZE_T,    /* unsigned, 64-bit in the type rules (as on every device we target) */
  KL_TYPE_PTRDIFF_T, /* signed, 64-bit; intptr_t and uintptr_t are out of the subset */
  KL_TYPE_HALF,
  KL_TYPE_FLOAT,
  KL_TYPE_DOUBLE,
  KL_TYPE_VECTOR, /* element is a scalar type, length 2, 3, 4, 8 or 16 */
  KL_TYPE_POINTER,
  KL_TYPE_ARRAY,
  KL_TYPE_STRUCT,
  KL_TYPE_FUNCTION,
} kl_type_kind;

typedef enum kl_address_space {
  KL_SPACE_PRIVATE = 0,
  KL_SPACE_GLOBAL,
  KL_SPACE_LOCAL,
  KL_SPACE_CONSTANT,
} kl_address_space;

enum {
  KL_QUALIFIER_CONST = 1u << 0,
  KL_QUALIFIER_VOLATILE = 1u << 1,
  KL_QUALIFIER_RESTRICT = 1u << 2,
};

typedef struct kl_type kl_type;
typedef struct kl_member kl_member;

struct kl_member {
  const char *name;
  kl_type *type;
  int offset;  /* bytes, with OpenCL C's alignment rules (a float3 takes 16) */
  int aligned; /* __attribute__((aligned(N))) on the member: N, else 0 */
  kl_location location;
  kl_member *next;
};

struct kl_type {
  kl_type_kind kind;
  int size; /* bytes; a 3-vector has the size of a 4-vector */
  int align;
  unsigned qualifiers;            /* KL_QUALIFIER_* of this type */
  kl_type *element;               /* vector: scalar element; array: element; pointer: pointee */
  int length;                     /* vector width; array length */
  kl_address_space pointee_space; /* pointer: where the pointee lives */
  const char *name;               /* struct tag or typedef name that introduced it, else NULL */
  kl_member *members;             /* struct */
  int aligned;                    /* struct: __attribute__((aligned(N))): N, else 0 */
  bool packed;                    /* struct: __attribute__((packed)) */
  bool is_union;                  /* struct: a union (every member at offset 0) */
  kl_type *return_type;           /* function */
  kl_type **params;
  int param_count;
};

/* The scalar and vector types are shared, made once per context. */
kl_type *kl_type_scalar(kl_context *ctx, kl_type_kind kind);
kl_type *kl_type_vector(kl_context *ctx, kl_type_kind element, int length);
kl_type *kl_type_pointer(kl_context *ctx, kl_type *pointee, kl_address_space space);
kl_type *kl_type_array(kl_context *ctx, kl_type *element, int length);
kl_type *kl_type_qualified(kl_context *ctx, kl_type *type, unsigned qualifiers);
/* A struct's and a member's layout attributes as GNU C writes them (OpenCL C,
 * CUDA, HIP and C all read them): " __attribute__((packed, aligned(32)))", or "". */
const char *kl_struct_gnu_attributes(kl_context *ctx, const kl_type *type);
const char *kl_member_gnu_attributes(kl_context *ctx, const kl_member *member);

bool kl_type_is_integer(const kl_type *type);  /* scalar integer, bool excluded */
bool kl_type_is_floating(const kl_type *type); /* half, float, double */
bool kl_type_is_signed(const kl_type *type);
bool kl_type_is_scalar(const kl_type *type);            /* bool, integer or floating */
bool kl_type_is_arithmetic(const kl_type *type);        /* scalar or vector, bool excluded */
const kl_type *kl_type_scalar_of(const kl_type *type);  /* the element of a vector, else itself */
bool kl_type_equal(const kl_type *a, const kl_type *b); /* ignoring qualifiers */
/* "float4", "__global const float*", "struct pair" */
const char *kl_type_name(kl_context *ctx, const kl_type *type);
/* A scalar type's OpenCL C name ("uchar", "half"); NULL for other kinds. */
const char *kl_scalar_spelling(kl_type_kind kind);

/* ---------------------------------------------------------------- AST */

typedef enum kl_operator {
  KL_OP_NONE,
  /* binary */
  KL_OP_ADD,
  KL_OP_SUB,
  KL_OP_MUL,
  KL_OP_DIV,
  KL_OP_MOD,
  KL_OP_SHL,
  KL_OP_SHR,
  KL_OP_BIT_AND,
  KL_OP_BIT_OR,
  KL_OP_BIT_XOR,
  KL_OP_LOGICAL_AND,
  KL_OP_LOGICAL_OR,
  KL_OP_EQ,
  KL_OP_NE,
  KL_OP_LT,
  KL_OP_LE,
  KL_OP_GT,
  KL_OP_GE,
  /* unary */
  KL_OP_NEGATE,
  KL_OP_PLUS,
  KL_OP_LOGICAL_NOT,
  KL_OP_BIT_NOT,
  KL_OP_PRE_INCREMENT,
  KL_OP_PRE_DECREMENT,
  KL_OP_POST_INCREMENT,
  KL_OP_POST_DECREMENT,
  KL_OP_DEREFERENCE,
  KL_OP_ADDRESS_OF,
} kl_operator;

/* A binary operator as C, OpenCL C, CUDA and GLSL all spell it ("<<");
 * "?" for the others. */
const char *kl_operator_text(kl_operator op);
/* A unary operator's spelling ("-", "!", "++", "*", "&"); "" for others. */
const char *kl_unary_text(kl_operator op);

typedef enum kl_node_kind {
  /* expressions: every one has a type after parsing */
  KL_EXPR_INT_LITERAL,    /* int_value, type from the literal's suffix and value */
  KL_EXPR_FLOAT_LITERAL,  /* float_value; float, double or half */
  KL_EXPR_VARIABLE,       /* variable */
  KL_EXPR_VECTOR_LITERAL, /* (float4)(a, b, c, d): args are the parts (scalars or vectors) */
  KL_EXPR_UNARY,          /* op, lhs */
  KL_EXPR_BINARY,         /* op, lhs, rhs; both already converted to the operation's type */
  KL_EXPR_ASSIGN,         /* op is KL_OP_NONE for '=', else the compound operator */
  KL_EXPR_CONDITIONAL,    /* condition ? then : otherwise */
  KL_EXPR_COMMA,          /* lhs, rhs */
  KL_EXPR_CALL,           /* function, args */
  KL_EXPR_BUILTIN,        /* builtin, args */
  KL_EXPR_CAST,           /* an explicit (T)x: lhs */
  KL_EXPR_CONVERT,        /* an implicit conversion inserted by the type rules: lhs */
  KL_EXPR_INDEX,          /* lhs[rhs] */
  KL_EXPR_MEMBER,         /* lhs.member, or lhs->member (is_arrow) */
  KL_EXPR_SWIZZLE,        /* lhs.xyzw, .s0..sF, .lo, .hi, .even, .odd -> components */
  /* statements */
  KL_STMT_COMPOUND,    /* body: a list through next */
  KL_STMT_EXPRESSION,  /* lhs */
  KL_STMT_DECLARATION, /* variable, with variable->initializer */
  KL_STMT_IF,          /* condition, then, otherwise */
  KL_STMT_FOR,         /* init (statement), condition, increment, body */
  KL_STMT_WHILE,       /* condition, body */
  KL_STMT_DO,          /* body, condition */
  KL_STMT_SWITCH,      /* condition, body; cases lists the case/default statements */
  KL_STMT_CASE,        /* case_value (default: is_default), body: the statement labelled */
  KL_STMT_BREAK,
  KL_STMT_CONTINUE,
  KL_STMT_RETURN, /* lhs or NULL */
  KL_STMT_EMPTY,
  /* added by the front end: */
  KL_EXPR_INIT_LIST, /* { a, b, ... } for an array or struct variable: args, one per
                      * element or member (padded with zeros; a list may be shorter
                      * than a very large array: the rest is zero), nested lists for
                      * nested aggregates; type is the aggregate type */
} kl_node_kind;

typedef struct kl_node kl_node;
typedef struct kl_variable kl_variable;
typedef struct kl_function kl_function;
typedef struct kl_builtin kl_builtin; /* builtins.h */

struct kl_node {
  kl_node_kind kind;
  kl_location location;
  kl_type *type; /* expressions; NULL for statements */
  kl_operator op;
  /* KL_EXPR_ASSIGN with an operator (`a op= b`): the type the operation is
   * done in, as the parser found it for `a op b` (the usual arithmetic
   * conversions; a shift's promoted left operand). NULL otherwise. */
  kl_type *operation_type;
  kl_node *lhs, *rhs;
  kl_node *condition, *then, *otherwise;
  kl_node *init, *increment, *body;
  kl_node *args; /* through next */
  int arg_count;
  kl_node *next;
  kl_variable *variable;
  kl_function *function;
  const kl_builtin *builtin;
  const char *spelling; /* builtins and literals as written: "atom_add", "1.5f" */
  uint64_t int_value;   /* the value's bits, zero- or sign-extended per type */
  double float_value;
  kl_member *member;
  bool is_arrow;
  int components[16]; /* swizzle: indices into lhs's vector */
  int component_count;
  kl_node *cases; /* switch: through next_case */
  kl_node *next_case;
  int64_t case_value;
  bool is_default;
  bool is_lvalue;
  /* A bounds check's comparison (kernels/bounds.c): the same in 32 bits,
   * for a target whose buffer offsets are 32-bit (GLSL) and which prints it
   * instead; NULL elsewhere. */
  kl_node *narrow;
  /* A kernel's bounds-check report `if (bad) __agpu_faults(...)`
   * (kernels/bounds.c): 1 before a return, 2 at the kernel's end, where a
   * target may defer it (the C target reports after the group's work-item
   * loop, kernels/emit_c_report.c). */
  int check_report;
  /* A bounds check's `fits` condition (kernels/bounds_ranges.c): the same
   * for the whole work-group; the C target runs a region twice, with it
   * true and as is (emit_c_regions.c). */
  bool check_fits;
  kl_type *view; /* parser only: this pointer to the element stands for a pointer to an
                  * array of this type (`(double (*)[N][M])buf`, `u[k]`), see parse_views.c */
  /* Facts for emitters, filled by check.c: */
  bool contains_barrier; /* a barrier inside, calls included (check.c, kl_mark_barriers) */
  bool is_uniform;       /* an expression with one value across the work-group; on
                          * if/for/while/do/switch statements: every work-item of the
                          * group takes the same path (uniform condition, no divergent
                          * break/continue/return inside) */
};

struct kl_variable {
  const char *name;
  kl_type *type;
  kl_address_space space; /* where the variable itself lives */
  kl_location location;
  kl_node *initializer; /* NULL, an expression, or a brace list (a list of expressions) */
  bool is_parameter;
  bool is_program_scope; /* a __constant variable at file scope */
  kl_type *view;         /* declared as this pointer to an array; `type` is the pointer to
                          * its innermost element, which every target is given */
  bool address_taken;
  bool is_uniform;   /* check.c: provably the same value in every work-item of a group */
  int id;            /* unique in the program, for emitters that rename */
  kl_variable *next; /* in the function's or program's list */
};

typedef enum kl_feature {
  KL_FEATURE_FP64 = 1u << 0,
  KL_FEATURE_FP16 = 1u << 1,
  KL_FEATURE_INT64 = 1u << 2,
  KL_FEATURE_GLOBAL_ATOMICS = 1u << 3,
  KL_FEATURE_LOCAL_ATOMICS = 1u << 4,
  KL_FEATURE_BARRIER = 1u << 5,
  KL_FEATURE_LOCAL_MEMORY = 1u << 6,
  KL_FEATURE_PRINTF = 1u << 7,
} kl_feature;

struct kl_function {
  const char *name;
  kl_location location;
  kl_type *return_type;
  kl_variable *params; /* through next */
  int param_count;
  kl_node *body; /* NULL for a declaration without a definition */
  bool is_kernel;
  bool has_required_work_group_size;
  uint32_t required_work_group_size[3];
  kl_variable *locals;   /* every variable declared in the body, including __local ones */
  kl_function **callees; /* user functions called directly */
  /* printf: the hidden last parameter (`__global uint *`) that printf's
   * records go to, in a function that prints or calls one that does
   * (kernels/parse_printf.c); NULL otherwise. */
  kl_variable *printf_buffer;
  /* Bounds checking (kernels/bounds.c): a kernel's hidden last parameter
   * (`__global uint *`, after printf's) holding the violation record and
   * the extents of its buffers; NULL when the program is not checked. */
  kl_variable *check_buffer;
  bool called; /* a call of it was parsed */
  int callee_count;
  unsigned features;           /* kl_feature bits used here and in callees */
  uint32_t local_memory_bytes; /* static __local arrays, callees included */
  unsigned vector_widths;      /* bit n set: a vector of n components is used */
  kl_function *next;
};

/* printf (kernels/parse_printf.c). A call appends a record to the buffer
 * that the hidden parameter points at; the host formats the records after
 * the launch (api/printf.c). The buffer starts with KL_PRINTF_HEADER_WORDS
 * 32-bit words: the words used, the capacity in words, the records dropped,
 * and where the first record that did not fit would have started (the
 * capacity until one does not). A record is KL_PRINTF_RECORD_WORDS words (its length in
 * words, the format's id, the linear work-group id, the linear local id)
 * followed by each argument's components, one word for 32 bits or less, two
 * (low, high) for 64. */
enum { KL_PRINTF_HEADER_WORDS = 4, KL_PRINTF_RECORD_WORDS = 4 };

typedef enum kl_print_value {
  KL_PRINT_TEXT,     /* text as it is */
  KL_PRINT_SIGNED,   /* an integer argument of a signed type */
  KL_PRINT_UNSIGNED, /* an integer argument of an unsigned type */
  KL_PRINT_FLOAT,    /* half, float (32 bits) or double (64) */
  KL_PRINT_STRING,   /* %s of a string literal: `string` */
} kl_print_value;

typedef struct kl_print_piece {
  kl_print_value value;
  /* TEXT: the characters (escapes decoded); else the C conversion up to its
   * length modifier ("%-8.3"), to which the host adds its own length and
   * `conversion`. */
  const char *text;
  size_t text_length;
  char conversion;    /* d i o u x X c f F e E g G a A s */
  int length_bits;    /* the length modifier: hh 8, h 16, hl 32, l 64; 0 none */
  int arg_bits;       /* the argument's element: 32 (one word) or 64 (two) */
  int components;     /* 1, or the vector's width (%v4f) */
  const char *string; /* KL_PRINT_STRING */
  struct kl_print_piece *next;
} kl_print_piece;

typedef struct kl_printf_format {
  int id; /* its index in the program's list */
  kl_location location;
  kl_print_piece *pieces;
  int payload_words; /* the arguments' words in a record */
  struct kl_printf_format *next;
} kl_printf_format;

/* Bounds checking (-anygpu-check=bounds; kernels/bounds.c). The check
 * buffer holds KL_CHECK_HEADER_WORDS 32-bit words: the number of
 * violations, the first one's site id + 1 (0: none), its byte offset (low,
 * high), get_global_id(0..2), get_group_id(0..2) and its root's id; then
 * for each of the kernel's parameters its extent in bytes (low, high
 * words: the buffer's size, or the __local argument's); then three words
 * per kl_check_count. */
enum { KL_CHECK_HEADER_WORDS = 16 };

/* What a checked access is checked against: a kernel's pointer parameter
 * or __local array. */
typedef struct kl_check_root {
  int id; /* its index in the program's list */
  const char *kernel, *name;
  int param_index;           /* the kernel's parameter; -1: a __local array */
  unsigned long long extent; /* a __local array's bytes */
  int element_bytes;         /* for the element index in messages */
  struct kl_check_root *next;
} kl_check_root;

/* A kernel parameter's extent in elements of one size, which the host
 * computes at each launch into the check buffer after the extents (words
 * KL_CHECK_HEADER_WORDS + 2 * user parameters + 3 * id: low, high, and the
 * count clamped to UINT_MAX), so that an access root[i] is checked with
 * one comparison, without a division. */
typedef struct kl_check_count {
  int id;
  int param_index;
  int stride;
  struct kl_check_count *next;
} kl_check_count;

/* One checked access: what the host says when it is violated. */
typedef struct kl_check_site {
  int id; /* its index in the program's list */
  kl_location location;
  const char *function; /* the function it is in */
  int root;             /* the root's id; -1: the record's (an access in a helper) */
  int bytes;            /* the access's size */
  bool write;
  struct kl_check_site *next;
} kl_check_site;

/* A kernel's proof at launch (kernels/bounds_proof.c): for each of its
 * checked accesses, the largest byte offset it can reach, as a postfix
 * program over the launch's sizes and the kernel's scalar arguments, which
 * the host evaluates at each launch (api/check_proof.c). Every value is a
 * largest value, never negative: the pass emits a program only for
 * offsets built by +, *, <<, >>, / and % by constants, & with a constant
 * and min from non-negative leaves, all of them growing with their
 * operands. Where every access fits the launch's extents, the launch runs
 * the program built without checks (no violation can happen). */
typedef enum kl_proof_op_kind {
  KL_PROOF_CONST,       /* push value */
  KL_PROOF_GLOBAL_ID,   /* push the largest get_global_id(index) */
  KL_PROOF_LOCAL_ID,    /* ... get_local_id(index) */
  KL_PROOF_GROUP_ID,    /* ... get_group_id(index) */
  KL_PROOF_GLOBAL_SIZE, /* push get_global_size(index) */
  KL_PROOF_LOCAL_SIZE,  /* ... get_local_size(index) */
  KL_PROOF_NUM_GROUPS,  /* ... get_num_groups(index) */
  KL_PROOF_ARG,         /* push scalar argument `index` (value: its bytes; signed: extent 1) */
  KL_PROOF_ADD,         /* pop two, push the sum */
  KL_PROOF_MUL,         /* ... the product */
  KL_PROOF_MAX,         /* ... the larger */
  KL_PROOF_MIN,         /* ... the smaller */
  KL_PROOF_SHL,         /* top <<= value */
  KL_PROOF_SHR,         /* top >>= value */
  KL_PROOF_DIV,         /* top /= value (value > 0) */
  KL_PROOF_DEC,         /* top = top - 1, at least 0 */
  KL_PROOF_SUB,         /* top = top - value, at least 0 */
  KL_PROOF_WIDTH,       /* the top (plus extent) must be below 2^value (a type's value bits) */
  KL_PROOF_CHECK_WIDTH, /* pop; it must be below 2^value */
  KL_PROOF_FITS,        /* pop: it + value bytes must be at most the extent of parameter
                           `index`, or `extent` where index is -1 (a __local array) */
} kl_proof_op_kind;

typedef struct kl_proof_op {
  kl_proof_op_kind kind;
  int index;
  unsigned long long value, extent;
} kl_proof_op;

typedef struct kl_check_proof {
  const char *kernel;
  /* an access the pass cannot bound (or a call of a helper that checks):
   * every launch runs checked; `why` says what */
  bool never;
  const char *why;
  kl_location where;
  kl_proof_op *ops;
  int op_count, op_capacity;
  struct kl_check_proof *next;
} kl_check_proof;

typedef struct kl_program {
  kl_function *functions; /* in source order */
  kl_variable *constants; /* program-scope __constant variables */
  kl_type **structs;      /* struct types in declaration order, for emitters */
  int struct_count;
  unsigned features;
  /* #pragma OPENCL FP_CONTRACT OFF anywhere: no a*b+c becomes an fma, in the
   * whole program (the emitters say so in each target's words). */
  bool fp_contract_off;
  kl_printf_format *printf_formats; /* by id */
  int printf_format_count;
  kl_check_site *check_sites; /* by id; NULL when not checked */
  int check_site_count;
  kl_check_root *check_roots; /* by id */
  int check_root_count;
  kl_check_count *check_counts; /* by id */
  int check_count_count;
  kl_check_proof *check_proofs; /* one per kernel */
  bool checks_bounds;           /* built with -anygpu-check=bounds */
} kl_program;

/* check.c: sets contains_barrier throughout a tree (a pass that rebuilt
 * part of a checked tree calls it again). */
void kl_mark_barriers(kl_node *tree);

#endif /* AGPU_KL_H */
