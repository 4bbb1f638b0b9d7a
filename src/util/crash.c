/* The fatal-signal report. See crash.h.
 *
 * Everything the handler touches is static and written before it can
 * run; it formats with its own integer writers and prints with write(2):
 * no stdio, no malloc (neither is async-signal-safe). backtrace() is
 * called once at install time, so that the handler's call does not load
 * libgcc (which allocates). */
#include "util/crash.h"

#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "util/stop.h"

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NFATAL (sizeof fatal_signals / sizeof fatal_signals[0])
#define ALTSTACK_BYTES 65536
#define FRAMES_MAX 64

/* What a report names. A field is changed only while its flag is 0, so
 * the handler never prints a half-written string. */
static struct {
    volatile sig_atomic_t rank, gpu, have_node, in_item, have_stage;
    char node[64];
    uint32_t item_id;
    char label[64], phase[16], stage[48];
} who = { .rank = -1, .gpu = -1 };

static volatile sig_atomic_t handling;
static char altstack[ALTSTACK_BYTES];

static void copy_str(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; src && src[i] && i + 1 < cap; i++)
        dst[i] = src[i];
    dst[i] = '\0';
}

void gc_crash_identity(int rank, const char *node, int gpu)
{
    who.have_node = 0;
    copy_str(who.node, sizeof who.node, node);
    who.rank = rank;
    who.gpu = gpu;
    who.have_node = node && *node;
}

void gc_crash_item(uint32_t item_id, const char *label, const char *phase)
{
    who.in_item = 0;
    who.item_id = item_id;
    copy_str(who.label, sizeof who.label, label);
    copy_str(who.phase, sizeof who.phase, phase);
    who.in_item = 1;
}

void gc_crash_stage(const char *stage)
{
    who.in_item = 0;
    who.have_stage = 0;
    copy_str(who.stage, sizeof who.stage, stage);
    who.have_stage = stage && *stage;
}

/* ---- async-signal-safe formatting ---- */

typedef struct {
    char b[768];
    size_t n;
} line;

static void put(line *l, const char *s)
{
    while (s && *s && l->n + 1 < sizeof l->b)
        l->b[l->n++] = *s++;
}

static void put_u(line *l, unsigned long long v)
{
    char d[24];
    int k = 0;
    do
        d[k++] = (char)('0' + v % 10);
    while ((v /= 10) && k < (int)sizeof d);
    while (k && l->n + 1 < sizeof l->b)
        l->b[l->n++] = d[--k];
}

static void put_i(line *l, long long v)
{
    if (v < 0) {
        put(l, "-");
        put_u(l, (unsigned long long)-(v + 1) + 1);
    } else {
        put_u(l, (unsigned long long)v);
    }
}

static void put_x(line *l, unsigned long long v)
{
    char d[20];
    int k = 0;
    do
        d[k++] = "0123456789abcdef"[v & 15];
    while ((v >>= 4) && k < (int)sizeof d);
    put(l, "0x");
    while (k && l->n + 1 < sizeof l->b)
        l->b[l->n++] = d[--k];
}

static void emit(line *l)
{
    for (size_t off = 0; off < l->n;) {
        ssize_t k = write(STDERR_FILENO, l->b + off, l->n - off);
        if (k <= 0)
            break;   /* EINTR is not retried: the handler must end */
        off += (size_t)k;
    }
    l->n = 0;
}

static const char *code_name(int sig, int code)
{
    if (code <= 0)
        return "sent by a process";
    if (sig == SIGSEGV)
        return code == SEGV_MAPERR ? "address not mapped" : code == SEGV_ACCERR ? "no permission"
                                                                                 : "bad access";
    if (sig == SIGBUS)
        return code == BUS_ADRALN ? "misaligned address" : code == BUS_ADRERR ? "no such address"
                                                                               : "bus error";
    if (sig == SIGFPE)
        return code == FPE_INTDIV ? "integer division by zero" : "arithmetic error";
    if (sig == SIGILL)
        return "illegal instruction";
    return "";
}

