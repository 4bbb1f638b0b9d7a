/* Streaming JSON writer. See jsonw.h. */
#include "util/jsonw.h"
#include "util/g10.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void gc_jw_flush(gc_jw *w)
{
    if (w->len && !w->err && fwrite(w->buf, 1, w->len, w->f) != w->len)
        w->err = errno ? errno : EIO;
    w->len = 0;
}

void gc_jw_put(gc_jw *w, const char *s, size_t n)
{
    if (w->len + n > GC_JW_BUF) {
        gc_jw_flush(w);
        if (n > GC_JW_BUF) {
            if (!w->err && fwrite(s, 1, n, w->f) != n)
                w->err = errno ? errno : EIO;
            return;
        }
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

void gc_jw_puts(gc_jw *w, const char *s) { gc_jw_put(w, s, strlen(s)); }

static void gc_jw_indent(gc_jw *w, int depth)
{
    if (w->compact)
        return;
    static const char spaces[] = "\n                                                                ";
    gc_jw_put(w, spaces, 1);
    while (depth > 0) {
        size_t k = depth > 64 ? 64 : (size_t)depth;
        gc_jw_put(w, spaces + 1, k);
        depth -= (int)k;
    }
}

/* jansson's utf8_check_string */
int gc_jw_utf8_ok(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        unsigned u = *s;
        int n;
        unsigned v;
        if (u < 0x80) {
            s++;
            continue;
        } else if (u < 0xC2) {
            return 0;
        } else if (u < 0xE0) {
            n = 2, v = u & 0x1F;
        } else if (u < 0xF0) {
            n = 3, v = u & 0x0F;
        } else if (u <= 0xF4) {
            n = 4, v = u & 0x07;
        } else {
            return 0;
        }
        for (int i = 1; i < n; i++) {
            if (s[i] < 0x80 || s[i] > 0xBF)
                return 0;
            v = (v << 6) | (s[i] & 0x3F);
        }
        if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) || (n == 3 && v < 0x800) ||
            (n == 4 && v < 0x10000))
            return 0;
        s += n;
    }
    return 1;
}

/* jansson's dump_string without JSON_ENSURE_ASCII / JSON_ESCAPE_SLASH:
 * '"', '\\' and control characters are escaped, the rest is copied. */
/* Length of s if it is printable ASCII needing no escape, else -1: the
 * common case, written without the per-character escape and UTF-8 work. */
static long plain_len(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    for (; *p; p++)
        if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\')
            return -1;
    return (long)(p - (const unsigned char *)s);
}

static void put_plain(gc_jw *w, const char *s, size_t n)
{
    gc_jw_put(w, "\"", 1);
    gc_jw_put(w, s, n);
    gc_jw_put(w, "\"", 1);
}

void gc_jw_string(gc_jw *w, const char *s)
{
    long n = plain_len(s);
    if (n >= 0) {
        put_plain(w, s, (size_t)n);
        return;
    }
    gc_jw_put(w, "\"", 1);
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        gc_jw_put(w, run, (size_t)(s - run));
        char seq[8];
        const char *t = seq;
        switch (c) {
        case '\\': t = "\\\\"; break;
        case '"': t = "\\\""; break;
        case '\b': t = "\\b"; break;
        case '\f': t = "\\f"; break;
        case '\n': t = "\\n"; break;
        case '\r': t = "\\r"; break;
        case '\t': t = "\\t"; break;
        default: snprintf(seq, sizeof seq, "\\u%04X", c); break;
        }
        gc_jw_puts(w, t);
        run = s + 1;
    }
    gc_jw_put(w, run, (size_t)(s - run));
    gc_jw_put(w, "\"", 1);
}

/* Before a member or element of the innermost container. */
void gc_jw_next(gc_jw *w)
{
    if (w->depth > 0) {
        if (w->count[w->depth - 1]++)
            gc_jw_put(w, ",", 1);
        gc_jw_indent(w, w->depth0 + w->depth);
    }
}

void gc_jw_key(gc_jw *w, const char *k)
{
    gc_jw_next(w);
    gc_jw_string(w, k);
    gc_jw_put(w, ": ", w->compact ? 1 : 2);
}

void gc_jw_open(gc_jw *w, const char *c)
{
    gc_jw_put(w, c, 1);
    if (w->depth < GC_JW_MAXDEPTH)
        w->count[w->depth] = 0;
    w->depth++;
}

void gc_jw_close(gc_jw *w, const char *c)
{
    w->depth--;
    if (w->depth < GC_JW_MAXDEPTH && w->count[w->depth])
        gc_jw_indent(w, w->depth0 + w->depth);
    gc_jw_put(w, c, 1);
}

/* %.10g with integer arithmetic (g10.h: printf's exact float path
 * dominated the time of writing a large catalogue): fixed notation for
 * exponents -4..9, else d.ddde[-]X as gc_jw_real writes exponents (no '+',
 * no leading zeros). Returns the length written to b, or 0 to let printf
 * do it. */
