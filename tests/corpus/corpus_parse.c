// SPDX-License-Identifier: Apache-2.0
/* Reading a corpus file and its header: the leading lines that start with
 * "//"; those of the form "// @key words..." declare how to run the kernel
 * (valid files) or which error it must raise (invalid files). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"

#define CORPUS_MAX_WORDS 24

typedef struct corpus_parser {
  corpus_kernel *kernel;
  corpus_file_kind kind;
  int line;
  char *error;
  size_t error_capacity;
  bool seen_global, seen_local, seen_tolerance;
  unsigned needs; /* corpus_requirement bits the argument types need */
} corpus_parser;

static bool corpus_fail(corpus_parser *parser, const char *format, ...) {
  int n = snprintf(parser->error, parser->error_capacity, "%s:%d: ", parser->kernel->path,
                   parser->line);
  if (n < 0 || (size_t)n >= parser->error_capacity) return false;
  va_list args;
  va_start(args, format);
  vsnprintf(parser->error + n, parser->error_capacity - (size_t)n, format, args);
  va_end(args);
  return false;
}

/* --------------------------------------------------------------- numbers */

static bool corpus_parse_double(const char *text, double *value) {
  char *end = NULL;
  errno = 0;
  *value = strtod(text, &end);
  return end != text && *end == '\0' && errno == 0;
}

/* The limits of an integer scalar, as signed or unsigned 64-bit values. */
static void corpus_integer_limits(corpus_scalar scalar, int64_t *min, uint64_t *max) {
  unsigned bits = (unsigned)corpus_scalar_size(scalar) * 8;
  bool is_signed = corpus_scalar_is_signed(scalar);
  *max = is_signed ? (UINT64_MAX >> (65 - bits)) : (UINT64_MAX >> (64 - bits));
  *min = is_signed ? -(int64_t)(*max) - 1 : 0;
}

/* A number for a value of `type`: any number for floats; for integers a
 * decimal or 0x literal that fits the type. */
static bool corpus_parse_number(const char *text, corpus_type type, corpus_number *number) {
  memset(number, 0, sizeof *number);
  if (!corpus_parse_double(text, &number->f)) return false;
  if (corpus_scalar_is_float(type.scalar)) return true;
  char *end = NULL;
  int64_t min = 0;
  uint64_t max = 0;
  corpus_integer_limits(type.scalar, &min, &max);
  errno = 0;
  if (corpus_scalar_is_signed(type.scalar)) {
    number->i = strtoll(text, &end, 0);
    number->u = (uint64_t)number->i;
    return *end == '\0' && errno == 0 && number->i >= min && number->i <= (int64_t)max;
  }
  if (text[0] == '-') return false;
  number->u = strtoull(text, &end, 0);
  number->i = (int64_t)number->u;
  return *end == '\0' && errno == 0 && number->u <= max;
}

static bool corpus_number_less(corpus_type type, const corpus_number *a, const corpus_number *b) {
  if (corpus_scalar_is_float(type.scalar)) return a->f < b->f;
  return corpus_scalar_is_signed(type.scalar) ? a->i < b->i : a->u < b->u;
}

/* A count: "1000" or a product "37*29". */
static bool corpus_parse_count(const char *text, size_t *value) {
  size_t product = 1;
  const char *p = text;
  for (;;) {
    if (!isdigit((unsigned char)*p)) return false;
    char *end = NULL;
    unsigned long long factor = strtoull(p, &end, 10);
    if (factor == 0 || factor > (1ull << 30)) return false;
    product *= (size_t)factor;
    if (product > (1ull << 30)) return false;
    if (*end == '\0') break;
    if (*end != '*') return false;
    p = end + 1;
  }
  *value = product;
  return true;
}

/* "1000", "37x19", "13x7x5" */
static bool corpus_parse_sizes(const char *text, size_t sizes[3], uint32_t *dims) {
  char copy[64];
  snprintf(copy, sizeof copy, "%s", text);
  uint32_t count = 0;
  for (char *save = NULL, *part = strtok_r(copy, "x", &save); part;
       part = strtok_r(NULL, "x", &save)) {
    if (count == 3 || !corpus_parse_count(part, &sizes[count])) return false;
    count++;
  }
  if (count == 0) return false;
  for (uint32_t d = count; d < 3; d++) sizes[d] = 1;
  *dims = count;
  return true;
}

