// Shared by the orchestrator and every driver (plain JS: peer drivers run on Node 22 without tsx).
// The payloads are deterministic, so the orchestrator knows each workload's expected result digest.
/* global Buffer, setTimeout */
import { createHash } from 'node:crypto';

/** One record of the payloads: ~155 bytes of JSON, mixed value types. */
export function row(i) {
  return {
    id: i,
    name: 'user-' + String(i).padStart(6, '0'),
    email: 'user' + i + '@example.com',
    score: ((i * 7919) % 1000) / 10,
    active: i % 3 === 0,
    tags: ['t' + (i % 7), 't' + (i % 11)],
    address: { city: 'City ' + (i % 97), zip: String(10000 + ((i * 31) % 89999)) },
  };
}

export const BIG_ROWS = 36_800; // ≈ 5.7 MB of JSON
export const CHUNK_ROWS = 326; // ≈ 50 KB of JSON

let big;
/** W5a: the ~5.7 MB result (built once per process, as a host's data would be). */
export function bigPayload() {
  big ??= { rows: Array.from({ length: BIG_ROWS }, (_, i) => row(i)) };
  return big;
}

/** W5b: the ~50 KB result of call number `i`. */
export function chunkPayload(i) {
  return { i, items: Array.from({ length: CHUNK_ROWS }, (_, k) => row(i * 1000 + k)) };
}

/** Fingerprint of a result: sha256 of its JSON (key order is preserved by every system's JSON copy). */
export function digest(value) {
  const json = JSON.stringify(value === undefined ? null : value);
  return { sha: createHash('sha256').update(json).digest('hex').slice(0, 16), bytes: Buffer.byteLength(json) };
}

/** The host side of the tools, shared by every system's host (each registers them in its own way). */
export const tools = {
  echo: ({ text }) => ({ text }),
  sleep: ({ ms }) => new Promise((resolve) => setTimeout(() => resolve({ ms }), ms)),
  big: () => bigPayload(),
  chunk: ({ i }) => chunkPayload(i),
};
