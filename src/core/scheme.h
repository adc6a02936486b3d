/* scheme.h - which training scheme and which pipeline schedule: the two enums a scene
 * names (scene/scene.h) and the trainer runs (train.h), and their names. A header that
 * includes nothing, so the scene, plain data, does not pull in the trainer and backends. */
#ifndef COLLVIZ_CORE_SCHEME_H
#define COLLVIZ_CORE_SCHEME_H

enum train_scheme {
    TRAIN_SINGLE,
    TRAIN_DDP,
    TRAIN_TP,
    TRAIN_PP,
    TRAIN_ZERO1,
    TRAIN_ZERO2,
    TRAIN_ZERO3,
    TRAIN_MOE, /* mixture of experts, expert parallel (moe.c) */
    TRAIN_SCHEME_COUNT
};
enum pp_schedule { PP_GPIPE, PP_1F1B, PP_SCHEDULE_COUNT };

/* Their names (scheme.c): the parsers return CV_OK or CV_EINVAL. */
const char *
train_scheme_name(enum train_scheme s); /* "single", "ddp", "tp", "pp", "zero1".., "moe" */
const char *train_scheme_title(enum train_scheme s);           /* "data parallel (DDP)", ... */
int train_scheme_parse(const char *s, enum train_scheme *out); /* CV_OK or CV_EINVAL */
const char *pp_schedule_name(enum pp_schedule s);              /* "gpipe", "1f1b" */
int pp_schedule_parse(const char *s, enum pp_schedule *out);

#endif
