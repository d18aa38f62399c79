import { isJsonMediaType, type CallPlan, type PlannedParameter } from './call-plan.js';
import { isJsonObject } from './json-walk.js';

export interface BuiltRequest {
  url: URL;
  method: string;
  /** The call's own headers (header and cookie parameters, accept, content-type); the configured ones are added per hop. */
  headers: Headers;
  body?: string;
}

/**
 * The HTTP request of one call: path parameters encoded into the template, query parameters
 * serialized by their `style`/`explode` (OpenAPI's defaults: `form`, exploded), header and cookie
 * parameters, and the body as its media type asks (JSON text, a form, or text as given).
 */
export function buildRequest(plan: CallPlan, args: Record<string, unknown>, base: string): BuiltRequest {
  // Own arguments only: `constructor` is a parameter name too, and no argument was given for it.
  const values = (location: PlannedParameter['in']) =>
    plan.parameters.filter(
      (parameter) => parameter.in === location && Object.hasOwn(args, parameter.property) && args[parameter.property] !== undefined,
    );
  let path = plan.path;
  for (const parameter of values('path')) {
    const value = pathValue(parameter, args[parameter.property]);
    // `.` and `..` (even percent-encoded) are dot segments: the URL would leave the operation's path.
    if (/^(?:\.|%2e){1,2}$/i.test(value)) throw new RangeError(`path parameter "${parameter.property}" may not be "${value}"`);
    path = path.split(`{${parameter.name}}`).join(value);
  }
  const query = values('query')
    .flatMap((parameter) => queryPairs(parameter, args[parameter.property]))
    .join('&');
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.search = query === '' ? '' : `?${query}`;

  const headers = new Headers();
  for (const parameter of values('header')) headers.set(parameter.name, headerValue(parameter, args[parameter.property]));
  const cookies = values('cookie').map((parameter) => `${parameter.name}=${encodeURIComponent(text(args[parameter.property], parameter))}`);
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '));
  if (plan.accept !== undefined) headers.set('accept', plan.accept);

  const request: BuiltRequest = { url, method: plan.method, headers };
  const body = plan.body === undefined || !Object.hasOwn(args, plan.body.property) ? undefined : args[plan.body.property];
  if (plan.body !== undefined && body !== undefined) {
    const { mediaType } = plan.body;
    headers.set('content-type', mediaType === '*/*' ? 'application/json' : mediaType);
    if (isJsonMediaType(mediaType)) request.body = JSON.stringify(body);
    else if (mediaType === 'application/x-www-form-urlencoded') request.body = formBody(body);
    else request.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  return request;
}

/** A value as text: strings as they are, objects (and `content` parameters) as JSON. */
function text(value: unknown, parameter?: PlannedParameter): string {
  if (parameter?.json === true) return JSON.stringify(value);
  if (typeof value === 'string') return value;
  if (value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** `simple` (default), `label` (`.a.b`) and `matrix` (`;id=a,b`) path styles. */
function pathValue(parameter: PlannedParameter, value: unknown): string {
  const encode = (item: unknown): string => encodeURIComponent(text(item, parameter));
  const parts =
    parameter.json === true
      ? [encode(value)]
      : Array.isArray(value)
        ? value.map(encode)
        : isJsonObject(value)
          ? Object.entries(value).flatMap(([key, item]) =>
              parameter.explode ? [`${encodeURIComponent(key)}=${encode(item)}`] : [encodeURIComponent(key), encode(item)],
            )
          : [encode(value)];
  const separator = parameter.explode
    ? parameter.style === 'label'
      ? '.'
      : parameter.style === 'matrix'
        ? `;${parameter.name}=`
        : ','
    : ',';
  if (parameter.style === 'label') return `.${parts.join(separator)}`;
  if (parameter.style === 'matrix') return `;${parameter.name}=${parts.join(separator)}`;
  return parts.join(separator);
}

function queryPairs(parameter: PlannedParameter, value: unknown): string[] {
  const encode = (item: string): string =>
    parameter.allowReserved === true ? encodeURI(item).replace(/[&=#+]/g, encodeURIComponent) : encodeURIComponent(item);
  const name = encodeURIComponent(parameter.name);
  if (parameter.json === true || !(Array.isArray(value) || isJsonObject(value))) return [`${name}=${encode(text(value, parameter))}`];
  if (Array.isArray(value)) {
    const items = value.map((item) => text(item));
    if (parameter.style === 'form' && parameter.explode) return items.map((item) => `${name}=${encode(item)}`);
    const separator = parameter.style === 'spaceDelimited' ? ' ' : parameter.style === 'pipeDelimited' ? '|' : ',';
    return [`${name}=${items.map(encode).join(encodeURIComponent(separator))}`];
  }
  const entries = Object.entries(value).filter(([, item]) => item !== undefined);
  if (parameter.style === 'deepObject')
    return entries.map(([key, item]) => `${name}%5B${encodeURIComponent(key)}%5D=${encode(text(item))}`);
  if (parameter.explode) return entries.map(([key, item]) => `${encodeURIComponent(key)}=${encode(text(item))}`);
  return [`${name}=${entries.flatMap(([key, item]) => [encode(key), encode(text(item))]).join(',')}`];
}

function headerValue(parameter: PlannedParameter, value: unknown): string {
  if (parameter.json === true || !(Array.isArray(value) || isJsonObject(value))) return text(value, parameter);
  if (Array.isArray(value)) return value.map((item) => text(item)).join(',');
  return Object.entries(value)
    .map(([key, item]) => (parameter.explode ? `${key}=${text(item)}` : `${key},${text(item)}`))
    .join(',');
}

function formBody(body: unknown): string {
  if (!isJsonObject(body)) return text(body);
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) form.append(key, text(item));
    else form.append(key, text(value));
  }
  return form.toString();
}
