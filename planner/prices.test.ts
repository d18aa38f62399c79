import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, findPrice, priceUsage, readUsage } from './prices.js';

describe('prices', () => {
  it('splits cached from new input tokens', () => {
    expect(readUsage({ prompt_tokens: 1000, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 400 } })).toEqual({
      input: 600,
      cachedInput: 400,
      output: 50,
    });
    expect(readUsage(undefined)).toEqual({ input: 0, cachedInput: 0, output: 0 });
    expect(readUsage({ prompt_tokens: 10, prompt_tokens_details: { cached_tokens: 99 } })).toEqual({
      input: 0,
      cachedInput: 10,
      output: 0,
    });
  });

  it('finds prices by exact id, dated snapshot and provider prefix, not by a shorter unrelated id', () => {
    expect(findPrice('gpt-4.1-mini', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['gpt-4.1-mini']);
    expect(findPrice('gpt-4.1-mini-2025-04-14', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['gpt-4.1-mini']);
    expect(findPrice('openai/gpt-4o', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['gpt-4o']);
    expect(findPrice('llama3.1:8b', DEFAULT_PRICES)).toBeUndefined();
  });

  it('prices per million tokens with a cheaper cached rate', () => {
    expect(
      priceUsage({ input: 1_000_000, cachedInput: 1_000_000, output: 1_000_000 }, { input: 1, cachedInput: 0.25, output: 4 }),
    ).toBeCloseTo(5.25);
    expect(priceUsage({ input: 0, cachedInput: 2_000_000, output: 0 }, { input: 1, output: 4 })).toBeCloseTo(2);
  });
});
