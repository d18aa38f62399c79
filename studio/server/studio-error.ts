import { AgentSpacesError } from '../../core/index.js';

/**
 * A request the studio's API turns down, with the HTTP status to answer and a message that says what to
 * change: `STUDIO_NOT_FOUND` (404), `STUDIO_BAD_REQUEST` (400), `STUDIO_NO_MODEL` (409: a tool test needs a
 * model), `STUDIO_INVALID_AGENT` (422: an edited agent file that would not load), `STUDIO_TOO_MANY` (429: the inbox holds
 * as many calls of attached processes as it takes).
 */
export class StudioError extends AgentSpacesError {
  override readonly name = 'StudioError';

  constructor(
    code: 'STUDIO_NOT_FOUND' | 'STUDIO_BAD_REQUEST' | 'STUDIO_NO_MODEL' | 'STUDIO_INVALID_AGENT' | 'STUDIO_TOO_MANY',
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, options);
  }

  get status(): number {
    return (
      { STUDIO_NOT_FOUND: 404, STUDIO_BAD_REQUEST: 400, STUDIO_NO_MODEL: 409, STUDIO_INVALID_AGENT: 422, STUDIO_TOO_MANY: 429 }[
        this.code as 'STUDIO_NOT_FOUND'
      ] ?? 400
    );
  }
}

/** The object at `body[key]`, or a 400 naming the field. */
export function field<T>(body: unknown, key: string, check: (value: unknown) => value is T, expected: string): T {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[key] : undefined;
  if (!check(value)) throw new StudioError('STUDIO_BAD_REQUEST', `request body: "${key}" must be ${expected}`);
  return value;
}

export const isString = (value: unknown): value is string => typeof value === 'string';
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
