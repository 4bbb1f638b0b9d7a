/* The installed configs directory. See datadir.h. */
#include "util/datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int gc_configs_dir(char *out, size_t cap)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';   /* the binary's directory */
    static const char *const rel[] = { "/../share/gpucensus/configs", "/../configs" };
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        char p[4200], real[4096];
        if ((size_t)snprintf(p, sizeof p, "%s%s", exe, rel[i]) < sizeof p && is_dir(p) &&
            realpath(p, real) && strlen(real) < cap) {
            memcpy(out, real, strlen(real) + 1);
            return 0;
        }
    }
    return -1;
}
