// SPDX-License-Identifier: Apache-2.0
/* printf in kernels, the host's half (docs/debugging.md, "printf"). The
 * translator lowers each printf to stores into a buffer that a hidden last
 * parameter points at (kernels/parse_printf.c, the layout in kl.h); the
 * core gives every launch of a printing kernel a fresh buffer, and when the
 * launch is known to be done (a finish, a wait for a later event, a blocking
 * read on its queue, the queue's release) formats the records with the
 * program's formats, by work-group and then work-item, and writes them to
 * stdout or to the callback set with agpu_set_printf_callback. */
#ifndef AGPU_PRINTF_H
#define AGPU_PRINTF_H

#include "agpu_backend.h"

struct agpu_parsed;

typedef struct agpu_print_piece {
  uint8_t value;       /* kl_print_value */
  char conversion;     /* d i o u x X c f F e E g G a A s */
  uint8_t length_bits; /* hh 8, h 16, hl 32, l 64; 0 none */
  uint8_t arg_bits;    /* 32 or 64 */
  uint8_t components;  /* 1, or a vector's width */
  char *text;          /* literal text, or the conversion up to its length ("%-8.3") */
  size_t text_length;
  char *string; /* %s */
} agpu_print_piece;

typedef struct agpu_print_format {
  agpu_print_piece *pieces;
  uint32_t piece_count;
  uint32_t payload_words;
} agpu_print_format;

/* A program's formats and the kernels that print, shared by the program,
 * its kernels and their launches still to be reported. */
typedef struct agpu_printf_table {
  _Atomic uint32_t references;
  agpu_print_format *formats;
  uint32_t format_count;
  char **kernels;
  uint32_t kernel_count;
} agpu_printf_table;

/* The table of a parsed program; *table is NULL when nothing prints. */
agpu_status agpu_printf_table_create(const struct agpu_parsed *parsed, agpu_printf_table **table);
void agpu_printf_table_retain(agpu_printf_table *table);
void agpu_printf_table_release(agpu_printf_table *table); /* NULL: nothing */
bool agpu_printf_table_prints(const agpu_printf_table *table, const char *kernel);

/* A launch of a kernel that prints or checks its accesses (agpu_check.h):
 * its hidden arguments after the user's `nargs` (the printf buffer, then
 * the check buffer with the extents of `args`; headers written on
 * `queue`), *hidden_count of them, and the launch's record to report
 * later. */
typedef struct agpu_printf_launch agpu_printf_launch;
agpu_status agpu_printf_prepare(agpu_queue *queue, agpu_kernel *kernel, const agpu_arg *args,
                                uint32_t nargs, agpu_arg *hidden, uint32_t *hidden_count,
                                agpu_printf_launch **launch);
/* After the backend's launch: queued for reporting when it succeeded,
 * dropped otherwise. */
void agpu_printf_launched(agpu_queue *queue, agpu_printf_launch *launch, agpu_status status);

/* The queue's launches so far, a mark to report up to (an event's). */
uint64_t agpu_printf_mark(agpu_queue *queue);
/* Reports the queue's launches up to `mark` (UINT64_MAX: all), which the
 * caller knows to be done. */
agpu_status agpu_printf_report(agpu_queue *queue, uint64_t mark);

/* The records of one launch (`words` from the buffer's start, header
 * included) as text, in the documented order, with the dropped-lines
 * notice; malloc'd into *text (printf_format.c). */
agpu_status agpu_printf_format_records(const agpu_printf_table *table, const char *kernel,
                                       const uint32_t *words, size_t word_count, char **text,
                                       size_t *length);

#endif /* AGPU_PRINTF_H */
