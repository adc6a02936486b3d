/* pdf.h - the PDF handout of a set of lessons (`collviz lesson export --format pdf`),
 * with cairo and pango: a first page with the table of contents in the presenter's slide
 * numbers (1..N across the whole deck, as the clicker counts them), then every slide (one or
 * two to a page) with its narration, its scene drawn for paper (paper.h) and its
 * exercises with room to answer, then the solutions (or inline, or none). Speaker notes are
 * never included. Lesson text is untrusted: it reaches pango only escaped, without control
 * characters. */
#ifndef COLLVIZ_HANDOUT_PDF_H
#define COLLVIZ_HANDOUT_PDF_H

#include <stddef.h>

#include "lesson/lesson.h"
#include "handout/handout.h"

/* Write the handout to path. CV_OK, or an error with a message (the file may be partial:
 * the caller removes it). */
int print_pdf_write(const struct lesson_set *set, const struct handout_opts *o,
                    const char *path, char *err, size_t errlen);

#endif
