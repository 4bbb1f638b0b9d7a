/* Checks on a plan's raw bytes before libconfig parses them: what libconfig
 * would read differently from the bytes that were hashed (a NUL, @include)
 * or silently get wrong (integer literals it truncates). A lexer of its own,
 * so it stays out of the loader proper. */
#include "plan/plan_int.h"

#include <limits.h>
#include <string.h>

/* Refuse bytes libconfig would not parse as we hashed them: a NUL ends the
 * string early, an @include pulls in a file the hash does not cover (and
 * could name any path). */
int pl_check_bytes(const gc_cfg *L, const char *buf, size_t len)
{
    int line = 1;
    int bol = 1;     /* only blanks so far on this line */
    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        if (c == '\0')
            return gc_cfg_fail_at(L, line, "plan", "NUL byte in the file");
        if (bol && c == '@' && strncmp(buf + i, "@include", 8) == 0)
            return gc_cfg_fail_at(L, line, "@include", "not supported in plans (the plan's hash covers one file)");
        if (c == '\n') {
            line++;
            bol = 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            bol = 0;
        }
    }
    return 0;
}

/* libconfig 1.5 silently truncates an integer literal that does not fit 32
 * bits unless it ends in L (4294967296 reads as 0, 4294967296+65536 as a
 * plausible 65536). Find such literals in the bytes before parsing: skip
 * comments, strings and names the way libconfig's scanner does, and check
 * each integer literal. */
static size_t skip_comment_or_string(const char *b, size_t i, size_t len, int *line)
{
    if (b[i] == '#' || (b[i] == '/' && i + 1 < len && b[i + 1] == '/')) {
        while (i < len && b[i] != '\n')
            i++;
        return i;
    }
    if (b[i] == '/' && i + 1 < len && b[i + 1] == '*') {
        for (i += 2; i < len && !(b[i] == '*' && i + 1 < len && b[i + 1] == '/'); i++)
            *line += b[i] == '\n';
        return i + 2 < len ? i + 2 : len;
    }
    /* b[i] == '"' */
    for (i++; i < len && b[i] != '"'; i++) {
        if (b[i] == '\\' && i + 1 < len)
            i++;
        *line += b[i] == '\n';
    }
    return i + 1 < len ? i + 1 : len;
}

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The number token at b[i]; sets *end past it. Returns 1 when it is an
 * integer libconfig would truncate. */
static int int_literal_truncated(const char *b, size_t i, size_t len, int negative, size_t *end)
{
    int hex = b[i] == '0' && i + 1 < len && (b[i + 1] == 'x' || b[i + 1] == 'X');
    unsigned long long v = 0;
    int overflow = 0;
    size_t j = hex ? i + 2 : i;
    for (; j < len && (hex ? is_hex(b[j]) : is_digit(b[j])); j++) {
        unsigned d = is_digit(b[j]) ? (unsigned)(b[j] - '0') : (unsigned)((b[j] | 0x20) - 'a' + 10);
        if (v > (ULLONG_MAX - d) / (hex ? 16 : 10))
            overflow = 1;
        else
            v = v * (hex ? 16 : 10) + d;
    }
    if (!hex && j < len && (b[j] == '.' || b[j] == 'e' || b[j] == 'E')) {
        while (j < len && (is_digit(b[j]) || b[j] == '.' || b[j] == 'e' || b[j] == 'E' ||
                           ((b[j] == '-' || b[j] == '+') && (b[j - 1] == 'e' || b[j - 1] == 'E'))))
            j++;
        *end = j;
        return 0;   /* a float */
    }
    int is64 = j < len && b[j] == 'L';
    while (j < len && b[j] == 'L')
        j++;
    *end = j;
    if (is64)
        return overflow || (hex ? 0 : v > (negative ? 1ull << 63 : (1ull << 63) - 1));
    if (hex)
        return overflow || v > 0xffffffffull;
    return overflow || v > (negative ? 1ull << 31 : (1ull << 31) - 1);
}

int pl_check_int_literals(const gc_cfg *L, const char *b, size_t len)
{
    int line = 1;
    for (size_t i = 0; i < len;) {
        char c = b[i];
        size_t end;
        if (c == '\n') {
            line++;
            i++;
        } else if (c == '#' || c == '"' || (c == '/' && i + 1 < len && (b[i + 1] == '/' || b[i + 1] == '*'))) {
            i = skip_comment_or_string(b, i, len, &line);
        } else if (is_alpha(c) || c == '*') {
            while (i < len && (is_alpha(b[i]) || is_digit(b[i]) || b[i] == '_' || b[i] == '-' || b[i] == '*'))
                i++;
        } else if (is_digit(c)) {
            int neg = i > 0 && b[i - 1] == '-';
            if (int_literal_truncated(b, i, len, neg, &end))
                return gc_cfg_fail_at(L, line, "number", "integer literal '%.*s%s' does not fit; "
                                  "write integers beyond 32 bits with an L suffix (e.g. 4294967296L)",
                                  (int)(end - i < 40 ? end - i : 40), b + i,
                                  end - i < 40 ? "" : "...");
            i = end;
        } else {
            i++;
        }
    }
    return 0;
}
