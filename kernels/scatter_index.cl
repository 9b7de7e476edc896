/* The scatters' index pass on the device, for cl_mem indices (host/ops/
 * scatter_device.c): targets, repeated targets and the order updates apply
 * in, computed where the indices are, after the validation kernel
 * (kernels/validate.cl) has checked their bounds (or, ScatterElements'
 * claim from the indices, clg_scatter_index_claim_rows, checking them itself).
 *
 * Every kernel takes the verdict buffer last (the validation kernel's, with
 * four more 64-bit words at word `vx`; a 32-bit value sits in the first four
 * bytes of its word, which the host reads as such, whatever the byte
 * order: host/run/verdict.c, clg__verdict_read):
 *   verdict[0]             (uint) set: some check failed, write nothing
 *   ((uint*)verdict)[2vx]  bit 0: two entries share a target (reduction
 *                          none); bit 1: clg_scatter_index_claim_rows met an index out
 *                          of its bounds (the host then locates it)
 *   ((uint*)verdict)[2vx+2] ~ the smallest entry whose target an earlier
 *                          entry has (0: none yet; atomic_max of the
 *                          complement, so the buffer starts as zeros)
 *   ((uint*)verdict)[2vx+4] the earliest entry with that target
 *   ((ulong*)verdict)[vx+3] that target
 * `gate` 0: run only while verdict[0] is clear; 1: run only once the word
 * at 2vx is set (the exact search for the message; clg_scatter_index_later then sets
 * verdict[0], which stops the scatter).
 *
 * Targets and entries are uint: the host takes this path only for fewer
 * than 2^32 - 1 entries and at most 2^32 targets.
 *
 * The sort is a least-significant-digit radix sort by target, 8 bits a
 * pass, of (target, entry) pairs: work-item g of C owns the g-th chunk of
 * the pairs and walks it in order, so equal targets keep the order of
 * their entries (stable), and the result is the same on every device and
 * every run. */

#ifndef CLG_INDEX
#error "build with -DCLG_INDEX=int|long"
#endif

#define CLG_SCATTER_INDEX_DUP(v, vx) ((v)[2 * (vx)])
#define CLG_SCATTER_INDEX_GATE(v, vx, gate)                                               \
  if ((gate) == 0 ? (v)[0] != 0 : CLG_SCATTER_INDEX_DUP(v, vx) == 0)                      \
    return;

/* ScatterND: entry e is the tuple x[e*m .. e*m+m-1]; its target, the
 * slice's index over data.shape[:m], is dims-mixed-radix. Work-item g takes
 * entries [g * per, (g + 1) * per): per is 1 on GPUs (neighbouring
 * work-items read neighbouring entries) and a run on CPUs (one work-item
 * per entry cost POCL its per-work-item overhead, about 4 ns an entry). */
kernel void clg_scatter_index_keys_nd(global const index_t *restrict x, ulong x_off,
                           ulong n, uint m, ulong16 dims, ulong per,
                           global uint *restrict keys, ulong vx,
                           global uint *verdict) {
  const ulong b = get_global_id(0) * per;
  if (b >= n)
    return;
  CLG_SCATTER_INDEX_GATE(verdict, vx, 0)
  const ulong end = min(b + per, n);
  if (m == 1) {
    const long d0 = (long)dims.s0;
    for (ulong e = b; e < end; ++e) {
      keys[e] = (uint)CLG_FROM_END(x[x_off + e], d0); /* prelude.cl */
    }
    return;
  }
  ulong d[16];
  CLG_LANES16(dims, d);
  for (ulong e = b; e < end; ++e) {
    ulong t = 0;
    for (uint j = 0; j < m; ++j) {
      t = t * d[j] + (ulong)CLG_FROM_END(x[x_off + e * m + j], d[j]);
    }
    keys[e] = (uint)t;
  }
}

/* ScatterElements: entry e is x[e]; its coordinates in indices' (merged)
 * shape `dims` (rank r), with the one on the axis `a` replaced by the index
 * value, weighted by data's `strides`, give its target element. Work-item
 * g takes entries [g * per, (g + 1) * per) (per: as clg_scatter_index_keys_nd's), row
 * by row of the innermost dimension (n0 entries): the part of the target
 * that the dimensions before the innermost give is worked out once a row
 * (divisions only from rank 3), the rest is a multiply-add an entry. */
