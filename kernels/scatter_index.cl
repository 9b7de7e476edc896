/* The scatters' index pass on the device, for cl_mem indices (host/ops/
 * scatter_device.c): targets, repeated targets and the order updates apply
 * in, computed where the indices are, after the validation kernel
 * (kernels/validate.cl) has checked their bounds.
 *
 * Every kernel takes the verdict buffer last (the validation kernel's, with
 * four more 64-bit words at word `vx`; a 32-bit value sits in the first four
 * bytes of its word, which the host reads as such, whatever the byte
 * order: host/run/index_pass.c, clg__verdict_read):
 *   verdict[0]             (uint) set: some check failed, write nothing
 *   ((uint*)verdict)[2vx]  set: two entries share a target (reduction none)
 *   ((uint*)verdict)[2vx+2] ~ the smallest entry whose target an earlier
 *                          entry has (0: none yet; atomic_max of the
 *                          complement, so the buffer starts as zeros)
 *   ((uint*)verdict)[2vx+4] the earliest entry with that target
 *   ((ulong*)verdict)[vx+3] that target
 * `gate` 0: run only while verdict[0] is clear; 1: run only once a repeat
 * was found (the exact search for the message).
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

/* The 16 lanes of v into a private array, lane by lane: vstore16 into
 * private memory left the array uninitialized under Oclgrind 21.10
 * ("Uninitialized address used to read from private memory" in
 * clg_si_hist, on the keys computed from it) and gave wrong targets
 * there; plain assignments are the same on every compiler. */
static void clg_si_lanes(ulong16 v, ulong *out) {
  out[0] = v.s0, out[1] = v.s1, out[2] = v.s2, out[3] = v.s3;
  out[4] = v.s4, out[5] = v.s5, out[6] = v.s6, out[7] = v.s7;
  out[8] = v.s8, out[9] = v.s9, out[10] = v.sa, out[11] = v.sb;
  out[12] = v.sc, out[13] = v.sd, out[14] = v.se, out[15] = v.sf;
}

#define CLG_SI_DUP(v, vx) ((v)[2 * (vx)])
#define CLG_SI_GATE(v, vx, gate)                                               \
  if ((gate) == 0 ? (v)[0] != 0 : CLG_SI_DUP(v, vx) == 0)                      \
    return;

/* ScatterND: entry e is the tuple x[e*m .. e*m+m-1]; its target, the
 * slice's index over data.shape[:m], is dims-mixed-radix. */
kernel void clg_si_keys_nd(global const index_t *restrict x, ulong x_off,
                           ulong n, uint m, ulong16 dims,
                           global uint *restrict keys, ulong vx,
                           global uint *verdict) {
  const size_t e = get_global_id(0);
  if (e >= n)
    return;
  CLG_SI_GATE(verdict, vx, 0)
  if (m == 1) {
    const long v = (long)x[x_off + e];
    keys[e] = (uint)(v < 0 ? v + (long)dims.s0 : v);
    return;
  }
  ulong d[16];
  clg_si_lanes(dims, d);
  ulong t = 0;
  for (uint j = 0; j < m; ++j) {
    long v = (long)x[x_off + e * m + j];
    if (v < 0)
      v += (long)d[j];
    t = t * d[j] + (ulong)v;
  }
  keys[e] = (uint)t;
}

/* ScatterElements: entry e is x[e]; its coordinates in indices' (merged)
 * shape `dims` (rank r), with the one on the axis `a` replaced by the index
 * value, weighted by data's `strides`, give its target element. NDRange
 * (dims[r-1], the rest): no division for the innermost dimension, and none
 * at all up to rank 2. */
