/* SVG plot primitives. See svg.h. */
#include "util/svg.h"

#include <math.h>
#include <string.h>

static void scaled(char *out, size_t cap, double v, const char *const *units, double step,
                   int n)
{
    int i = 0;
    double a = fabs(v);
    while (i + 1 < n && a >= step * 0.9995) {
        a /= step;
        v /= step;
        i++;
    }
    snprintf(out, cap, "%.3g %s", v, units[i]);
}

void gc_fmt_value(char *out, size_t cap, double v, int fmt)
{
    if (!isfinite(v)) {
        snprintf(out, cap, "-");
        return;
    }
    static const char *const bytes[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    static const char *const bps[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s" };
    switch (fmt) {
    case GC_FMT_BYTES:
        scaled(out, cap, v, bytes, 1024, 5);
        break;
    case GC_FMT_BPS:
        scaled(out, cap, v, bps, 1000, 5);
        break;
    case GC_FMT_SECONDS: {
        double a = fabs(v);
        if (a == 0)
            snprintf(out, cap, "0 s");
        else if (a < 1e-6)
            snprintf(out, cap, "%.3g ns", v * 1e9);
        else if (a < 1e-3)
            snprintf(out, cap, "%.3g us", v * 1e6);
        else if (a < 1)
            snprintf(out, cap, "%.3g ms", v * 1e3);
        else
            snprintf(out, cap, "%.3g s", v);
        break;
    }
    default:
        snprintf(out, cap, "%.4g", v);
    }
}

void gc_axis_fix(gc_axis *a)
{
    if (!isfinite(a->lo) || !isfinite(a->hi) || a->lo > a->hi) {
        a->lo = a->log ? 1 : 0;
        a->hi = a->log ? 10 : 1;
    }
    if (a->log) {
        if (a->lo <= 0)
            a->lo = a->hi > 0 ? a->hi / 10 : 1;
        if (a->hi <= a->lo)
            a->hi = a->lo * 10, a->lo /= 10;
        /* a little room at both ends */
        double r = pow(a->hi / a->lo, 0.03);
        a->lo /= r;
        a->hi *= r;
    } else {
        if (a->hi <= a->lo) {
            double d = a->lo != 0 ? fabs(a->lo) * 0.05 : 1;
            a->lo -= d;
            a->hi += d;
        } else {
            double d = (a->hi - a->lo) * 0.04;
            a->lo -= d;
            a->hi += d;
        }
    }
}

static double frac(const gc_axis *a, double v)
{
    if (a->log)
        return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
    return (v - a->lo) / (a->hi - a->lo);
}

double gc_plot_px(const gc_plot *p, double x)
{
    return p->ml + frac(&p->x, x) * (p->w - p->ml - p->mr);
}

double gc_plot_py(const gc_plot *p, double y)
{
    return p->h - p->mb - frac(&p->y, y) * (p->h - p->mt - p->mb);
}

static int ok_x(const gc_plot *p, double x) { return isfinite(x) && (!p->x.log || x > 0); }
static int ok_y(const gc_plot *p, double y) { return isfinite(y) && (!p->y.log || y > 0); }

/* Tick positions: powers of ten (or of 2^10 steps for bytes) on a log
 * axis, 1/2/5 steps on a linear one. At most max ticks. */
static size_t ticks(const gc_axis *a, double *t, size_t max)
{
    size_t n = 0;
    if (a->log) {
        double base = a->fmt == GC_FMT_BYTES ? 2 : 10;
        double lo = floor(log(a->lo) / log(base)), hi = ceil(log(a->hi) / log(base));
        double step = 1;
        while ((hi - lo) / step + 1 > (double)max)
            step *= a->fmt == GC_FMT_BYTES ? 2 : 2;
        if (a->fmt == GC_FMT_BYTES && step < 2 && hi - lo > 6)
            step = 2;
        lo = ceil(lo / step) * step;
        for (double e = lo; e <= hi && n < max; e += step) {
            double v = pow(base, e);
            if (v >= a->lo && v <= a->hi)
                t[n++] = v;
        }
        return n;
    }
    double span = a->hi - a->lo, raw = span / 5, mag = pow(10, floor(log10(raw)));
    double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    while (floor(span / step) + 1 > (double)max)
        step *= 2;
    for (double v = ceil(a->lo / step) * step; v <= a->hi && n < max; v += step)
        t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

void gc_plot_begin(gc_plot *p, FILE *f, double w, double h, const char *cls, const char *title)
{
    p->f = f;
    p->w = w;
    p->h = h;
    if (p->ml == 0)
        p->ml = 62;
    if (p->mr == 0)
        p->mr = 14;
    if (p->mt == 0)
        p->mt = strchr(title, '\n') ? 38 : 24;
    if (p->mb == 0)
        p->mb = 40;
    gc_axis_fix(&p->x);
    gc_axis_fix(&p->y);
    fprintf(f, "<svg class=\"plot %s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
               "xmlns=\"http://www.w3.org/2000/svg\">",
            cls, w, h, w, h);
    /* a second line after '\n': a subtitle */
    const char *nl = strchr(title, '\n');
    fputs("<text class=\"title\" x=\"8\" y=\"16\">", f);
    for (const char *s = title; *s && s != nl; s++) {
        char one[2] = { *s, 0 };
        gc_html_esc(f, one);
    }
    fputs("</text>", f);
    if (nl) {
        fputs("<text class=\"sub\" x=\"8\" y=\"30\">", f);
        gc_html_esc(f, nl + 1);
        fputs("</text>", f);
    }
    double x0 = p->ml, x1 = w - p->mr, y0 = p->mt, y1 = h - p->mb;
    double t[16];
    char lab[32];
    size_t maxx = (size_t)fmax(3, fmin(9, (x1 - x0) / 70));
    size_t n = p->x.noticks ? 0 : ticks(&p->x, t, maxx);
    for (size_t i = 0; i < n; i++) {
        double px = gc_plot_px(p, t[i]);
        gc_fmt_value(lab, sizeof lab, t[i], p->x.fmt);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
                px, y0, px, y1, px, y1 + 13, lab);
    }
    n = p->y.noticks ? 0 : ticks(&p->y, t, 7);
    for (size_t i = 0; i < n; i++) {
        double py = gc_plot_py(p, t[i]);
        gc_fmt_value(lab, sizeof lab, t[i], p->y.fmt);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                x0, py, x1, py, x0 - 4, py + 4, lab);
    }
    fprintf(f, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", x0,
            y0, x1 - x0, y1 - y0);
    if (p->x.label) {
        fprintf(f, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                (x0 + x1) / 2, h - 6);
        gc_html_esc(f, p->x.label);
        fputs("</text>", f);
    }
    if (p->y.label) {
        fprintf(f, "<text class=\"axis\" transform=\"translate(12 %.1f) rotate(-90)\" "
                   "text-anchor=\"middle\">",
                (y0 + y1) / 2);
        gc_html_esc(f, p->y.label);
        fputs("</text>", f);
    }
}

void gc_plot_end(gc_plot *p) { fputs("</svg>\n", p->f); }

void gc_plot_line(gc_plot *p, size_t n, const double *x, const double *y, const char *cls)
{
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ok_x(p, x[i]) || !ok_y(p, y[i])) {
            if (open)
                fputs("\"/>", p->f);
            open = 0;
            continue;
        }
        if (!open)
            fprintf(p->f, "<polyline class=\"%s\" points=\"", cls);
        fprintf(p->f, "%s%.1f,%.1f", open ? " " : "", gc_plot_px(p, x[i]), gc_plot_py(p, y[i]));
        open = 1;
    }
    if (open)
        fputs("\"/>", p->f);
}

