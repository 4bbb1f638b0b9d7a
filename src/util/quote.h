/* What comes from inputs (catalogues, shards, rosters, plans, the
 * environment) and goes to a path, a shell line, a terminal or a page:
 * one rule for names, one quoting per destination.
 *
 * - gc_name_ok: a name that becomes part of a path (node names, file
 *   fields, %j) is [A-Za-z0-9._-], 1 to GC_NAME_MAX bytes, not "." or "..".
 *   Checked where the name is read, so nothing later can turn it into
 *   "../../x" or a line an operator pastes.
 * - gc_shell_quote: single-quoted for a POSIX shell; refused (-1) when the
 *   text holds a control character (a newline would end the pasted line).
 * - gc_term_esc: C0 controls, DEL, C1 controls (U+0080..U+009F) and every
 *   byte of invalid UTF-8 shown as \xNN, so that input never sends escape
 *   sequences to an operator's terminal or to a log line NHC shows. The
 *   one escape for terminals, logs and Prometheus label values (prom.c
 *   adds the format's own \\ and \" on top).
 * - gc_html_esc: & < > " ' escaped (text and attribute values, HTML and
 *   SVG alike); control characters shown as \xNN. */
#ifndef GC_QUOTE_H
#define GC_QUOTE_H

#include <stddef.h>
#include <stdio.h>

#define GC_NAME_MAX 63   /* fits results.h's GC_NODE_MAX with its NUL */

int gc_name_ok(const char *s);
/* 0 with out = 'text', or -1 (a control character, or out too small). */
int gc_shell_quote(const char *s, char *out, size_t cap);
/* Always NUL-terminated; cut at cap (never inside an escape). */
void gc_term_esc(const char *s, char *out, size_t cap);
void gc_html_esc(FILE *f, const char *s);
/* 1: s holds no C0, DEL or C1 control and is valid UTF-8 */
int gc_text_safe(const char *s);
/* gc_term_esc of a text of any length, to f */
void gc_term_fputs(const char *s, FILE *f);
/* gc_term_esc into one of 8 buffers of this thread, reused in turn: for up
 * to 8 fields of one printf (each cut at 1023 bytes) */
const char *gc_esc(const char *s);

#endif
