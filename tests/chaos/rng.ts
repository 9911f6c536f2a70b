// The live fuzzer's randomness: a seeded PRNG (every run is replayable from its seed) and the byte-level
// mutators applied to generated traffic. No I/O here.

/**
 * xoshiro128** (Blackman and Vigna; period 2^128 - 1), seeded through splitmix32 so that nearby seeds give
 * unrelated streams. (An earlier home-made xorshift here repeated itself every 8 190 draws; the test below in
 * rng.test.ts guards against that.)
 */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    let x = seed >>> 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) | 0;
      let t = x ^ (x >>> 16);
      t = Math.imul(t, 0x21f0aaad);
      t ^= t >>> 15;
      t = Math.imul(t, 0x735a2d97);
      return (t ^ (t >>> 15)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  u32(): number {
    const rotl = (v: number, k: number) => (v << k) | (v >>> (32 - k));
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return n <= 0 ? 0 : this.u32() % n;
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.u32() / 0x100000000 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** Picks by weight: `[[weight, value], …]`. */
  weighted<T>(items: readonly (readonly [number, T])[]): T {
    let total = 0;
    for (const [w] of items) total += w;
    let r = this.int(total);
    for (const [w, v] of items) {
      if (r < w) return v;
      r -= w;
    }
    return (items[items.length - 1] as readonly [number, T])[1];
  }

  bytes(n: number): Buffer {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = this.u32() & 0xff;
    return b;
  }

  /** A size biased toward the boundaries where length encodings and buffers change. */
  size(max: number): number {
    const edges = [0, 1, 2, 7, 8, 125, 126, 127, 128, 255, 256, 1023, 1024, 4095, 4096, 4097, 65_535, 65_536, 65_537];
    if (this.chance(0.5)) {
      const e = this.pick(edges.filter((x) => x <= max));
      return Math.max(0, e + this.range(-1, 1));
    }
    return this.int(Math.min(max, this.chance(0.8) ? 512 : max) + 1);
  }
}

const SPECIAL = [0x00, 0x0a, 0x0d, 0x20, 0x09, 0x3a, 0x3b, 0x7f, 0x80, 0xff, 0x22, 0x5c, 0x25, 0x2f, 0x2e, 0x30];

/** One random byte-level change: flip, insert, delete, duplicate, truncate or splice in a special byte. */
export function mutate(rng: Rng, input: Buffer): Buffer {
  if (input.length === 0) return rng.bytes(rng.range(1, 8));
  const at = rng.int(input.length);
  switch (rng.int(7)) {
    case 0: {
      const out = Buffer.from(input);
      out[at] = (out[at] as number) ^ (1 << rng.int(8));
      return out;
    }
    case 1:
      return Buffer.concat([input.subarray(0, at), Buffer.from([rng.pick(SPECIAL)]), input.subarray(at)]);
    case 2:
      return Buffer.concat([input.subarray(0, at), input.subarray(Math.min(input.length, at + rng.range(1, 16)))]);
    case 3: {
      const len = rng.range(1, Math.min(64, input.length - at));
      const part = input.subarray(at, at + len);
      return Buffer.concat([input.subarray(0, at), part, part, input.subarray(at)]);
    }
    case 4:
      return input.subarray(0, at);
    case 5: {
      const out = Buffer.from(input);
      out[at] = rng.pick(SPECIAL);
      return out;
    }
    default:
      return Buffer.concat([input.subarray(0, at), rng.bytes(rng.range(1, 32)), input.subarray(at)]);
  }
}

/** Applies `n` mutations. */
export function mutateN(rng: Rng, input: Buffer, n: number): Buffer {
  let out = input;
  for (let i = 0; i < n; i++) out = mutate(rng, out);
  return out;
}
