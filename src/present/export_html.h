/* export_html.h - `collviz lesson export FILE --format html -o OUT.html`: a handout in one
 * self-contained HTML file (inline CSS, no scripts, no remote resources): every slide's
 * title and narration (md4c's HTML renderer, raw HTML shown as text, speaker notes never
 * included), exercise prompts without answers, and for every slide with a scene an inline
 * SVG of that scene at its last step, drawn by collviz's own screen (scene_svg.h). */
#ifndef COLLVIZ_PRESENT_EXPORT_HTML_H
#define COLLVIZ_PRESENT_EXPORT_HTML_H

#include <stdio.h>

#include "../lesson/lesson.h"

/* Write the handout of the lessons in set (in order) to f. CV_OK or an error. */
int export_html_write(const struct lesson_set *set, FILE *f, char *err, size_t errlen);

/* argv[0] is "export". Returns the exit status (2 for bad input or a lesson with errors). */
int export_html_main(int argc, char **argv);

#endif
