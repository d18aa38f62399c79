// A small local SDK, as a team keeps one next to its services: the example space compiles it into
// @capabilities/fares (see `sdks` in agent-spaces.config.ts and docs/SDK.md). Plain TypeScript, no
// schema written by hand: the compiler reads these declarations.

/** A class of travel. */
export type TravelClass = 'first' | 'second';

/** The price of one journey. */
export interface Fare {
  /** Station the journey starts at. */
  from: string;
  /** Station the journey ends at. */
  to: string;
  travelClass: TravelClass;
  /** Price in Swiss francs. */
  chf: number;
}

/** A travel pass and what it covers. */
export interface Pass {
  name: string;
  /** Price in Swiss francs per month. */
  monthlyChf: number;
  /** Discount on single fares, 0 to 1. */
  discount: number;
}

const DISTANCES: Record<string, number> = { 'Bern-Zürich': 125, 'Bern-Basel': 100, 'Basel-Zürich': 87 };

function distance(from: string, to: string): number {
  const known = DISTANCES[`${from}-${to}`] ?? DISTANCES[`${to}-${from}`];
  if (known === undefined) throw new Error(`no fare between ${from} and ${to} (known: Bern, Zürich, Basel)`);
  return known;
}

/** The fare of a journey between two stations (Bern, Zürich, Basel). */
export async function quote(journey: { from: string; to: string; travelClass?: TravelClass }): Promise<Fare> {
  const travelClass = journey.travelClass ?? 'second';
  const chf = Math.round(distance(journey.from, journey.to) * (travelClass === 'first' ? 0.66 : 0.4));
  return { from: journey.from, to: journey.to, travelClass, chf };
}

export const passes = {
  /** Every travel pass on sale. */
  async list(): Promise<Pass[]> {
    return [
      { name: 'Half Fare', monthlyChf: 16, discount: 0.5 },
      { name: 'GA Travelcard', monthlyChf: 340, discount: 1 },
    ];
  },
  /** What a journey costs with a pass, per trip. */
  async priceWith(fare: Fare, pass: Pass): Promise<number> {
    return Math.round(fare.chf * (1 - pass.discount) * 100) / 100;
  },
};

/** Calls back when a fare changes (left out of @capabilities/fares: a program cannot pass a function). */
export function onFareChange(listener: (fare: Fare) => void): void {
  void listener;
}
