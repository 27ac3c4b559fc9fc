/* An exact, compact encoding of cost-matrix entries (uint16) for the
 * link between switchyard-sched daemons (docs/fabric.md, "Encoded
 * chunks").  Real fabrics' matrices are regular: a fat tree's rows are a
 * few long runs of 3-4 hop counts.  The entries are cut into blocks of
 * SY_CM_BLOCK (the last one shorter); each block is, whichever is
 * smallest:
 *
 *   0 raw      count x u16
 *   1 runs     u16 nruns, nruns x (u16 value, u16 length - 1)
 *   2 palette  u8 bits (1, 2, 4 or 8), u16 npal (1..2^bits), npal x u16,
 *              then ceil(count * bits / 8) bytes of indices, low bits first
 *
 * All numbers little-endian.  The block count follows from the entry
 * count the receiver already knows, so the encoding carries no length of
 * its own; the decoder checks every declared size against that. */
#ifndef SWITCHYARD_FABRIC_CM_CODEC_H
#define SWITCHYARD_FABRIC_CM_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define SY_CM_BLOCK 32768u
/* The encoding's version, as negotiated on the link. */
#define SY_CM_CODEC_VERSION 1u

typedef struct sy_cm_enc sy_cm_enc_t;

/* NULL when out of memory. */
sy_cm_enc_t *sy_cm_enc_new(void);
void sy_cm_enc_free(sy_cm_enc_t *e);
/* The most bytes sy_cm_encode writes for count entries (raw blocks). */
size_t sy_cm_encode_bound(size_t count);
/* Encode count entries into out (sy_cm_encode_bound(count) bytes);
 * returns the bytes written. */
size_t sy_cm_encode(sy_cm_enc_t *e, const uint16_t *in, size_t count, uint8_t *out);
/* Decode exactly count entries from len bytes into out.  0, or -1 with
 * *why set when the input is malformed (truncated, trailing bytes, a size
 * or index out of range); out may then be partly written. */
int sy_cm_decode(const uint8_t *in, size_t len, uint16_t *out, size_t count, const char **why);

#endif
