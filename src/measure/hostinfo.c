/* Host conditions of a rank. See hostinfo.h. */
#include "measure/hostinfo.h"

#include <ctype.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* "Key:\tvalue" of /proc/self/status into out. */
static void status_field(const char *key, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return;
    char line[512];
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':') {
            const char *v = line + kl + 1;
            v += strspn(v, " \t");
            snprintf(out, cap, "%.*s", (int)strcspn(v, "\n"), v);
            break;
        }
    fclose(f);
}

/* The governor every CPU of the affinity mask has, "mixed" when they
 * differ, "" when none says (no cpufreq: a VM, a container without /sys). */
static void governor(char *out, size_t cap)
{
    cpu_set_t set;
    out[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set))
        return;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set))
            continue;
        char path[96], g[32] = "";
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(g, sizeof g, f))
            g[strcspn(g, "\n")] = '\0';
        fclose(f);
        if (!out[0])
            snprintf(out, cap, "%s", g);
        else if (strcmp(out, g)) {
            snprintf(out, cap, "mixed");
            return;
        }
    }
}

void gc_host_info(gc_gpu_info *info)
{
    governor(info->host_governor, sizeof info->host_governor);
    status_field("Cpus_allowed_list", info->host_cpus, sizeof info->host_cpus);
    status_field("Mems_allowed_list", info->host_mems, sizeof info->host_mems);
}

/* "DDDD:BB:DD.F" (hex digits) */
static int is_bdf(const char *s, size_t n)
{
    static const char pat[] = "xxxx:xx:xx.x";
    if (n != sizeof pat - 1)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (pat[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != pat[i])
            return 0;
    return 1;
}

void gc_pcie_switch_of_path(const char *path, char *out, size_t cap)
{
    const char *comp[32];
    size_t len[32], n = 0;
    out[0] = '\0';
    for (const char *p = path; p && *p && n < 32;) {
        p += strspn(p, "/");
        size_t l = strcspn(p, "/");
        if (is_bdf(p, l)) {
            comp[n] = p;
            len[n++] = l;
        }
        p += l;
    }
    /* root port, upstream port, downstream port, device at least */
    if (n >= 4)
        snprintf(out, cap, "%.*s", (int)len[n - 3], comp[n - 3]);
}

void gc_pcie_switch(const char *bus_id, char *out, size_t cap)
{
    char link[96], real[PATH_MAX];
    snprintf(link, sizeof link, "/sys/bus/pci/devices/%s", bus_id);
    for (char *c = link; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    out[0] = '\0';
    if (realpath(link, real))
        gc_pcie_switch_of_path(real, out, cap);
}
