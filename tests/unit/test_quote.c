/* quote.c: the name rule, shell quoting, terminal and HTML escapes. */
#include <stdlib.h>
#include <string.h>

#include "util/quote.h"
#include "check.h"

static char *html(const char *s)
{
    static char buf[256];
    memset(buf, 0, sizeof buf);
    FILE *f = fmemopen(buf, sizeof buf, "w");
    gc_html_esc(f, s);
    fclose(f);
    return buf;
}

int main(void)
{
    /* names */
    const char *good[] = { "node1", "gpu-a.b_c", "A", "..x", "x..", "a.b" };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        CHECK(gc_name_ok(good[i]), "%s refused", good[i]);
    const char *bad[] = { "", ".", "..", "../x", "a/b", "/abs", "a b", "a;rm", "a\nb",
                          "a\x1b[31m", "$(id)", "a'b", "n\xc3\xa9" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(!gc_name_ok(bad[i]), "bad name %zu accepted", i);
    char longn[80];
    memset(longn, 'a', sizeof longn);
    longn[GC_NAME_MAX] = '\0';
    CHECK(gc_name_ok(longn), "%d bytes refused", GC_NAME_MAX);
    longn[GC_NAME_MAX] = 'a';
    longn[GC_NAME_MAX + 1] = '\0';
    CHECK(!gc_name_ok(longn), "%d bytes accepted", GC_NAME_MAX + 1);
    CHECK(!gc_name_ok(NULL), "NULL accepted");

    /* shell */
    char q[64];
    CHECK(gc_shell_quote("node1", q, sizeof q) == 0 && !strcmp(q, "'node1'"), "%s", q);
    CHECK(gc_shell_quote("x; rm -rf / $(id) `id`", q, sizeof q) == 0 &&
              !strcmp(q, "'x; rm -rf / $(id) `id`'"), "%s", q);
    CHECK(gc_shell_quote("it's", q, sizeof q) == 0 && !strcmp(q, "'it'\\''s'"), "%s", q);
    CHECK(gc_shell_quote("", q, sizeof q) == 0 && !strcmp(q, "''"), "%s", q);
    CHECK(gc_shell_quote("a\nb", q, sizeof q) == -1 && q[0] == '\0', "newline quoted");
    CHECK(gc_shell_quote("a\x1b" "b", q, sizeof q) == -1, "ESC quoted");
    CHECK(gc_shell_quote("abcdef", q, 8) == -1, "cut quote accepted");
    CHECK(gc_shell_quote("abcde", q, 8) == 0 && !strcmp(q, "'abcde'"), "%s", q);

    /* terminal */
    char t[64];
    gc_term_esc("a\x1b[2Jb\x07\x1f\x7f\n", t, sizeof t);
    CHECK(!strcmp(t, "a\\x1b[2Jb\\x07\\x1f\\x7f\\x0a"), "%s", t);
    gc_term_esc("plain text", t, sizeof t);
    CHECK(!strcmp(t, "plain text"), "%s", t);
    gc_term_esc("ab\x1b", t, 5);   /* no room for the escape: cut before it */
    CHECK(!strcmp(t, "ab"), "%s", t);
    gc_term_esc("caf\xc3\xa9", t, sizeof t);   /* UTF-8 passes */
    CHECK(!strcmp(t, "caf\xc3\xa9"), "%s", t);
    /* C1 controls (CSI U+009B, OSC U+009D, NEL U+0085) and invalid UTF-8 */
    gc_term_esc("a\xc2\x9b" "2Jb\xc2\x9d" "0;x\xc2\x85" "c", t, sizeof t);
    CHECK(!strcmp(t, "a\\xc2\\x9b2Jb\\xc2\\x9d0;x\\xc2\\x85c"), "%s", t);
    gc_term_esc("\xc2\xa0\xe2\x82\xac\xf0\x9f\x98\x80", t, sizeof t);   /* NBSP, euro, emoji pass */
    CHECK(!strcmp(t, "\xc2\xa0\xe2\x82\xac\xf0\x9f\x98\x80"), "%s", t);
    gc_term_esc("\xc0\xaf\xed\xa0\x80\xff\xe2\x82", t, sizeof t);   /* overlong, surrogate, 0xff, cut */
    CHECK(!strcmp(t, "\\xc0\\xaf\\xed\\xa0\\x80\\xff\\xe2\\x82"), "%s", t);
    CHECK(gc_text_safe("caf\xc3\xa9") && !gc_text_safe("a\xc2\x9b") && !gc_text_safe("\xff") &&
          !gc_text_safe("\x1b"), "gc_text_safe");
    CHECK(gc_shell_quote("n\xc2\x9b" "1", q, sizeof q) == -1, "shell quote of a C1 control");

    /* HTML: text, attributes, SVG */
    CHECK(!strcmp(html("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;"),
          "%s", html("<script>"));
    CHECK(!strcmp(html("\" onerror='x' &"), "&quot; onerror=&#39;x&#39; &amp;"), "%s",
          html("\" onerror"));
    CHECK(!strcmp(html("a\x1b" "b"), "a\\x1bb"), "%s", html("a\x1b" "b"));
    CHECK(!strcmp(html(NULL), ""), "NULL");
    CHECK(!strcmp(html("a\xc2\x9b" "b\xff"), "a\\xc2\\x9bb\\xff"), "%s", html("a\xc2\x9b"));
    CHECK_DONE();
}
