// HttpArena's scoring (its docs/scoring/composite-score.md): per profile, each entry's average rps over the profile's
// connection counts, normalized to the best entry (× 100); json-comp's average first scaled by (min bytes per
// response ÷ own)²; the composite is the sum over the profiles. An entry without a valid figure scores 0 there.

export interface Row {
  profile: string;
  entry: string;
  /** One figure per connection count; null where that run was not valid. */
  rps: (number | null)[];
  /** Bytes read per response, per connection count (json-comp's weight); null where not valid. */
  bytesPerResponse: (number | null)[];
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The average rps over the counts, or null when any count has no valid figure (HttpArena has none then either). */
export function averageRps(r: Row): number | null {
  if (r.rps.length === 0 || r.rps.some((x) => x === null)) return null;
  return mean(r.rps as number[]);
}

/** profile → entry → score (0–100). */
export function profileScores(rows: readonly Row[]): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const profile of new Set(rows.map((r) => r.profile))) {
    const mine = rows.filter((r) => r.profile === profile);
    const avg = new Map<string, number>();
    for (const r of mine) {
      const a = averageRps(r);
      if (a !== null && a > 0) avg.set(r.entry, a);
    }
    if (profile === 'json-comp') {
      // avgRps × (minBpr / myBpr)²: doubling the response size quarters the score.
      const bpr = new Map<string, number>();
      for (const r of mine) {
        if (!avg.has(r.entry) || r.bytesPerResponse.some((b) => b === null)) continue;
        bpr.set(r.entry, mean(r.bytesPerResponse as number[]));
      }
      const minBpr = Math.min(...bpr.values());
      for (const [e, a] of [...avg]) {
        const b = bpr.get(e);
        if (b === undefined) avg.delete(e);
        else avg.set(e, a * (minBpr / b) ** 2);
      }
    }
    const best = Math.max(0, ...avg.values());
    const scores = new Map<string, number>();
    for (const r of mine) scores.set(r.entry, best > 0 ? (100 * (avg.get(r.entry) ?? 0)) / best : 0);
    out.set(profile, scores);
  }
  return out;
}

/** entry → composite (the sum of its profile scores). */
export function composite(scores: Map<string, Map<string, number>>): Map<string, number> {
  const out = new Map<string, number>();
  for (const byEntry of scores.values()) {
    for (const [e, s] of byEntry) out.set(e, (out.get(e) ?? 0) + s);
  }
  return out;
}
