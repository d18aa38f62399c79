/**
 * The globals a program sees inside the isolate besides ES2022, as TypeScript declarations: the type
 * checker adds them to every check. They are exactly what the bootstrap provides
 * (the guest code, guest/src/*.ts), no more:
 * `sandbox-globals.test.ts` runs a program in both isolation modes and compares the globals it finds
 * with these declarations and ES2022's. Node's and the browser's other globals (`fetch`, `process`,
 * `require`, `Buffer`, `setImmediate`, `document`, …) are neither declared nor there.
 */
export const SANDBOX_GLOBALS_DECLARATION = `
interface Console {
  log(...data: unknown[]): void; info(...data: unknown[]): void; warn(...data: unknown[]): void;
  error(...data: unknown[]): void; debug(...data: unknown[]): void; trace(...data: unknown[]): void;
}
declare var console: Console;

/**
 * Calls \`handler\` once after \`timeout\` ms (at least 1, at most 2^31 - 1). The run's time limit counts
 * while it waits; timers still pending when the program's result is settled are dropped. A run may
 * have 1,000 timers pending and create 10,000: past that this throws a RangeError (code TIMER_LIMIT).
 */
declare function setTimeout(handler: (_: void) => void, timeout?: number): number;
declare function setTimeout<TArgs extends unknown[]>(handler: (...args: TArgs) => void, timeout?: number, ...args: TArgs): number;
declare function clearTimeout(id: number | undefined): void;
/** Calls \`handler\` every \`timeout\` ms until cleared; limits as for setTimeout. */
declare function setInterval(handler: (_: void) => void, timeout?: number): number;
declare function setInterval<TArgs extends unknown[]>(handler: (...args: TArgs) => void, timeout?: number, ...args: TArgs): number;
declare function clearInterval(id: number | undefined): void;
declare function queueMicrotask(callback: () => void): void;

/** A deep copy: objects, arrays, Date, RegExp, Map, Set, ArrayBuffer, typed arrays, errors, cycles. Functions and symbols throw a DataCloneError. */
declare function structuredClone<T>(value: T): T;
/** Decodes base64 into a string of bytes (code units 0-255). */
declare function atob(data: string): string;
/** Encodes a string of bytes (code units 0-255) as base64. */
declare function btoa(data: string): string;

interface DOMException extends Error {
  readonly name: string; readonly message: string; readonly code: number;
}
declare var DOMException: { prototype: DOMException; new (message?: string, name?: string): DOMException };

interface TextEncoderEncodeIntoResult { read: number; written: number }
interface TextEncoder {
  readonly encoding: 'utf-8';
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): TextEncoderEncodeIntoResult;
}
declare var TextEncoder: { prototype: TextEncoder; new (): TextEncoder };
interface TextDecoderOptions { fatal?: boolean; ignoreBOM?: boolean }
/** UTF-8 only; the whole input at once (no streaming). */
interface TextDecoder {
  readonly encoding: 'utf-8'; readonly fatal: boolean; readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView): string;
}
declare var TextDecoder: { prototype: TextDecoder; new (label?: string, options?: TextDecoderOptions): TextDecoder };

interface URLSearchParams {
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  toString(): string;
  forEach(callbackfn: (value: string, key: string, parent: URLSearchParams) => void, thisArg?: unknown): void;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}
declare var URLSearchParams: {
  prototype: URLSearchParams;
  new (init?: string[][] | Iterable<readonly [string, string]> | Record<string, string> | string | URLSearchParams): URLSearchParams;
};
/** A WHATWG URL (parsed by the host's URL parser; inputs up to 1 MiB characters). */
interface URL {
  hash: string; host: string; hostname: string; href: string; readonly origin: string; password: string;
  pathname: string; port: string; protocol: string; search: string; readonly searchParams: URLSearchParams;
  username: string;
  toString(): string;
  toJSON(): string;
}
declare var URL: {
  prototype: URL;
  new (url: string | URL, base?: string | URL): URL;
  canParse(url: string | URL, base?: string | URL): boolean;
  parse(url: string | URL, base?: string | URL): URL | null;
};
`;