kernel void clg_scatter_index_keys_elements(global const index_t *restrict x, ulong x_off,
                                 ulong n, ulong n0, uint r, ulong16 dims,
                                 ulong16 strides, uint a, ulong abound,
                                 ulong per, global uint *restrict keys,
                                 uint gate, ulong vx, global uint *verdict) {
  const ulong b = get_global_id(0) * per;
  if (b >= n)
    return;
  CLG_SCATTER_INDEX_GATE(verdict, vx, gate)
  const ulong end = min(b + per, n);
  ulong d[16], s[16];
  CLG_LANES16(dims, d);
  CLG_LANES16(strides, s);
  /* Targets are below 2^32 (the host's condition for this path), so they
   * are computed modulo 2^32, in uint: a 64-bit multiply has no vector
   * instruction before AVX-512, a 32-bit one has. */
  const uint sa = (uint)s[a], sl = (uint)s[r - 1], ab = (uint)abound;
  const bool last = a == r - 1;
  ulong row = b / n0, j = b - row * n0;
  for (ulong e = b; e < end; ++row, j = 0) {
    /* Row `row`'s coordinates before the innermost, the axis's left out. */
    ulong rest = row, base = 0;
    for (int i = (int)r - 2; i >= 0; --i) {
      /* rest - q * d[i], not rest % d[i]: see gather_elements.cl (LLVM's
       * `freeze`, fatal to Oclgrind 21.10's uninitialized-value check). */
      ulong q = rest / d[i];
      ulong c = rest - q * d[i];
      rest = q;
      if ((uint)i != a)
        base += c * s[i];
    }
    const ulong stop = min(end, e + (n0 - j));
    const uint b32 = (uint)base;
    for (; e < stop; ++e, ++j) {
      const index_t v = x[x_off + e]; /* signed in its own type */
      const uint value = (uint)v + (v < 0 ? ab : 0u);
      keys[e] = b32 + value * sa + (last ? 0u : (uint)j * sl);
    }
  }
}

/* A bitmap of `words` words, cleared; work-item g clears words
 * [g * per, (g + 1) * per). */
kernel void clg_scatter_index_zero(global uint *restrict bits, ulong words, ulong per,
                        ulong vx, global uint *verdict) {
  const ulong b = get_global_id(0) * per;
  if (b >= words)
    return;
  CLG_SCATTER_INDEX_GATE(verdict, vx, 0)
  const ulong end = min(b + per, words);
  for (ulong i = b; i < end; ++i)
    bits[i] = 0;
}

/* Reduction none, duplicates an error: each entry claims its target's bit;
 * finding it set means a repeat (which entry finds it depends on the
 * schedule; the message comes from the sorted search below). Work-item g
 * claims for entries [g * per, (g + 1) * per). `plain`: no other
 * work-item touches the words of this one's targets (the host's promise:
 * ScatterElements on the innermost axis, each run whole rows, each row's
 * targets whole words of their own), so plain loads and stores do; else
 * atomics (about 20 cycles each on a CPU). */
kernel void clg_scatter_index_claim(global const uint *restrict keys, ulong n, ulong per,
                         uint plain, global uint *bits, ulong vx,
                         global uint *verdict) {
  const ulong b = get_global_id(0) * per;
  if (b >= n)
    return;
  CLG_SCATTER_INDEX_GATE(verdict, vx, 0)
  const ulong end = min(b + per, n);
  uint seen = 0;
  if (plain)
    for (ulong e = b; e < end; ++e) {
      const uint t = keys[e], bit = 1u << (t & 31u), w = bits[t >> 5];
      seen |= w & bit;
      bits[t >> 5] = w | bit;
    }
  else
    for (ulong e = b; e < end; ++e) {
      const uint t = keys[e], bit = 1u << (t & 31u);
      seen |= atomic_or(&bits[t >> 5], bit) & bit;
    }
  /* Only the repeat's word: verdict[0], which every work-item here reads
   * (the gate, a plain load), is set by clg_scatter_index_later, which runs (after
   * the sort) only once a repeat was found; an atomic store to it here
   * raced with those loads (Oclgrind --data-races). */
  if (seen)
    atomic_xchg(&CLG_SCATTER_INDEX_DUP(verdict, vx), 1u);
}

