/**
 * Model prices in US dollars per million tokens, used to estimate a task's cost from the API's `usage`.
 * Figures are list prices when this table was written; override them in config `model.prices` or in
 * `executeTask({ model: { prices } })` when they change or for any other model.
 */
export interface ModelPrice {
  /** New (uncached) input tokens. */
  input: number;
  /** Cached input tokens (`prompt_tokens_details.cached_tokens`); defaults to `input`. */
  cachedInput?: number;
  output: number;
}

export type PriceTable = Record<string, ModelPrice>;

export const DEFAULT_PRICES: Readonly<PriceTable> = Object.freeze({
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
});

/** Token counts of one reply, split the way they are priced. */
export interface TokenUsage {
  /** Input tokens not served from the cache. */
  input: number;
  cachedInput: number;
  output: number;
}

/** Reads the API's `usage` object (missing fields count as 0). */
export function readUsage(usage: unknown): TokenUsage {
  const record = (typeof usage === 'object' && usage !== null ? usage : {}) as Record<string, unknown>;
  const details = (
    typeof record.prompt_tokens_details === 'object' && record.prompt_tokens_details !== null ? record.prompt_tokens_details : {}
  ) as Record<string, unknown>;
  const prompt = count(record.prompt_tokens);
  const cached = Math.min(count(details.cached_tokens), prompt);
  return { input: prompt - cached, cachedInput: cached, output: count(record.completion_tokens) };
}

/**
 * Finds a model's price: an exact id first, then the longest table key the id starts with, so dated
 * snapshots (`gpt-4.1-mini-2025-04-14`) and provider prefixes stripped of their path (`openai/gpt-4o`) match.
 */
export function findPrice(model: string, table: PriceTable): ModelPrice | undefined {
  const id = model.slice(model.lastIndexOf('/') + 1);
  if (table[id]) return table[id];
  const key = Object.keys(table)
    .filter((candidate) => id.startsWith(`${candidate}-`))
    .sort((a, b) => b.length - a.length)[0];
  return key === undefined ? undefined : table[key];
}

/** The cost in dollars of `usage` at `price`. */
export function priceUsage(usage: TokenUsage, price: ModelPrice): number {
  return (usage.input * price.input + usage.cachedInput * (price.cachedInput ?? price.input) + usage.output * price.output) / 1_000_000;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