/* ------------------------------------------------------------------ args */

static bool corpus_parse_init(corpus_parser *parser, corpus_arg *arg, char **words, int count) {
  if (count < 1) return corpus_fail(parser, "the buffer needs random, fill, iota or output");
  const char *how = words[0];
  corpus_type type = arg->type;
  if (strcmp(how, "random") == 0) {
    arg->init = CORPUS_INIT_RANDOM;
    if (count < 3 || count > 4 || !corpus_parse_number(words[1], type, &arg->lo) ||
        !corpus_parse_number(words[2], type, &arg->hi) ||
        corpus_number_less(type, &arg->hi, &arg->lo))
      return corpus_fail(parser,
                         "expected 'random LO HI [nonzero]' with LO <= HI, both fitting the type");
    if (count == 4 && strcmp(words[3], "nonzero") != 0)
      return corpus_fail(parser, "unknown word '%s' after the random range", words[3]);
    arg->nonzero = count == 4;
    if (arg->nonzero && arg->lo.f == 0 && arg->hi.f == 0)
      return corpus_fail(parser, "a nonzero range cannot be [0, 0]");
  } else if (strcmp(how, "fill") == 0) {
    arg->init = CORPUS_INIT_FILL;
    if (count != 2 || !corpus_parse_number(words[1], type, &arg->fill))
      return corpus_fail(parser, "expected 'fill VALUE' with a value that fits the type");
  } else if (strcmp(how, "iota") == 0) {
    arg->init = CORPUS_INIT_IOTA;
    if (count > 2 || (count == 2 && !corpus_parse_number(words[1], type, &arg->fill)))
      return corpus_fail(parser, "expected 'iota [START]'");
  } else {
    return corpus_fail(parser, "unknown initialiser '%s' (random, fill, iota, output, inout)", how);
  }
  return true;
}

static bool corpus_parse_buffer(corpus_parser *parser, corpus_arg *arg, char **words, int count) {
  if (count < 1) return corpus_fail(parser, "expected 'buffer TYPE COUNT HOW...'");
  const char *how = words[0];
  arg->written = arg->count;
  if (strcmp(how, "output") == 0) {
    arg->init = CORPUS_INIT_POISON;
    arg->compared = arg->poisoned = true;
    if (count > 2 || (count == 2 && !corpus_parse_count(words[1], &arg->written)) ||
        arg->written > arg->count)
      return corpus_fail(parser, "expected 'output [WRITTEN]' with WRITTEN <= COUNT");
    return true;
  }
  if (strcmp(how, "inout") == 0) {
    arg->compared = true;
    return corpus_parse_init(parser, arg, words + 1, count - 1);
  }
  return corpus_parse_init(parser, arg, words, count);
}

static bool corpus_parse_value(corpus_parser *parser, corpus_arg *arg, char **words, int count) {
  unsigned lanes = arg->type.lanes;
  if (count != 1 && (unsigned)count != lanes)
    return corpus_fail(parser, "a %u-lane value takes 1 or %u numbers, got %d", lanes, lanes,
                       count);
  for (int i = 0; i < count; i++)
    if (!corpus_parse_number(words[i], arg->type, &arg->values[i]))
      return corpus_fail(parser, "'%s' is not a number that fits the type", words[i]);
  for (unsigned i = (unsigned)count; i < lanes; i++) arg->values[i] = arg->values[0];
  return true;
}

