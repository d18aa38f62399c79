/**
 * Python's `random.Random(seed)` for an integer seed — the Mersenne Twister (MT19937) seeded by
 * `init_by_array`, as CPython's `_randommodule.c` does — with the three draws BFCL's classes use:
 * `random()`, `uniform(a, b)` and `randint(a, b)`. Written from the MT19937 reference algorithm, so the
 * ported classes draw the same numbers as BFCL's Python ones.
 */
const N = 624;
const M = 397;

export class PythonRandom {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  constructor(seed: number) {
    this.initByArray(wordsOf(Math.abs(seed)));
  }

  private initGenrand(seed: number): void {
    const mt = this.mt;
    mt[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const previous = mt[i - 1] as number;
      mt[i] = (Math.imul(1812433253, previous ^ (previous >>> 30)) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const previous = mt[i - 1] as number;
      mt[i] = ((mt[i] as number) ^ Math.imul(previous ^ (previous >>> 30), 1664525)) + (key[j] as number) + j;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const previous = mt[i - 1] as number;
      mt[i] = ((mt[i] as number) ^ Math.imul(previous ^ (previous >>> 30), 1566083941)) - i;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** The next 32-bit output (`genrand_uint32`). */
  private next(): number {
    const mt = this.mt;
    if (this.index >= N) {
      for (let k = 0; k < N; k++) {
        const y = ((mt[k] as number) & 0x80000000) | ((mt[(k + 1) % N] as number) & 0x7fffffff);
        mt[k] = (mt[(k + M) % N] as number) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++] as number;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** A float in [0, 1) with 53 random bits. */
  random(): number {
    const a = this.next() >>> 5;
    const b = this.next() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  uniform(a: number, b: number): number {
    return a + (b - a) * this.random();
  }

  /** An integer in [a, b], both included (`_randbelow` by rejection of `getrandbits`). */
  randint(a: number, b: number): number {
    const n = b - a + 1;
    const bits = n.toString(2).length;
    if (bits > 32) throw new Error('randint: ranges over 2^32 are not supported');
    let r = this.next() >>> (32 - bits);
    while (r >= n) r = this.next() >>> (32 - bits);
    return a + r;
  }
}

/** The 32-bit words of a non-negative integer, least significant first (at least one). */
function wordsOf(value: number): number[] {
  const words: number[] = [];
  let rest = Math.trunc(value);
  do {
    words.push(rest % 0x100000000);
    rest = Math.floor(rest / 0x100000000);
  } while (rest > 0);
  return words;
}
