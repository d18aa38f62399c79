import { describe, expect, it } from 'vitest';
import { buildRequest } from './build-request.js';
import type { CallPlan, PlannedParameter } from './call-plan.js';

const parameter = (
  name: string,
  location: PlannedParameter['in'],
  style: string,
  explode: boolean,
  extra: Partial<PlannedParameter> = {},
): PlannedParameter => ({ property: name, name, in: location, style, explode, ...extra });

describe('buildRequest: OpenAPI parameter serialization', () => {
  it('encodes path parameters by style (simple, label, matrix) under the base path', () => {
    const plan: CallPlan = {
      method: 'GET',
      path: '/a/{id}/b/{ids}/c/{point}',
      parameters: [
        parameter('id', 'path', 'simple', false),
        parameter('ids', 'path', 'label', true),
        parameter('point', 'path', 'matrix', false),
      ],
    };
    const request = buildRequest(plan, { id: 'x/y z', ids: [1, 2], point: { x: 1, y: 2 } }, 'https://api.test/v1/');
    expect(request.url.href).toBe('https://api.test/v1/a/x%2Fy%20z/b/.1.2/c/;point=x,1,y,2');
  });

  it('serializes query parameters: form (exploded or not), space and pipe delimited, deepObject, reserved characters', () => {
    const plan: CallPlan = {
      method: 'GET',
      path: '/q',
      parameters: [
        parameter('a', 'query', 'form', true),
        parameter('b', 'query', 'form', false),
        parameter('c', 'query', 'spaceDelimited', false),
        parameter('d', 'query', 'pipeDelimited', false),
        parameter('filter', 'query', 'deepObject', true),
        parameter('page', 'query', 'form', true),
        parameter('path', 'query', 'form', true, { allowReserved: true }),
        parameter('skip', 'query', 'form', true),
      ],
    };
    const request = buildRequest(
      plan,
      { a: ['1', '2'], b: ['3', '4'], c: ['5', '6'], d: ['7', '8'], filter: { state: 'open', n: 2 }, page: { size: 10 }, path: '/x/y?z' },
      'https://api.test',
    );
    expect(request.url.search).toBe('?a=1&a=2&b=3%2C4&c=5%206&d=7%7C8&filter%5Bstate%5D=open&filter%5Bn%5D=2&size=10&path=/x/y?z');
  });

  it('sends header and cookie parameters, a form body, and JSON for content parameters', () => {
    const plan: CallPlan = {
      method: 'POST',
      path: '/f',
      parameters: [
        parameter('X-Ids', 'header', 'simple', false),
        parameter('session', 'cookie', 'form', true),
        parameter('where', 'query', 'form', true, { json: true }),
      ],
      body: { property: 'body', mediaType: 'application/x-www-form-urlencoded' },
      accept: 'application/json',
    };
    const request = buildRequest(
      plan,
      { 'X-Ids': [1, 2], session: 'a b', where: { n: 1 }, body: { name: 'Rex', tags: ['a', 'b'] } },
      'https://api.test',
    );
    expect(request.headers.get('x-ids')).toBe('1,2');
    expect(request.headers.get('cookie')).toBe('session=a%20b');
    expect(request.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(request.headers.get('accept')).toBe('application/json');
    expect(request.url.search).toBe('?where=%7B%22n%22%3A1%7D');
    expect(request.body).toBe('name=Rex&tags=a&tags=b');
  });

  it("refuses a path parameter that is a dot segment, which would leave the operation's path", () => {
    const plan: CallPlan = { method: 'GET', path: '/users/{name}', parameters: [parameter('name', 'path', 'simple', false)] };
    expect(() => buildRequest(plan, { name: '..' }, 'https://api.test/v1')).toThrow('path parameter "name" may not be ".."');
    expect(buildRequest(plan, { name: '../admin' }, 'https://api.test/v1').url.pathname).toBe('/v1/users/..%2Fadmin');
  });

  it('refuses a header value with a line break (no header injection)', () => {
    const plan: CallPlan = { method: 'GET', path: '/h', parameters: [parameter('X-Note', 'header', 'simple', false)] };
    expect(() => buildRequest(plan, { 'X-Note': 'a\r\nX-Evil: 1' }, 'https://api.test')).toThrow(TypeError);
  });
});
