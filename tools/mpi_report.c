// SPDX-License-Identifier: Apache-2.0
/* Rank 0's combined report of --mpi (docs/cluster.md): per host its ranks,
 * devices, physical devices and failures; then which ranks and hosts
 * disagree with the majority (their fingerprints: the devices a rank sees,
 * the test cases that failed, a failed command's exit status and message). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_writer.h"
#include "mpi_fleet.h"

typedef struct fleet_view {
  const mpi_rank_record *ranks;
  int count;
  int majority;   /* a rank with the most common fingerprint */
  int agreeing;   /* how many ranks share it */
  int *host_of;   /* per rank: the first rank on its host */
  int host_count; /* distinct hosts */
  bool all_ok;    /* every rank exited 0 */
} fleet_view;

static const char *field(const fleet_view *view, int rank, int which) {
  return view->ranks[rank].fields[which];
}

static bool same(const fleet_view *view, int a, int b, int which) {
  return strcmp(field(view, a, which), field(view, b, which)) == 0;
}

static bool rank_failed(const fleet_view *view, int rank) {
  return strcmp(field(view, rank, MPI_FIELD_EXIT), "0") != 0;
}

/* Majority fingerprint and hosts; O(ranks²) comparisons of short strings. */
static bool fleet_view_build(fleet_view *view, const mpi_rank_record *ranks, int count) {
  memset(view, 0, sizeof *view);
  view->ranks = ranks;
  view->count = count;
  view->host_of = calloc((size_t)count, sizeof *view->host_of);
  if (!view->host_of) return false;
  view->all_ok = true;
  for (int r = 0; r < count; r++) {
    int agree = 0;
    for (int s = 0; s < count; s++) agree += same(view, r, s, MPI_FIELD_FINGERPRINT);
    if (agree > view->agreeing) {
      view->agreeing = agree;
      view->majority = r;
    }
    int host = r;
    for (int s = 0; s < r && host == r; s++)
      if (same(view, r, s, MPI_FIELD_HOST)) host = view->host_of[s];
    view->host_of[r] = host;
    view->host_count += host == r;
    view->all_ok &= !rank_failed(view, r);
  }
  return true;
}

static bool rank_is_odd(const fleet_view *view, int rank) {
  return !same(view, rank, view->majority, MPI_FIELD_FINGERPRINT);
}

static bool host_is_odd(const fleet_view *view, int host) {
  for (int r = 0; r < view->count; r++)
    if (view->host_of[r] == host && (rank_is_odd(view, r) || rank_failed(view, r))) return true;
  return false;
}

static void raw_or_null(json_writer *writer, const char *key, const char *text) {
  json_key(writer, key);
  size_t length = strlen(text);
  while (length && (text[length - 1] == '\n' || text[length - 1] == ' ')) length--;
  if (length && (text[0] == '{' || text[0] == '['))
    json_raw(writer, text, length);
  else
    json_null(writer);
}

static void write_host_json(json_writer *writer, const fleet_view *view, int host) {
  json_begin_object(writer);
  json_key_string(writer, "host", field(view, host, MPI_FIELD_HOST));
  json_key(writer, "ranks");
  json_begin_array(writer);
  for (int r = 0; r < view->count; r++)
    if (view->host_of[r] == host) json_uint(writer, (uint64_t)r);
  json_end_array(writer);
  json_key_uint(writer, "hardware_of_rank", (uint64_t)host);
  raw_or_null(writer, "hardware", field(view, host, MPI_FIELD_HARDWARE));
  json_key(writer, "differs_within_host");
  json_begin_array(writer);
  for (int r = 0; r < view->count; r++)
    if (view->host_of[r] == host && !same(view, r, host, MPI_FIELD_FINGERPRINT))
      json_uint(writer, (uint64_t)r);
  json_end_array(writer);
  json_key(writer, "failures");
  json_begin_array(writer);
  for (int r = 0; r < view->count; r++) {
    if (view->host_of[r] != host || !rank_failed(view, r)) continue;
    json_begin_object(writer);
    json_key_uint(writer, "rank", (uint64_t)r);
    json_key_uint(writer, "exit_status", (uint64_t)atoi(field(view, r, MPI_FIELD_EXIT)));
    json_key_string(writer, "stderr", field(view, r, MPI_FIELD_STDERR));
    json_end_object(writer);
  }
  json_end_array(writer);
  json_end_object(writer);
}

static void write_rank_json(json_writer *writer, const fleet_view *view, int r) {
  json_begin_object(writer);
  json_key_uint(writer, "rank", (uint64_t)r);
  json_key_string(writer, "host", field(view, r, MPI_FIELD_HOST));
  raw_or_null(writer, "local", field(view, r, MPI_FIELD_LOCAL));
  json_key_uint(writer, "exit_status", (uint64_t)atoi(field(view, r, MPI_FIELD_EXIT)));
  json_key_string(writer, "stderr", field(view, r, MPI_FIELD_STDERR));
  json_key_string(writer, "fingerprint", field(view, r, MPI_FIELD_FINGERPRINT));
  json_key_string(writer, "work", field(view, r, MPI_FIELD_WORK));
  json_key_bool(writer, "agrees", !rank_is_odd(view, r));
  json_key_uint(writer, "gathered_bytes", view->ranks[r].bytes);
  raw_or_null(writer, "hardware", field(view, r, MPI_FIELD_HARDWARE));
  raw_or_null(writer, "report", field(view, r, MPI_FIELD_REPORT));
  json_end_object(writer);
}