static size_t fmt_g10(char *b, double v)
{
    uint64_t m;
    int e;
    if (!gc_g10_digits(v, &m, &e))
        return 0;
    char d[10];
    for (int i = 9; i >= 0; i--, m /= 10)
        d[i] = (char)('0' + m % 10);
    int nd = 10;
    while (nd > 1 && d[nd - 1] == '0')
        nd--;
    size_t n = 0;
    if (v < 0)
        b[n++] = '-';
    if (e < -4 || e > 9) {
        b[n++] = d[0];
        if (nd > 1) {
            b[n++] = '.';
            for (int i = 1; i < nd; i++)
                b[n++] = d[i];
        }
        b[n++] = 'e';
        if (e < 0)
            b[n++] = '-', e = -e;
        if (e >= 10)
            b[n++] = (char)('0' + e / 10);
        b[n++] = (char)('0' + e % 10);
    } else if (e >= 0) {
        for (int i = 0; i <= e; i++)
            b[n++] = i < nd ? d[i] : '0';
        b[n++] = '.';
        if (nd > e + 1)
            for (int i = e + 1; i < nd; i++)
                b[n++] = d[i];
        else
            b[n++] = '0';
    } else {
        b[n++] = '0';
        b[n++] = '.';
        for (int i = 0; i < -e - 1; i++)
            b[n++] = '0';
        for (int i = 0; i < nd; i++)
            b[n++] = d[i];
    }
    return n;
}

void gc_jw_real(gc_jw *w, double v)
{
    /* JSON has no NaN or infinity: write null. */
    if (!isfinite(v)) {
        gc_jw_put(w, "null", 4);
        return;
    }
    char b[64];
    if (v == (double)(long long)v && fabs(v) < 1e10 && !(v == 0 && signbit(v))) {
        /* An integer of at most 10 digits, printed exactly with ".0". */
        int n = snprintf(b, sizeof b, "%lld.0", (long long)v);
        gc_jw_put(w, b, (size_t)n);
        return;
    }
    size_t len = fmt_g10(b, v);
    if (len) {
        gc_jw_put(w, b, len);
        return;
    }
    int n = snprintf(b, sizeof b, "%.10g", v);
    if (n < 0 || (size_t)n >= sizeof b - 3)
        n = 0, b[0] = '\0';
    len = (size_t)n;
    /* %.10g is locale-dependent: map the decimal point back */
    for (char *p = b; *p; p++)
        if (*p == ',')
            *p = '.';
    if (!strchr(b, '.') && !strchr(b, 'e')) {
        memcpy(b + len, ".0", 3);
        len += 2;
    }
    /* exponent without '+' or leading zeros: 1e+12 -> 1e12 */
    char *start = strchr(b, 'e');
    if (start) {
        start++;
        char *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, len - (size_t)(end - b) + 1);
            len -= (size_t)(end - start);
        }
    }
    gc_jw_put(w, b, len);
}

void gc_jw_int(gc_jw *w, long long v)
{
    char b[24], *p = b + sizeof b;   /* digits from the end: no printf per row */
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    gc_jw_put(w, p, (size_t)(b + sizeof b - p));
}

/* Members; a string that jansson would refuse leaves its member out. */
void gc_jw_kstr(gc_jw *w, const char *k, const char *s)
{
    long nk = plain_len(k), ns = plain_len(s);
    if (nk >= 0 && ns >= 0) {
        gc_jw_next(w);
        put_plain(w, k, (size_t)nk);
        gc_jw_put(w, ": ", w->compact ? 1 : 2);
        put_plain(w, s, (size_t)ns);
        return;
    }
    if (!gc_jw_utf8_ok(k) || !gc_jw_utf8_ok(s))
        return;
    gc_jw_key(w, k);
    gc_jw_string(w, s);
}
void gc_jw_kreal(gc_jw *w, const char *k, double v)
{
    gc_jw_key(w, k);
    gc_jw_real(w, v);
}
void gc_jw_kint(gc_jw *w, const char *k, long long v)
{
    gc_jw_key(w, k);
    gc_jw_int(w, v);
}
void gc_jw_knull(gc_jw *w, const char *k)
{
    gc_jw_key(w, k);
    gc_jw_put(w, "null", 4);
}

void gc_jw_init(gc_jw *w, FILE *f, char *buf, int depth0)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->buf = buf;
    w->depth0 = depth0;
}

int gc_jw_finish(gc_jw *w, const char *path, gc_err *err)
{
    gc_jw_flush(w);
    if (w->err)
        return gc_fail(err, GC_EIO, "%s: could not be saved: %s (the previous file, if any, is intact)",
                       path, strerror(w->err));
    return 0;
}
