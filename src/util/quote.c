/* Names, shell quoting, terminal and HTML escapes. See quote.h. */
#include "util/quote.h"

#include <string.h>

static int is_ctl(unsigned char c) { return c < 0x20 || c == 0x7f; }

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
    PUT('\'');
    for (; *s; s++) {
        if (is_ctl((unsigned char)*s))
            goto toolong;
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
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (is_ctl(c)) {
            if (n + 5 >= cap)
                break;
            out[n++] = '\\';
            out[n++] = 'x';
            out[n++] = hex[c >> 4];
            out[n++] = hex[c & 15];
        } else {
            if (n + 1 >= cap)
                break;
            out[n++] = (char)c;
        }
    }
    out[n] = '\0';
}

void gc_html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if (is_ctl(c))
                fprintf(f, "\\x%02x", c);
            else
                fputc(c, f);
        }
    }
}