static bool corpus_parse_arg(corpus_parser *parser, char **words, int count) {
  corpus_kernel *kernel = parser->kernel;
  if (kernel->arg_count == CORPUS_MAX_ARGS)
    return corpus_fail(parser, "more than %d arguments", CORPUS_MAX_ARGS);
  corpus_arg *arg = &kernel->args[kernel->arg_count++];
  memset(arg, 0, sizeof *arg);
  arg->line = parser->line;
  if (count < 2) return corpus_fail(parser, "expected '@arg buffer|value|local TYPE ...'");
  if (!corpus_type_parse(words[1], &arg->type))
    return corpus_fail(parser, "unknown type '%s'", words[1]);
  if (arg->type.scalar == CORPUS_DOUBLE) parser->needs |= CORPUS_REQUIRES_FP64;
  if (arg->type.scalar == CORPUS_HALF) parser->needs |= CORPUS_REQUIRES_FP16;
  if (strcmp(words[0], "value") == 0) {
    arg->kind = CORPUS_ARG_VALUE;
    return corpus_parse_value(parser, arg, words + 2, count - 2);
  }
  if (count < 3 || !corpus_parse_count(words[2], &arg->count))
    return corpus_fail(parser, "expected a positive element count after the type");
  if (strcmp(words[0], "local") == 0) {
    arg->kind = CORPUS_ARG_LOCAL;
    if (count != 3) return corpus_fail(parser, "expected '@arg local TYPE COUNT'");
    return true;
  }
  if (strcmp(words[0], "buffer") != 0)
    return corpus_fail(parser, "unknown argument kind '%s' (buffer, value, local)", words[0]);
  arg->kind = CORPUS_ARG_BUFFER;
  return corpus_parse_buffer(parser, arg, words + 3, count - 3);
}

/* ------------------------------------------------------ other directives */

static bool corpus_parse_tolerance(corpus_parser *parser, char **words, int count) {
  corpus_tolerance *tolerance = &parser->kernel->tolerance;
  if (parser->seen_tolerance) return corpus_fail(parser, "a second @tolerance");
  parser->seen_tolerance = true;
  if (count == 1 && strcmp(words[0], "exact") == 0) return true;
  if (count == 0 || count % 2) return corpus_fail(parser, "expected exact, or KIND AMOUNT pairs");
  for (int i = 0; i < count; i += 2) {
    double amount = 0;
    if (!corpus_parse_double(words[i + 1], &amount) || amount < 0)
      return corpus_fail(parser, "'%s' is not a non-negative number", words[i + 1]);
    if (strcmp(words[i], "ulp") == 0) {
      tolerance->kinds |= CORPUS_TOLERANCE_ULP;
      tolerance->ulp = amount;
    } else if (strcmp(words[i], "abs") == 0) {
      tolerance->kinds |= CORPUS_TOLERANCE_ABS;
      tolerance->abs = amount;
    } else if (strcmp(words[i], "rel") == 0) {
      tolerance->kinds |= CORPUS_TOLERANCE_REL;
      tolerance->rel = amount;
    } else {
      return corpus_fail(parser, "unknown tolerance '%s' (exact, ulp, abs, rel)", words[i]);
    }
  }
  return true;
}

static bool corpus_parse_requires(corpus_parser *parser, char **words, int count) {
  if (count == 0) return corpus_fail(parser, "expected fp64, fp16 or int64");
  for (int i = 0; i < count; i++) {
    if (strcmp(words[i], "fp64") == 0)
    parser->kernel->requires |= CORPUS_REQUIRES_FP64;
    else if (strcmp(words[i], "fp16") == 0) parser->kernel->requires |= CORPUS_REQUIRES_FP16;
    else if (strcmp(words[i], "int64") == 0) parser->kernel->requires |= CORPUS_REQUIRES_INT64;
    else return corpus_fail(parser, "unknown requirement '%s' (fp64, fp16, int64)", words[i]);
  }
  return true;
}

static bool corpus_parse_error(corpus_parser *parser, const char *rest) {
  corpus_kernel *kernel = parser->kernel;
  int used = 0;
  if (kernel->error_line)
    return corpus_fail(parser, "a second @error (one error per invalid kernel)");
  if (sscanf(rest, "%d:%d %n", &kernel->error_line, &kernel->error_column, &used) != 2 ||
      used == 0 || kernel->error_line < 1 || kernel->error_column < 1)
    return corpus_fail(parser, "expected '@error LINE:COL message'");
  snprintf(kernel->error_message, sizeof kernel->error_message, "%s", rest + used);
  size_t length = strlen(kernel->error_message);
  while (length && isspace((unsigned char)kernel->error_message[length - 1]))
    kernel->error_message[--length] = '\0';
  if (!length) return corpus_fail(parser, "@error has no message");
  return true;
}

static int corpus_split(char *text, char **words) {
  int count = 0;
  for (char *save = NULL, *word = strtok_r(text, " \t", &save); word && count < CORPUS_MAX_WORDS;
       word = strtok_r(NULL, " \t", &save))
    words[count++] = word;
  return count;
}