/* The claim of ScatterElements on the innermost axis of a rank-2 (merged)
 * view, on a CPU, from the indices themselves: entry (row, j)'s target is
 * row * s0 + value * s1 (clg_scatter_index_keys_elements' formula at rank 2), so no
 * targets are written (the host then has the scatter compute them too,
 * and the sort's targets made only once a repeat was found). Runs of
 * whole rows, each row's targets whole bitmap words of its own: plain
 * loads and stores, as clg_scatter_index_claim's `plain`.
 *
 * It checks every index against [-abound, abound - 1] as well, so that a
 * synchronous call runs no validation kernel before it (host/run/call.c):
 * SE1 (4M int64 entries, Zen 3), device times in alternating runs: the
 * validation 2.0-2.2 ms and this claim 3.9-4.6 ms became a claim of
 * 5.5-5.7 ms (the test costs its scalar loop a quarter more; a vectorized
 * test of each block of 64 first was slower still). An index out of range
 * claims its row's first target instead (no store leaves the row's words)
 * and sets bit 1 of the repeat's word: the search for a repeat's message
 * then runs (gate 1) and its clg_scatter_index_later stops the scatter; the host
 * finds the first offender with the validation kernel, on that error path
 * only. */
kernel void clg_scatter_index_claim_rows(global const index_t *restrict x, ulong x_off,
                              ulong n, ulong n0, ulong s0, uint s1,
                              ulong abound, ulong per, global uint *bits,
                              ulong vx, global uint *verdict) {
  const ulong b = get_global_id(0) * per;
  if (b >= n)
    return;
  CLG_SCATTER_INDEX_GATE(verdict, vx, 0)
  const ulong end = min(b + per, n);
  /* Targets below 2^32, as the keys': uint arithmetic. */
  const uint ab = (uint)abound, words = (uint)(abound * s1 / 32);
  uint seen = 0, bad = 0;
  for (ulong e = b, row = b / n0; e < end; ++row) {
    const uint base = (uint)(row * s0);
    for (const ulong stop = e + n0; e < stop; ++e) {
      const index_t v = x[x_off + e]; /* signed in its own type */
      /* v in [-abound, abound - 1], in ulong arithmetic (wrapping): */
      const uint ok = (ulong)(long)v + abound < 2 * abound;
      const uint t = base + (ok ? ((uint)v + (v < 0 ? ab : 0u)) * s1 : 0u);
      bad |= !ok;
      bits[t >> 5] |= 1u << (t & 31u);
    }
    /* The row's n0 distinct targets set n0 bits of its words (a multiple
     * of 32 from base, which s0, a multiple of abound * s1, keeps whole
     * words): fewer means a repeat. Counted once a row rather than each
     * entry testing its bit: 25-35% less time in a C model of SE1's claim
     * (4096 rows of 1024 entries, Zen 3). */
    uint set = 0;
    for (uint w = 0; w < words; ++w)
      set += popcount(bits[(base >> 5) + w]);
    seen |= set != (uint)n0;
  }
  if (seen | bad) /* as clg_scatter_index_claim's, the word only */
    atomic_or(&CLG_SCATTER_INDEX_DUP(verdict, vx), (seen ? 1u : 0u) | (bad ? 2u : 0u));
}

/* Radix pass, 1: the count of each digit in each chunk, hist[d * C + g]. */
kernel void clg_scatter_index_hist(global const uint *restrict keys, ulong n, ulong chunk,
                        uint shift, global uint *restrict hist, uint C,
                        uint gate, ulong vx, global uint *verdict) {
  const uint g = (uint)get_global_id(0);
  if (g >= C)
    return;
  CLG_SCATTER_INDEX_GATE(verdict, vx, gate)
  uint count[256];
  for (uint d = 0; d < 256; ++d)
    count[d] = 0;
  ulong end = (g + 1) * chunk < n ? (g + 1) * chunk : n;
  for (ulong i = g * chunk; i < end; ++i)
    ++count[(keys[i] >> shift) & 255u];
  for (uint d = 0; d < 256; ++d)
    hist[d * C + g] = count[d];
}

/* Radix pass, 2: the counts in (digit, chunk) order, exclusively summed:
 * where each chunk's pairs of each digit go. One work-group of L
 * work-items (`part`: L uints of local memory): work-item i sums its own
 * contiguous segment of the counts, work-item 0 sums those L sums
 * exclusively, and each work-item then rewrites its segment from its
 * segment's start. L is 1 on CPUs (a plain loop); a GPU's work-items each
 * walk total / L counts instead of one work-item walking them all. */
