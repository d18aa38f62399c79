/**
 * The studio's HTTP server, which any page the user's browser opens can reach: every API route, the
 * event stream and an approval decision need its token; a rebound Host or another origin is refused;
 * only the UI folder is served; bodies are capped; what it keeps of a run's calls is bounded.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSpace } from '../../agents/index.js';
import { startStudio, type RunningStudio } from '../../studio/server/index.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('the studio server', () => {
  let studio: RunningStudio;
  beforeAll(async () => {
    const root = await makeTempDir('attack-studio');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    await writeFile(path.join(root, 'secret.txt'), 'not for web pages');
    const uiDir = path.join(root, 'ui');
    await mkdir(uiDir, { recursive: true });
    await writeFile(path.join(uiDir, 'index.html'), '<!doctype html><title>studio index</title>');
    studio = await startStudio({ openSpace, cwd: root, uiDir, isolation: 'worker' });
  }, 60_000);
  afterAll(async () => {
    await studio?.close();
  });

  /** A raw request: headers fetch would not send (Host), paths it would normalise. */
  const raw = (
    method: string,
    pathname: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<{ status: number; text: string }> => {
    const url = new URL(studio.origin);
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        { host: url.hostname, port: url.port, method, path: pathname, headers: { host: url.host, ...headers } },
        (response: IncomingMessage) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  };
  const json = { 'content-type': 'application/json' };

  it('every API route, the event stream and an approval decision need the token', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    const attempts: [string, string, Record<string, string>, string?][] = [
      ['GET', '/api/space', {}],
      ['GET', '/api/events', {}],
      ['GET', '/api/events?token=wrong', {}],
      ['GET', '/api/events', { authorization: 'Bearer wrong' }],
      ['POST', '/api/run', json, '{"code":"export default 1"}'],
      ['POST', `/api/approvals/${uuid}`, json, '{"approved":true}'],
      ['PUT', '/api/agents/0/tools', json, '{"tools":[]}'],
      ['POST', '/api/run?token=' + encodeURIComponent(studio.token), json, '{"code":"export default 1"}'],
      ['GET', '/api/runs/..%2F..%2Fsecret.txt', {}],
    ];
    for (const [method, pathname, headers, body] of attempts) {
      expect((await raw(method, pathname, headers, body)).status, `${method} ${pathname}`).toBe(401);
    }
  });

  it('refuses a rebound Host and a cross-origin page, for the API (token or not) and for the UI files', async () => {
    const bearer = { authorization: `Bearer ${studio.token}`, ...json };
    expect((await raw('GET', '/', { host: 'attacker.example' })).status).toBe(403);
    expect(
      (await raw('POST', '/api/run', { ...bearer, host: `attacker.example:${new URL(studio.origin).port}` }, '{"code":"export default 1"}'))
        .status,
    ).toBe(403);
    expect((await raw('POST', '/api/run', { ...bearer, origin: 'http://attacker.example' }, '{"code":"export default 1"}')).status).toBe(
      403,
    );
    expect((await raw('POST', '/api/run', { ...bearer, origin: 'null' }, '{"code":"export default 1"}')).status).toBe(403);
    // A form post cannot send JSON: refused before anything runs.
    expect(
      (
        await raw(
          'POST',
          '/api/run',
          { authorization: `Bearer ${studio.token}`, 'content-type': 'text/plain' },
          '{"code":"export default 1"}',
        )
      ).status,
    ).toBe(415);
  });

  it('serves only the UI folder: traversals and encoded separators get index.html', async () => {
    for (const pathname of [
      '/..%2f..%2fsecret.txt',
      '/%2e%2e/%2e%2e/secret.txt',
      '/..%5c..%5csecret.txt',
      '/ui/../secret.txt',
      '/%00/../secret.txt',
    ]) {
      const answer = await raw('GET', pathname);
      expect(answer.text, pathname).not.toContain('not for web pages');
    }
  });

  it('a body past the cap is refused', async () => {
    const answer = await raw(
      'POST',
      '/api/check',
      { authorization: `Bearer ${studio.token}`, ...json },
      JSON.stringify({ code: 'x'.repeat(1_100_000) }),
    );
    expect(answer.status).toBe(413);
  });

  // A playground program may make maxCalls (1,000) calls of maxArgumentBytes (1 MiB): a run's call
  // timeline (kept for 50 runs, and written to code-run.json) must not hold every call's whole arguments.
  // Here 40 calls of 100 kB: the timeline keeps a preview of each, as the UI shows anyway.
  it("a run's call timeline does not keep every call's whole arguments", async () => {
    const code =
      "import { hash } from '@capabilities/std-crypto';\nconst data = 'x'.repeat(100_000);\nfor (let i = 0; i < 40; i++) await hash({ data });\nexport default 'hashed';";
    const answer = await raw('POST', '/api/run', { authorization: `Bearer ${studio.token}`, ...json }, JSON.stringify({ code }));
    expect(answer.status).toBe(200);
    const record = JSON.parse(answer.text) as { result: { success: boolean }; calls: unknown[] };
    expect(record.result.success).toBe(true);
    expect(record.calls).toHaveLength(40);
    expect(JSON.stringify(record.calls).length).toBeLessThan(1024 * 1024);
  }, 60_000);
});
