// SPDX-License-Identifier: Apache-2.0
#include <string.h>

#include "cli.h"

int cli_parse_arguments(int argc, char **argv, int max_positional, cli_arguments *arguments) {
  memset(arguments, 0, sizeof *arguments);
  if (max_positional > CLI_MAX_POSITIONAL) max_positional = CLI_MAX_POSITIONAL;
  bool options_ended = false;
  for (int i = 0; i < argc; i++) {
    const char *argument = argv[i];
    bool is_option = !options_ended && argument[0] == '-' && argument[1] != '\0';
    if (is_option) {
      if (strcmp(argument, "--") == 0) {
        options_ended = true;
      } else if (strcmp(argument, "--json") == 0) {
        arguments->json = true;
      } else if (strcmp(argument, "--help") == 0 || strcmp(argument, "-h") == 0) {
        arguments->help = true;
      } else {
        return cli_usage_error("unknown option", argument);
      }
    } else if (arguments->positional_count < max_positional) {
      arguments->positional[arguments->positional_count++] = argument;
    } else {
      return cli_usage_error("unexpected argument", argument);
    }
  }
  return CLI_EXIT_OK;
}
