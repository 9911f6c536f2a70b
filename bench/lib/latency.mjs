// The latency summary of the Socket.IO load clients (sio-client.mjs, sio-broadcast-client.mjs): the shape of
// gale-loadgen-ws's summaries (bench/lib/ws-types.ts LatencySummary), from a list of microsecond samples.

/** min, mean, median, p95, p99, max and stddev of `xs` (µs), or null for no sample. */
export function summary(xs) {
  if (!xs.length) return null;
  const s = Float64Array.from(xs).sort();
  const at = (q) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const sd = Math.sqrt(s.reduce((a, b) => a + (b - mean) ** 2, 0) / s.length);
  const r1 = (x) => Math.round(x * 10) / 10;
  return {
    min: s[0],
    mean: r1(mean),
    median: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    max: s[s.length - 1],
    stddev: r1(sd),
  };
}
