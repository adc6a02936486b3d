/* scheme.c - the training schemes' and pipeline schedules' names (scheme.h): read by the
 * scene's parser and by the trainer alike. */
#include "core/scheme.h"

#include <strings.h>

#include "core/util.h"

static const char *const scheme_names[TRAIN_SCHEME_COUNT] = {"single", "ddp",   "tp",    "pp",
                                                             "zero1",  "zero2", "zero3", "moe"};
static const char *const scheme_titles[TRAIN_SCHEME_COUNT] = {
    "single device (reference)",
    "data parallel (DDP)",
    "tensor parallel (columns)",
    "pipeline parallel (stages)",
    "ZeRO stage 1 (optimizer state sharded)",
    "ZeRO stage 2 (+ gradients sharded)",
    "ZeRO stage 3 / FSDP (+ weights sharded)",
    "mixture of experts (expert parallel)"};

static const char *const schedule_names[PP_SCHEDULE_COUNT] = {"gpipe", "1f1b"};

const char *train_scheme_name(enum train_scheme s)
{
    return (s >= 0 && s < TRAIN_SCHEME_COUNT) ? scheme_names[s] : "?";
}

const char *train_scheme_title(enum train_scheme s)
{
    return (s >= 0 && s < TRAIN_SCHEME_COUNT) ? scheme_titles[s] : "?";
}

int train_scheme_parse(const char *s, enum train_scheme *out)
{
    for (int i = 0; i < TRAIN_SCHEME_COUNT; i++)
        if (strcasecmp(s, scheme_names[i]) == 0) {
            *out = (enum train_scheme)i;
            return CV_OK;
        }
    return CV_EINVAL;
}

const char *pp_schedule_name(enum pp_schedule s)
{
    return (s >= 0 && s < PP_SCHEDULE_COUNT) ? schedule_names[s] : "?";
}

int pp_schedule_parse(const char *s, enum pp_schedule *out)
{
    for (int i = 0; i < PP_SCHEDULE_COUNT; i++)
        if (strcasecmp(s, schedule_names[i]) == 0) {
            *out = (enum pp_schedule)i;
            return CV_OK;
        }
    return CV_EINVAL;
}
