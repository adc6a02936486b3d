/* html.h - `collviz lesson export FILE --format html -o OUT.html`: a handout in one
 * self-contained HTML file (inline CSS, no scripts, no remote resources): every slide's
 * title and narration (md4c's HTML renderer, raw HTML shown as text, speaker notes never
 * included), exercise prompts without answers, and for every slide with a scene an inline
 * SVG of that scene drawn for paper at the slide's own step (paper.h). `--format pdf`
 * is the PDF handout (pdf.h), with the same command line. */
#ifndef COLLVIZ_HANDOUT_HTML_H
#define COLLVIZ_HANDOUT_HTML_H

#include <stdbool.h>
#include <stdio.h>

#include "lesson/lesson.h"

/* Write the handout of the lessons in set (in order) to f, its pictures drawn for paper
 * (handout.h) with the options o. CV_OK or an error. */
struct handout_opts;
int export_html_write(const struct lesson_set *set, const struct handout_opts *o, FILE *f,
                      char *err, size_t errlen);

/* The handout of the lesson file or folder path, with the options ho: PDF to out when pdf,
 * else HTML to out (standard output when NULL). Returns the exit status: 0, 2 for a lesson
 * with errors or an output that cannot be opened, 1 when the writing fails (the partial
 * output removed). (`collviz lesson export` itself, its options, is cli/export.c.) */
int export_handout_run(const char *path, const struct handout_opts *ho, bool pdf,
                       const char *out);

#endif
