/* Names, shell quoting, terminal and HTML escapes. See quote.h. */
#include "util/quote.h"

#include <string.h>

static int is_ctl(unsigned char c) { return c < 0x20 || c == 0x7f; }

/* Bytes of the character at s that may be shown as they are: 1 to 4 for
 * printable ASCII or a valid UTF-8 sequence other than a C1 control
 * (U+0080..U+009F, C2 80..C2 9F: CSI, OSC, NEL reach terminals so); 0 for
 * a C0 control, DEL, a C1 control or a byte of invalid UTF-8 (overlong,
 * surrogate, past U+10FFFF, cut short), each shown as \xNN. */
static size_t shown_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return is_ctl(c) ? 0 : 1;
    size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!n)
        return 0;
    for (size_t k = 1; k < n; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    if (c == 0xc2 && s[1] < 0xa0)
        return 0;   /* C1 */
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) || (c == 0xf0 && s[1] < 0x90) ||
        (c == 0xf4 && s[1] >= 0x90))
        return 0;   /* overlong, surrogate, beyond U+10FFFF */
    return n;
}

int gc_text_safe(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (u && *u) {
        size_t n = shown_len(u);
        if (!n)
            return 0;
        u += n;
    }
    return 1;
}

int gc_name_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > GC_NAME_MAX || !strcmp(s, ".") || !strcmp(s, ".."))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

int gc_shell_quote(const char *s, char *out, size_t cap)
{
    size_t n = 0;
#define PUT(ch)                  \
    do {                         \
        if (n + 1 >= cap)        \
            goto toolong;        \
        out[n++] = (ch);         \
    } while (0)
    if (!gc_text_safe(s))
        goto toolong;   /* a control character (C0, C1) or invalid UTF-8 */
    PUT('\'');
    for (; *s; s++) {
        if (*s == '\'') {   /* end the quote, an escaped quote, reopen */
            PUT('\'');
            PUT('\\');
            PUT('\'');
            PUT('\'');
        } else {
            PUT(*s);
        }
    }
    PUT('\'');
#undef PUT
    out[n] = '\0';
    return 0;
toolong:
    if (cap)
        out[0] = '\0';
    return -1;
}

void gc_term_esc(const char *s, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    if (!cap)
        return;
    const unsigned char *u = (const unsigned char *)s;
    while (u && *u) {
        size_t k = shown_len(u);
        if (!k) {
            if (n + 5 >= cap)
                break;
            out[n++] = '\\';
            out[n++] = 'x';
            out[n++] = hex[*u >> 4];
            out[n++] = hex[*u & 15];
            u++;
        } else {
            if (n + k >= cap)
                break;
            memcpy(out + n, u, k);
            n += k;
            u += k;
        }
    }
    out[n] = '\0';
}

void gc_term_fputs(const char *s, FILE *f)
{
    char buf[1024];
    const char *p = s ? s : "";
    /* in pieces: a long text is escaped whole, never cut */
    while (*p) {
        char piece[256];   /* escaped, at most 4 x 255 bytes: fits buf */
        size_t k = strnlen(p, sizeof piece - 1);
        if (p[k]) {   /* not inside a UTF-8 sequence */
            size_t b = k;
            while (b + 3 > k && b > 1 && ((unsigned char)p[b] & 0xc0) == 0x80)
                b--;
            k = b;
        }
        memcpy(piece, p, k);
        piece[k] = '\0';
        gc_term_esc(piece, buf, sizeof buf);
        fputs(buf, f);
        p += k;
    }
}

void gc_html_esc(FILE *f, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (u && *u) {
        unsigned char c = *u;
        size_t k = shown_len(u);
        switch (k ? c : 0) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        case 0: fprintf(f, "\\x%02x", c); k = 1; break;
        default: fwrite(u, 1, k, f);
        }
        u += k;
    }
}

const char *gc_esc(const char *s)
{
    static _Thread_local char ring[8][1024];
    static _Thread_local unsigned next;
    char *b = ring[next++ % 8];
    gc_term_esc(s, b, sizeof ring[0]);
    return b;
}
