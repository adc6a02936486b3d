/* train_moe.h - what `collviz train moe` prints beyond the other schemes (train_moe.c): the
 * routing (tokens per expert per rank, drops), the all-to-all's blocks and the dispatch and
 * combine bytes and bus bandwidth, as text or into the JSON object. */
#ifndef COLLVIZ_CLI_TRAIN_MOE_H
#define COLLVIZ_CLI_TRAIN_MOE_H

#include <stdio.h>

#include "cli/json.h"
#include "parallel/train.h"

void train_moe_print_text(FILE *f, const struct train_result *r);
void train_moe_json(cJSON *d, const struct train_result *r, const struct train_deviation *dev);

#endif
