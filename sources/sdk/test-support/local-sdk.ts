import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A local SDK folder as a team would write one (`<root>/sdk/trains/`): TSDoc on types and functions,
 * a nested namespace, a client class built from config, and one export of each kind the compiler
 * must leave out (a callback parameter, a class, a stream, a Date, a rest parameter, a constant).
 */
export const TRAINS_SDK: Record<string, string> = {
  'types.ts': `/** A trip between two stations. */
export interface Trip {
  /** Departure station code. */
  from: string;
  to: string;
  /** Minutes from departure to arrival. */
  minutes: number;
  stops?: string[];
}

/** A currency prices are given in. */
export type Currency = 'EUR' | 'CHF';
`,
  'index.ts': `import type { Currency, Trip } from './types';
export type { Currency, Trip } from './types';

/** Adds two numbers. */
export function add(a: number, b: number): number {
  return a + b;
}

/** Finds the trips between two stations, fastest first. */
export async function findTrips(query: { from: string; to: string; limit?: number }): Promise<Trip[]> {
  const trips: Trip[] = [
    { from: query.from, to: query.to, minutes: 56 },
    { from: query.from, to: query.to, minutes: 72, stops: ['OL'] },
  ];
  return trips.slice(0, query.limit ?? trips.length);
}

export const prices = {
  /** The price of a trip, in a currency. */
  async quote(trip: Trip, currency: Currency = 'EUR'): Promise<{ amount: number; currency: Currency }> {
    return { amount: trip.minutes * (currency === 'CHF' ? 0.5 : 0.45), currency };
  },
  refunds: {
    /** Refunds a ticket; fails for a ticket that does not exist. */
    async request(params: { ticket: string }): Promise<{ refunded: boolean }> {
      if (!params.ticket.startsWith('T')) throw new Error(\`unknown ticket \${params.ticket}\`);
      return { refunded: true };
    },
  },
};

/** Calls back on each departure (left out: a function parameter). */
export function onDeparture(callback: (trip: Trip) => void): void {
  void callback;
}

/** A timetable (left out: a class). */
export class Timetable {
  constructor(readonly station: string) {}
}

/** The live board (left out: a stream). */
export function board(): ReadableStream<string> {
  return new ReadableStream();
}

/** When a trip leaves (left out: a Date). */
export function departure(trip: Trip): Date {
  return new Date(trip.minutes);
}

/** Sums any number of values (left out: a rest parameter). */
export function sum(...values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

export const VERSION = '1.0.0';

/** A client of the booking service, built from config. */
export class BookingClient {
  readonly #token: string;
  constructor(options: { token: string; region?: string }) {
    this.#token = options.token;
  }
  /** Who the token belongs to. */
  async whoami(): Promise<{ user: string; tokenLength: number }> {
    return { user: 'ada', tokenLength: this.#token.length };
  }
  private secretHelper(): string {
    return this.#token;
  }
}
`,
};

/** Writes {@link TRAINS_SDK} (or `files`) into `<root>/<folder>`; returns the folder. */
export async function writeLocalSdk(root: string, folder = 'sdk/trains', files: Record<string, string> = TRAINS_SDK): Promise<string> {
  const directory = path.join(root, folder);
  await mkdir(directory, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(directory, name), text);
  return directory;
}
