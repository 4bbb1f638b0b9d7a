/* Plot primitives for the HTML report: an SVG plot with linear or log
 * axes, ticks and labels, into which lines, points, bands and bars are
 * drawn in data coordinates. Styling is left to the page's CSS through
 * class names, so the SVG text stays small when a page holds hundreds of
 * plots. Text is HTML-escaped here. */
#ifndef GC_SVG_H
#define GC_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "util/quote.h"   /* gc_html_esc */

enum { GC_FMT_NUM = 0, GC_FMT_BYTES = 1, GC_FMT_SECONDS = 2, GC_FMT_BPS = 3 };

typedef struct gc_axis {
    double lo, hi;       /* data range (lo > 0 on a log axis) */
    int log;             /* log10 scale */
    int fmt;             /* GC_FMT_*: how tick labels are written */
    const char *label;
    int noticks;         /* no grid lines or tick labels */
} gc_axis;

typedef struct gc_plot {
    FILE *f;
    double w, h;                  /* pixels */
    double ml, mr, mt, mb;        /* margins */
    gc_axis x, y;
} gc_plot;

/* "4 KiB", "1.5 GiB"; "2.4 us"; "54.7 GB/s"; "%.3g" */
void gc_fmt_value(char *out, size_t cap, double v, int fmt);

/* Widen a range so that it is not empty and (log) positive. */
void gc_axis_fix(gc_axis *a);
/* Opens <svg class="plot CLS" ...> with the title, the frame, grid lines,
 * ticks and axis labels. */
void gc_plot_begin(gc_plot *p, FILE *f, double w, double h, const char *cls, const char *title);
void gc_plot_end(gc_plot *p);
double gc_plot_px(const gc_plot *p, double x);
double gc_plot_py(const gc_plot *p, double y);
/* Points with non-finite or (log) non-positive coordinates are skipped
 * and break the line. */
void gc_plot_line(gc_plot *p, size_t n, const double *x, const double *y, const char *cls);
void gc_plot_band(gc_plot *p, size_t n, const double *x, const double *lo, const double *hi,
                  const char *cls);
/* A circle; title (may be NULL) becomes its tooltip. */
void gc_plot_point(gc_plot *p, double x, double y, double r, const char *cls, const char *title);
/* Horizontal line across the plot with a label at its right end. */
void gc_plot_hline(gc_plot *p, double y, const char *cls, const char *label);
/* A rectangle in data coordinates [x0, x1] x [y0, y1]. */
void gc_plot_rect(gc_plot *p, double x0, double x1, double y0, double y1, const char *cls,
                  const char *title);
void gc_plot_text(gc_plot *p, double x, double y, double dx, double dy, const char *cls,
                  const char *text);

#endif