static void write_summary_json(json_writer *writer, const fleet_view *view) {
  json_key(writer, "summary");
  json_begin_object(writer);
  json_key_bool(writer, "agree", view->agreeing == view->count);
  json_key_bool(writer, "all_succeeded", view->all_ok);
  json_key_string(writer, "majority", field(view, view->majority, MPI_FIELD_FINGERPRINT));
  json_key_uint(writer, "majority_count", (uint64_t)view->agreeing);
  json_key(writer, "odd_ranks");
  json_begin_array(writer);
  for (int r = 0; r < view->count; r++) {
    if (!rank_is_odd(view, r)) continue;
    json_begin_object(writer);
    json_key_uint(writer, "rank", (uint64_t)r);
    json_key_string(writer, "host", field(view, r, MPI_FIELD_HOST));
    json_key_string(writer, "fingerprint", field(view, r, MPI_FIELD_FINGERPRINT));
    json_end_object(writer);
  }
  json_end_array(writer);
  json_key(writer, "failed_ranks");
  json_begin_array(writer);
  for (int r = 0; r < view->count; r++)
    if (rank_failed(view, r)) json_uint(writer, (uint64_t)r);
  json_end_array(writer);
  json_key(writer, "odd_hosts");
  json_begin_array(writer);
  for (int r = 0; r < view->count; r++)
    if (view->host_of[r] == r && host_is_odd(view, r))
      json_string(writer, field(view, r, MPI_FIELD_HOST));
  json_end_array(writer);
  json_end_object(writer);
}

static int print_json(const char *command, const mpi_library *mpi, const fleet_view *view) {
  json_writer writer;
  json_writer_init(&writer, stdout, true);
  json_begin_object(&writer);
  json_key_string(&writer, "command", command);
  json_key_string(&writer, "mpi_library", mpi->name);
  json_key_uint(&writer, "rank_count", (uint64_t)view->count);
  json_key_uint(&writer, "host_count", (uint64_t)view->host_count);
  write_summary_json(&writer, view);
  json_key(&writer, "hosts");
  json_begin_array(&writer);
  for (int r = 0; r < view->count; r++)
    if (view->host_of[r] == r) write_host_json(&writer, view, r);
  json_end_array(&writer);
  json_key(&writer, "ranks");
  json_begin_array(&writer);
  for (int r = 0; r < view->count; r++) write_rank_json(&writer, view, r);
  json_end_array(&writer);
  json_end_object(&writer);
  if (!json_writer_finish(&writer)) {
    fputs("anygpu: internal error: malformed JSON output\n", stderr);
    return CLI_EXIT_FAILURE;
  }
  return cli_finish_output();
}

static void print_text(const char *command, const mpi_library *mpi, const fleet_view *view) {
  printf("anygpu %s on %d rank%s, %d host%s (%s)\n", command, view->count,
         view->count == 1 ? "" : "s", view->host_count, view->host_count == 1 ? "" : "s",
         mpi->name);
  for (int host = 0; host < view->count; host++) {
    if (view->host_of[host] != host) continue;
    printf("\nhost %s: ranks", field(view, host, MPI_FIELD_HOST));
    for (int r = 0; r < view->count; r++)
      if (view->host_of[r] == host) printf(" %d", r);
    printf("\n  seen by rank %d: %s\n", host, field(view, host, MPI_FIELD_FINGERPRINT));
    for (int r = host; r < view->count; r++) {
      if (view->host_of[r] != host) continue;
      const char *error = field(view, r, MPI_FIELD_STDERR);
      bool failed = rank_failed(view, r);
      const char *work = field(view, r, MPI_FIELD_WORK);
      printf("  rank %d:%s%s%s%s", r, work[0] ? " " : "", work,
             failed ? " FAILED, exit status " : "", failed ? field(view, r, MPI_FIELD_EXIT) : "");
      if (failed && error[0]) printf(": %.*s", (int)strcspn(error, "\n"), error);
      putchar('\n');
      if (!same(view, r, host, MPI_FIELD_FINGERPRINT))
        printf("    differs: %s\n", field(view, r, MPI_FIELD_FINGERPRINT));
    }
  }
  printf("\n%d of %d ranks agree: %s\n", view->agreeing, view->count,
         field(view, view->majority, MPI_FIELD_FINGERPRINT));
  for (int r = 0; r < view->count; r++)
    if (rank_is_odd(view, r))
      printf("  odd: rank %d on %s: %s\n", r, field(view, r, MPI_FIELD_HOST),
             field(view, r, MPI_FIELD_FINGERPRINT));
}

int mpi_report_print(const char *command, const mpi_library *mpi, const mpi_rank_record *ranks,
                     int count, bool json) {
  fleet_view view;
  if (!fleet_view_build(&view, ranks, count)) return cli_out_of_memory();
  int status = CLI_EXIT_OK;
  if (json)
    status = print_json(command, mpi, &view);
  else {
    print_text(command, mpi, &view);
    status = cli_finish_output();
  }
  if (status == CLI_EXIT_OK && (!view.all_ok || view.agreeing != count)) status = CLI_EXIT_FAILURE;
  free(view.host_of);
  return status;
}