static void put_who(line *l)
{
    put(l, "gpucensus: ");
    if (who.rank >= 0) {
        put(l, "rank ");
        put_i(l, who.rank);
        put(l, " (");
        if (who.have_node) {
            put(l, "node ");
            put(l, who.node);
            put(l, ", ");
        }
        if (who.gpu >= 0) {
            put(l, "gpu ");
            put_i(l, who.gpu);
            put(l, ", ");
        }
        put(l, "pid ");
    } else {
        put(l, "(pid ");
    }
    put_u(l, (unsigned long long)getpid());
    put(l, "): ");
}

/* The interrupted program counter, and the return address a call left
 * on the stack: for a jump to an address that is not code (a call
 * through a null function pointer) glibc's backtrace() cannot unwind past
 * the fault, the return address still says who called. */
static void *context_pc(const void *uc_v)
{
#if defined(__x86_64__)
    return (void *)((const ucontext_t *)uc_v)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (void *)((const ucontext_t *)uc_v)->uc_mcontext.pc;
#else
    (void)uc_v;
    return NULL;
#endif
}

static void *context_return(const void *uc_v)
{
#if defined(__x86_64__)
    return *(void *const *)((const ucontext_t *)uc_v)->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    return (void *)((const ucontext_t *)uc_v)->uc_mcontext.regs[30];
#else
    (void)uc_v;
    return NULL;
#endif
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    if (handling) {   /* a fault inside the report: die at once */
        sigaction(sig, &dfl, NULL);
        raise(sig);
        return;
    }
    handling = 1;
    int saved_errno = errno;
    line l = { .n = 0 };
    put_who(&l);
    put(&l, "fatal signal ");
    put_i(&l, sig);
    put(&l, " (");
    put(&l, gc_signal_name(sig));
    const char *why = code_name(sig, si ? si->si_code : 0);
    if (*why) {
        put(&l, ": ");
        put(&l, why);
    }
    put(&l, ")");
    if (si && si->si_code > 0 && sig != SIGABRT) {
        put(&l, " at address ");
        put_x(&l, (unsigned long long)(uintptr_t)si->si_addr);
    } else if (si && si->si_code <= 0) {
        put(&l, " ");
        put_u(&l, (unsigned long long)si->si_pid);
    }
    if (who.in_item) {
        put(&l, ", during work item ");
        put_u(&l, who.item_id);
        put(&l, " (");
        put(&l, who.label);
        put(&l, ", phase ");
        put(&l, who.phase);
        put(&l, ")");
    } else if (who.have_stage) {
        put(&l, ", outside work items (");
        put(&l, who.stage);
        put(&l, ")");
    }
    put(&l, "\n");
    emit(&l);

    void *frames[FRAMES_MAX];
    put_who(&l);
    put(&l, "backtrace (addresses: addr2line -f -e BINARY, or gdb on the core):\n");
    emit(&l);
    int n = backtrace(frames, FRAMES_MAX);
    backtrace_symbols_fd(frames, n, STDERR_FILENO);
    if (sig == SIGSEGV && uc && si->si_code > 0 && context_pc(uc) == si->si_addr) {
        void *ret = context_return(uc);
        put_who(&l);
        put(&l, "the faulting PC ");
        put_x(&l, (unsigned long long)(uintptr_t)si->si_addr);
        put(&l, " is not code (a call through a bad function pointer?); called from:\n");
        emit(&l);
        backtrace_symbols_fd(&ret, 1, STDERR_FILENO);
    }

    gc_tmp_unlink_all();
    put_who(&l);
    put(&l, "ending by signal ");
    put_i(&l, sig);
    put(&l, " (");
    put(&l, gc_signal_name(sig));
    put(&l, ")\n");
    emit(&l);
    errno = saved_errno;
    /* Blocked while this handler runs: delivered, with the default
     * action, as it returns (a hardware fault also recurs then). */
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

void gc_crash_install(void)
{
    static int stack_set;
    if (!stack_set) {
        stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0 };
        sigaltstack(&ss, NULL);
        void *warm[1];
        backtrace(warm, 1);   /* loads the unwinder now, not in the handler */
        stack_set = 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NFATAL; i++)
        sigaction(fatal_signals[i], &sa, NULL);
}
