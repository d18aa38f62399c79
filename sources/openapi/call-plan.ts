import type { FunctionSpec } from '../../core/index.js';
import { isJsonObject } from './json-walk.js';

/**
 * How one operation is called, kept in its function's input schema under {@link PLAN_KEYWORD} (an
 * `x-` keyword, which validation and declarations ignore), so the built `schema.json` is all the
 * backend needs: no spec is read again to perform a call.
 */
export interface CallPlan {
  /** Upper case: `GET`, `POST`, … */
  method: string;
  /** The path template: `/pets/{petId}`. */
  path: string;
  /** The spec's server for this operation (its variables filled with their defaults), when it has one. */
  server?: string;
  /**
   * The document's own server: the API's home, the one origin the configured headers go to (an
   * operation's own server elsewhere gets none).
   */
  home?: string;
  parameters: PlannedParameter[];
  body?: { property: string; mediaType: string };
  /** The `accept` header: the success response's media type. */
  accept?: string;
}

export interface PlannedParameter {
  /** The argument's name (the parameter's own name unless another argument has it). */
  property: string;
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  style: string;
  explode: boolean;
  /** Query values sent without percent-encoding RFC 3986 reserved characters. */
  allowReserved?: boolean;
  /** A parameter described by `content` (not `schema`): the value is sent as JSON text. */
  json?: boolean;
}

export const PLAN_KEYWORD = 'x-openapi';

/** The plan of a built function, or undefined when its schema holds none (a build by another compiler). */
export function readPlan(fn: FunctionSpec): CallPlan | undefined {
  const plan = fn.inputSchema[PLAN_KEYWORD];
  if (!isJsonObject(plan) || typeof plan.method !== 'string' || typeof plan.path !== 'string' || !Array.isArray(plan.parameters))
    return undefined;
  return plan as unknown as CallPlan;
}

/** `application/json`, `application/<x>+json`, and the any-type wildcard (which JSON satisfies). */
export function isJsonMediaType(type: string): boolean {
  return /^application\/(?:[\w.-]+\+)?json(?:;|$)/i.test(type) || type === '*/*';
}