/* One "@key rest" line. */
static bool corpus_parse_directive(corpus_parser *parser, const char *key, char *rest) {
  corpus_kernel *kernel = parser->kernel;
  bool valid = parser->kind == CORPUS_VALID;
  if (strcmp(key, "options") == 0) {
    snprintf(kernel->options, sizeof kernel->options, "%s", rest);
    return true;
  }
  if (strcmp(key, "error") == 0) {
    if (valid) return corpus_fail(parser, "@error in a valid kernel");
    return corpus_parse_error(parser, rest);
  }
  if (!valid) return corpus_fail(parser, "@%s in an invalid kernel (only @error, @options)", key);
  char *words[CORPUS_MAX_WORDS];
  int count = corpus_split(rest, words);
  if (strcmp(key, "kernel") == 0) {
    if (count != 1) return corpus_fail(parser, "expected '@kernel NAME'");
    snprintf(kernel->entry, sizeof kernel->entry, "%s", words[0]);
    return true;
  }
  if (strcmp(key, "global") == 0 || strcmp(key, "local") == 0) {
    bool global = key[0] == 'g';
    size_t *sizes = global ? kernel->global : kernel->local;
    uint32_t dims = 0;
    if (count != 1 || !corpus_parse_sizes(words[0], sizes, &dims))
      return corpus_fail(parser, "expected '@%s N', 'NxM' or 'NxMxK'", key);
    if ((global ? parser->seen_local : parser->seen_global) && dims != kernel->dims)
      return corpus_fail(parser, "@global and @local have different dimensions");
    kernel->dims = dims;
    *(global ? &parser->seen_global : &parser->seen_local) = true;
    return true;
  }
  if (strcmp(key, "arg") == 0) return corpus_parse_arg(parser, words, count);
  if (strcmp(key, "tolerance") == 0) return corpus_parse_tolerance(parser, words, count);
  if (strcmp(key, "requires") == 0) return corpus_parse_requires(parser, words, count);
  return corpus_fail(parser, "unknown directive '@%s'", key);
}

/* ---------------------------------------------------------- whole files */

static bool corpus_read_file(corpus_kernel *kernel, char *error, size_t capacity) {
  FILE *file = fopen(kernel->path, "rb");
  if (!file) {
    snprintf(error, capacity, "%s: cannot open: %s", kernel->path, strerror(errno));
    return false;
  }
  size_t size = 0, cap = 4096;
  char *data = malloc(cap);
  size_t got;
  while (data && (got = fread(data + size, 1, cap - size - 1, file)) > 0) {
    size += got;
    if (cap - size - 1 == 0) data = realloc(data, cap *= 2);
  }
  fclose(file);
  if (!data) {
    snprintf(error, capacity, "%s: out of memory", kernel->path);
    return false;
  }
  data[size] = '\0';
  kernel->source = data;
  kernel->source_size = size;
  return true;
}

/* The text of line `number` (1-based) of the source; NULL past the end. */
static const char *corpus_line_start(const char *source, int number, size_t *length) {
  const char *p = source;
  for (int line = 1; line < number; line++) {
    p = strchr(p, '\n');
    if (!p) return NULL;
    p++;
  }
  if (!*p && number > 1) return NULL;
  *length = strcspn(p, "\n");
  return p;
}

/* The error position must be a non-blank character of a line below the
 * header, or just past one (the end of a token: where a missing ';' is
 * reported, as clang and GCC do). */
static bool corpus_check_error_position(corpus_parser *parser, int header_lines) {
  corpus_kernel *kernel = parser->kernel;
  size_t length = 0;
  const char *line = corpus_line_start(kernel->source, kernel->error_line, &length);
  parser->line = kernel->error_line;
  if (!line) return corpus_fail(parser, "@error line %d is past the end", kernel->error_line);
  if (kernel->error_line <= header_lines)
    return corpus_fail(parser, "@error line %d is inside the header", kernel->error_line);
  bool just_past_last = (size_t)kernel->error_column == length + 1 && length > 0;
  if ((size_t)kernel->error_column > length && !just_past_last)
    return corpus_fail(parser, "@error column %d is past the end of the line (%zu characters)",
                       kernel->error_column, length);
  size_t column = (size_t)kernel->error_column;
  bool on_token = column <= length && !isspace((unsigned char)line[column - 1]);
  bool after_token = column >= 2 && !isspace((unsigned char)line[column - 2]);
  if (!on_token && !after_token)
    return corpus_fail(parser, "@error column %d points at a blank; it must be a token's start",
                       kernel->error_column);
  return true;
}

