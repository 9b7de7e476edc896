/* Device-side index validation (host/run/verdict.c): the verdict on
 * `count` indices of type CLG_INDEX (int or long) against periodic bounds,
 * without reading the indices back.
 *
 * Index i (flat position, 0-based) is valid iff
 *   -s[i % period] <= x[i] <= s[i % period] - 1,
 * with period in [1, 16] and s[j] >= 0 (an axis of size 0 admits no index).
 *
 * Work-group g checks positions [g * chunk, min((g + 1) * chunk, count)):
 * its work-items stride through the range by the work-group size (adjacent
 * items read adjacent indices), each stops at its first offender, and a
 * tree reduction in local memory leaves the group's smallest offending
 * position in result[CLG_GROUPS_AT + 2g], or CLG_NONE (all ones) if the
 * range is valid, and the value there in result[CLG_GROUPS_AT + 1 + 2g].
 * Groups cover increasing ranges, so the first position that is not
 * CLG_NONE is the first offender of the whole array.
 *
 * result[0] is the verdict flag, its first 32-bit word zero when the
 * kernel starts: a group that finds an offender sets it (an atomic store of
 * 1, the only atomic). Gated kernels (-DCLG_GATED) read that word first and
 * write nothing when it is set: no host waits between this kernel and
 * them. Group 0 stores `gen`, this run's number, in the flag's second
 * 32-bit word: the host knows the verdict it reads is this run's (the
 * buffer is kept between calls, host/run/verdict.c). The words between
 * the flag and CLG_GROUPS_AT are the operator's own; this kernel leaves
 * them alone.
 *
 * Build options: -DCLG_INDEX=int|long, -DCLG_LOCAL=<work-group size, a power
 * of two>, -DCLG_GROUPS_AT=<the first group's word>. */

#ifndef CLG_INDEX
#define CLG_INDEX long
#endif
#ifndef CLG_LOCAL
#define CLG_LOCAL 64
#endif
#ifndef CLG_GROUPS_AT
#define CLG_GROUPS_AT 1
#endif
#define CLG_NONE ((ulong)0xFFFFFFFFFFFFFFFFUL)

kernel __attribute__((reqd_work_group_size(CLG_LOCAL, 1, 1))) void
clg_validate_indices(global const CLG_INDEX *x, ulong x_off, ulong count,
                     ulong chunk, uint period, ulong16 bounds,
                     global ulong *result, uint gen) {
  local ulong best[CLG_LOCAL];
  const uint lid = (uint)get_local_id(0);
  const ulong g = get_group_id(0);
  const ulong first = g * chunk;
  ulong end = first + chunk;
  if (end > count)
    end = count;
  ulong s[16];
  CLG_LANES16(bounds, s);
  ulong found = CLG_NONE;
#if CLG_LOCAL == 1
  /* CPU devices: one work-item per group scans its range contiguously, in
   * blocks with no branch per value (k is in [-d, d-1] iff the sign bits of
   * k + d and ~(k - d) are clear, for d <= 2^62: the host takes this kernel
   * only then), so the compiler vectorizes the block; a block with a bad
   * value is scanned again for the position. */
  if (period == 1) {
    const ulong d = s[0];
    ulong i = first;
    for (; i + 64 <= end && found == CLG_NONE; i += 64) {
      ulong acc = 0;
      for (uint j = 0; j < 64; ++j) {
        const ulong k = (ulong)(long)x[x_off + i + j];
        acc |= (k + d) | ~(k - d);
      }
      if (acc >> 63)
        for (uint j = 0; j < 64; ++j) {
          const long k = (long)x[x_off + i + j];
          if (k < -(long)d || k > (long)d - 1) {
            found = i + j;
            break;
          }
        }
    }
    for (; i < end && found == CLG_NONE; ++i) {
      const long k = (long)x[x_off + i];
      if (k < -(long)d || k > (long)d - 1)
        found = i;
    }
  } else
#endif
  if (period == 1) {
    /* GPUs: eight loads in flight per work-item (a loop that stops at the
     * first bad value issues one at a time), each coalesced over the
     * group; the first bad one of the eight is found afterwards. */
    const long d = (long)s[0];
    for (ulong b = first + lid; b < end && found == CLG_NONE;
         b += 8 * CLG_LOCAL) {
      uint bad = 0;
      for (uint j = 0; j < 8; ++j) {
        const ulong i = b + (ulong)j * CLG_LOCAL;
        if (i < end) {
          const long k = (long)x[x_off + i];
          bad |= (uint)(k < -d || k > d - 1) << j;
        }
      }
      for (uint j = 0; j < 8 && bad; ++j)
        if ((bad >> j) & 1u) {
          found = b + (ulong)j * CLG_LOCAL;
          break;
        }
    }
  } else {
    ulong i = first + lid;
    uint phase = (uint)(i % period);
    const uint step = CLG_LOCAL % period;
    for (; i < end; i += CLG_LOCAL) {
      const long d = (long)s[phase];
      const long k = (long)x[x_off + i];
      if (k < -d || k > d - 1) {
        found = i;
        break;
      }
      phase += step;
      if (phase >= period)
        phase -= period;
    }
  }
  best[lid] = found;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint h = CLG_LOCAL / 2; h > 0; h >>= 1) {
    if (lid < h && best[lid + h] < best[lid])
      best[lid] = best[lid + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    const ulong pos = best[0];
    result[CLG_GROUPS_AT + 2 * g] = pos;
    result[CLG_GROUPS_AT + 1 + 2 * g] =
        pos == CLG_NONE ? 0 : (ulong)(long)x[x_off + pos];
    if (g == 0)
      ((global uint *)result)[1] = gen;
    if (pos != CLG_NONE)
      atomic_xchg((volatile global uint *)result, 1u);
  }
}
