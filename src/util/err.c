#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/quote.h"

int gc_fail(gc_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        /* messages quote inputs (names, lines of files): their control
         * characters are shown as \xNN, never sent to a terminal */
        char raw[sizeof err->msg];
        vsnprintf(raw, sizeof raw, fmt, ap);
        gc_term_esc(raw, err->msg, sizeof err->msg);
        va_end(ap);
        err->code = code;
    }
    return code;
}
