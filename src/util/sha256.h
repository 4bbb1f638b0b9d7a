/* SHA-256 (FIPS 180-4) of a byte string: plans and runs are identified by
 * the hash of the plan file's bytes, so a catalogue says exactly which plan
 * produced it. Small and dependency-free; speed does not matter here. */
#ifndef GC_SHA256_H
#define GC_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct gc_sha256 {
    uint32_t h[8];
    uint64_t nbytes;      /* bytes hashed so far */
    uint8_t buf[64];
    size_t nbuf;          /* bytes waiting in buf */
} gc_sha256;

void gc_sha256_init(gc_sha256 *s);
void gc_sha256_update(gc_sha256 *s, const void *data, size_t len);
void gc_sha256_final(gc_sha256 *s, uint8_t digest[32]);

/* One-shot: lowercase hex digest of data, NUL-terminated. */
void gc_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