void gc_plot_band(gc_plot *p, size_t n, const double *x, const double *lo, const double *hi,
                  const char *cls)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ok_x(p, x[i]) && ok_y(p, lo[i]) && ok_y(p, hi[i]);
    if (k < 2)
        return;
    fprintf(p->f, "<polygon class=\"%s\" points=\"", cls);
    int first = 1;
    for (size_t i = 0; i < n; i++)
        if (ok_x(p, x[i]) && ok_y(p, lo[i]) && ok_y(p, hi[i])) {
            fprintf(p->f, "%s%.1f,%.1f", first ? "" : " ", gc_plot_px(p, x[i]), gc_plot_py(p, hi[i]));
            first = 0;
        }
    for (size_t i = n; i-- > 0;)
        if (ok_x(p, x[i]) && ok_y(p, lo[i]) && ok_y(p, hi[i]))
            fprintf(p->f, " %.1f,%.1f", gc_plot_px(p, x[i]), gc_plot_py(p, lo[i]));
    fputs("\"/>", p->f);
}

void gc_plot_point(gc_plot *p, double x, double y, double r, const char *cls, const char *title)
{
    if (!ok_x(p, x) || !ok_y(p, y))
        return;
    fprintf(p->f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", cls, gc_plot_px(p, x),
            gc_plot_py(p, y), r);
    if (title) {
        fputs("><title>", p->f);
        gc_html_esc(p->f, title);
        fputs("</title></circle>", p->f);
    } else
        fputs("/>", p->f);
}

void gc_plot_hline(gc_plot *p, double y, const char *cls, const char *label)
{
    if (!ok_y(p, y))
        return;
    double py = gc_plot_py(p, y);
    fprintf(p->f, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", cls, p->ml,
            py, p->w - p->mr, py);
    if (label) {
        fprintf(p->f, "<text class=\"%s-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", cls,
                p->w - p->mr - 3, py - 3);
        gc_html_esc(p->f, label);
        fputs("</text>", p->f);
    }
}

void gc_plot_rect(gc_plot *p, double x0, double x1, double y0, double y1, const char *cls,
                  const char *title)
{
    if (!ok_x(p, x0) || !ok_x(p, x1) || !ok_y(p, y0) || !ok_y(p, y1))
        return;
    double a = gc_plot_px(p, x0), b = gc_plot_px(p, x1), c = gc_plot_py(p, y1), d = gc_plot_py(p, y0);
    fprintf(p->f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", cls,
            a < b ? a : b, c < d ? c : d, fabs(b - a), fabs(d - c));
    if (title) {
        fputs("><title>", p->f);
        gc_html_esc(p->f, title);
        fputs("</title></rect>", p->f);
    } else
        fputs("/>", p->f);
}

void gc_plot_text(gc_plot *p, double x, double y, double dx, double dy, const char *cls,
                  const char *text)
{
    if (!ok_x(p, x) || !ok_y(p, y))
        return;
    fprintf(p->f, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\">", cls, gc_plot_px(p, x) + dx,
            gc_plot_py(p, y) + dy);
    gc_html_esc(p->f, text);
    fputs("</text>", p->f);
}