kernel void clg_si_keys_elements(global const index_t *restrict x, ulong x_off,
                                 ulong n0, ulong rows, uint r, ulong16 dims,
                                 ulong16 strides, uint a, ulong abound,
                                 global uint *restrict keys, ulong vx,
                                 global uint *verdict) {
  const size_t j = get_global_id(0), row = get_global_id(1);
  if (j >= n0 || row >= rows)
    return;
  CLG_SI_GATE(verdict, vx, 0)
  const size_t e = row * n0 + j;
  const long v = (long)x[x_off + e];
  const ulong value = (ulong)(v < 0 ? v + (long)abound : v);
  ulong t;
  if (r == 1)
    t = value * strides.s0;
  else if (r == 2)
    t = (a == 0 ? value : (ulong)row) * strides.s0 +
        (a == 1 ? value : (ulong)j) * strides.s1;
  else {
    ulong d[16], s[16];
    clg_si_lanes(dims, d);
    clg_si_lanes(strides, s);
    ulong rest = row;
    t = (a == r - 1 ? value : (ulong)j) * s[r - 1];
    for (int i = (int)r - 2; i >= 0; --i) {
      /* rest - q * d[i], not rest % d[i]: see gather_elements.cl (LLVM's
       * `freeze`, fatal to Oclgrind 21.10's uninitialized-value check). */
      ulong q = rest / d[i];
      ulong c = rest - q * d[i];
      rest = q;
      t += ((uint)i == a ? value : c) * s[i];
    }
  }
  keys[e] = (uint)t;
}

/* A bitmap of `words` words, cleared. */
kernel void clg_si_zero(global uint *restrict bits, ulong words, ulong vx,
                        global uint *verdict) {
  const size_t i = get_global_id(0);
  if (i >= words)
    return;
  CLG_SI_GATE(verdict, vx, 0)
  bits[i] = 0;
}

/* Reduction none, duplicates an error: each entry claims its target's bit;
 * finding it set means a repeat (which entry finds it depends on the
 * schedule; the message comes from the sorted search below). */
kernel void clg_si_claim(global const uint *restrict keys, ulong n,
                         global uint *bits, ulong vx, global uint *verdict) {
  const size_t e = get_global_id(0);
  if (e >= n)
    return;
  CLG_SI_GATE(verdict, vx, 0)
  const uint t = keys[e], bit = 1u << (t & 31u);
  /* Only the repeat's word: verdict[0], which every work-item here reads
   * (the gate, a plain load), is set by clg_si_later, which runs (after
   * the sort) only once a repeat was found; an atomic store to it here
   * raced with those loads (Oclgrind --data-races). */
  if (atomic_or(&bits[t >> 5], bit) & bit)
    atomic_xchg(&CLG_SI_DUP(verdict, vx), 1u);
}

/* Radix pass, 1: the count of each digit in each chunk, hist[d * C + g]. */
kernel void clg_si_hist(global const uint *restrict keys, ulong n, ulong chunk,
                        uint shift, global uint *restrict hist, uint C,
                        uint gate, ulong vx, global uint *verdict) {
  const uint g = (uint)get_global_id(0);
  if (g >= C)
    return;
  CLG_SI_GATE(verdict, vx, gate)
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
kernel void clg_si_scan(global uint *restrict hist, uint total,
                        local uint *restrict part, uint gate, ulong vx,
                        global uint *verdict) {
  CLG_SI_GATE(verdict, vx, gate)
  const uint L = (uint)get_local_size(0), i = (uint)get_local_id(0);
  const uint seg = (total + L - 1) / L; /* no %: see clg_si_keys_elements */
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
kernel void clg_si_place(global const uint *restrict keys,
                         global const uint *restrict vals,
                         global uint *restrict keys2,
                         global uint *restrict vals2, ulong n, ulong chunk,
                         uint shift, global const uint *restrict hist, uint C,
                         uint iota, uint gate, ulong vx,
                         global uint *verdict) {
  const uint g = (uint)get_global_id(0);
  if (g >= C)
    return;
  CLG_SI_GATE(verdict, vx, gate)
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
kernel void clg_si_later(global const uint *restrict keys,
                         global const uint *restrict vals, ulong n,
                         ulong chunk, ulong vx, global uint *verdict) {
  const ulong g = get_global_id(0), begin = g * chunk;
  if (begin >= n)
    return;
  CLG_SI_GATE(verdict, vx, 1)
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
kernel void clg_si_first(global const uint *restrict keys,
                         global const uint *restrict vals, ulong n,
                         ulong chunk, ulong vx, global uint *verdict) {
  const ulong g = get_global_id(0), begin = g * chunk;
  if (begin >= n)
    return;
  CLG_SI_GATE(verdict, vx, 1)
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