kernel void clg_scatter_index_scan(global uint *restrict hist, uint total,
                        local uint *restrict part, uint gate, ulong vx,
                        global uint *verdict) {
  CLG_SCATTER_INDEX_GATE(verdict, vx, gate)
  const uint L = (uint)get_local_size(0), i = (uint)get_local_id(0);
  const uint seg = (total + L - 1) / L; /* no %: see clg_scatter_index_keys_elements */
  const uint b = min(i * seg, total), e = min(b + seg, total);
  uint sum = 0;
  for (uint k = b; k < e; ++k)
    sum += hist[k];
  part[i] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i == 0) {
    uint run = 0;
    for (uint k = 0; k < L; ++k) {
      const uint c = part[k];
      part[k] = run;
      run += c;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint run = part[i];
  for (uint k = b; k < e; ++k) {
    const uint c = hist[k];
    hist[k] = run;
    run += c;
  }
}

/* Radix pass, 3: each chunk's pairs to their places, in order (stable).
 * `iota`: the first pass, whose entries are the positions themselves. */
kernel void clg_scatter_index_place(global const uint *restrict keys,
                         global const uint *restrict vals,
                         global uint *restrict keys2,
                         global uint *restrict vals2, ulong n, ulong chunk,
                         uint shift, global const uint *restrict hist, uint C,
                         uint iota, uint gate, ulong vx,
                         global uint *verdict) {
  const uint g = (uint)get_global_id(0);
  if (g >= C)
    return;
  CLG_SCATTER_INDEX_GATE(verdict, vx, gate)
  uint next[256];
  for (uint d = 0; d < 256; ++d)
    next[d] = hist[d * C + g];
  ulong end = (g + 1) * chunk < n ? (g + 1) * chunk : n;
  for (ulong i = g * chunk; i < end; ++i) {
    const uint k = keys[i], p = next[(k >> shift) & 255u]++;
    keys2[p] = k;
    vals2[p] = iota ? (uint)i : vals[i]; /* the first pass: entries */
  }
}

/* The message of a repeat, 1: sorted pairs i-1, i with one target make
 * entry vals[i] a later one; the smallest such entry. Work-item g looks at
 * positions [g * chunk, (g + 1) * chunk). */
kernel void clg_scatter_index_later(global const uint *restrict keys,
                         global const uint *restrict vals, ulong n,
                         ulong chunk, ulong vx, global uint *verdict) {
  const ulong g = get_global_id(0), begin = g * chunk;
  if (begin >= n)
    return;
  CLG_SCATTER_INDEX_GATE(verdict, vx, 1)
  /* A repeat was found: the scatter's kernels (gated on verdict[0]) write
   * nothing. Nothing in this kernel reads verdict[0]. */
  if (g == 0)
    atomic_xchg(&verdict[0], 1u);
  const ulong end = begin + chunk < n ? begin + chunk : n;
  uint best = 0; /* the complement of the smallest later entry seen */
  for (ulong i = begin > 0 ? begin : 1; i < end; ++i)
    if (keys[i] == keys[i - 1] && ~vals[i] > best)
      best = ~vals[i];
  if (best)
    atomic_max(&verdict[2 * vx + 2], best);
}

/* The message of a repeat, 2: the earliest entry with the later one's
 * target (the head of its run in the sorted pairs), and the target. */
kernel void clg_scatter_index_first(global const uint *restrict keys,
                         global const uint *restrict vals, ulong n,
                         ulong chunk, ulong vx, global uint *verdict) {
  const ulong g = get_global_id(0), begin = g * chunk;
  if (begin >= n)
    return;
  CLG_SCATTER_INDEX_GATE(verdict, vx, 1)
  const ulong end = begin + chunk < n ? begin + chunk : n;
  const uint later = ~verdict[2 * vx + 2];
  for (ulong i = begin; i < end; ++i) {
    if (vals[i] != later)
      continue;
    ulong h = i;
    while (h > 0 && keys[h - 1] == keys[i])
      --h;
    verdict[2 * vx + 4] = vals[h];
    ((global ulong *)verdict)[vx + 3] = keys[i];
  }
}