static bool corpus_check_complete(corpus_parser *parser, int header_lines) {
  corpus_kernel *kernel = parser->kernel;
  parser->line = 1;
  if (parser->kind == CORPUS_INVALID) {
    if (!kernel->error_line) return corpus_fail(parser, "no '// @error LINE:COL message' line");
    return corpus_check_error_position(parser, header_lines);
  }
  if (!kernel->entry[0]) return corpus_fail(parser, "no '// @kernel NAME' line");
  if (!parser->seen_global || !parser->seen_local)
    return corpus_fail(parser, "@global and @local are both required");
  bool compared = false;
  for (uint32_t i = 0; i < kernel->arg_count; i++) compared |= kernel->args[i].compared;
  if (!compared) return corpus_fail(parser, "no output or inout buffer: nothing to compare");
  if (parser->needs & ~kernel->requires)
    return corpus_fail(parser, "a double or half argument needs '@requires fp64' or 'fp16'");
  return true;
}

bool corpus_load(const char *path, corpus_file_kind kind, corpus_kernel *kernel, char *error,
                 size_t error_capacity) {
  memset(kernel, 0, sizeof *kernel);
  snprintf(kernel->path, sizeof kernel->path, "%s", path);
  const char *slash = strrchr(path, '/');
  snprintf(kernel->file_name, sizeof kernel->file_name, "%s", slash ? slash + 1 : path);
  if (slash)
    snprintf(kernel->dir, sizeof kernel->dir, "%.*s", (int)(slash - path + (slash == path)), path);
  else
    snprintf(kernel->dir, sizeof kernel->dir, ".");
  snprintf(kernel->stem, sizeof kernel->stem, "%s", kernel->file_name);
  char *dot = strrchr(kernel->stem, '.');
  if (dot) *dot = '\0';
  if (!corpus_read_file(kernel, error, error_capacity)) return false;

  corpus_parser parser = {
      .kernel = kernel, .kind = kind, .error = error, .error_capacity = error_capacity};
  const char *p = kernel->source;
  int header_lines = 0;
  while (strncmp(p, "//", 2) == 0) {
    parser.line = ++header_lines;
    size_t length = strcspn(p, "\n");
    char line[CORPUS_TEXT_MAX];
    if (length >= sizeof line) return corpus_fail(&parser, "header line too long");
    memcpy(line, p + 2, length - 2);
    line[length - 2] = '\0';
    p += length + (p[length] == '\n');
    char *text = line;
    while (*text == ' ') text++;
    if (*text != '@') continue; /* a comment */
    char *key = text + 1, *rest = key + strcspn(key, " \t");
    if (*rest) *rest++ = '\0';
    while (*rest == ' ' || *rest == '\t') rest++;
    if (!corpus_parse_directive(&parser, key, rest)) return false;
  }
  return corpus_check_complete(&parser, header_lines);
}

void corpus_free(corpus_kernel *kernel) {
  free(kernel->source);
  kernel->source = NULL;
}

static int corpus_compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

bool corpus_list_dir(const char *dir, char ***names, size_t *count) {
  *names = NULL;
  *count = 0;
  DIR *handle = opendir(dir);
  if (!handle) return false;
  size_t capacity = 0;
  for (struct dirent *entry; (entry = readdir(handle)) != NULL;) {
    size_t length = strlen(entry->d_name);
    if (length < 4 || strcmp(entry->d_name + length - 3, ".cl") != 0) continue;
    if (*count == capacity) {
      capacity = capacity ? capacity * 2 : 64;
      char **grown = realloc(*names, capacity * sizeof *grown);
      if (!grown) break;
      *names = grown;
    }
    (*names)[(*count)++] = strdup(entry->d_name);
  }
  closedir(handle);
  if (*count) qsort(*names, *count, sizeof **names, corpus_compare_names);
  return true;
}
