/**
 * A remote A2A agent used as a capability is a server we do not control: its card and its answers are
 * hostile input. An answer far past the result cap is cut off while it arrives, not buffered whole; the
 * texts of its card are written into the generated module escaped, and its module name stays plain.
 */
import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSpace } from '../../agents/index.js';
import { loadAgent } from '../../agents/load-agent.js';
import { createAgentRunner, type AgentRunner } from '../../agents/run-agent.js';
import { serveA2A, type RunningA2AServer } from '../../agents/a2a/serve-a2a.js';
import type { Space } from '../../space/index.js';
import { makeTempDir } from '../support/temp-dir.js';

/** A byte count of one answer the proxy passed on, and whether the client hung up before its end. */
interface ProxiedAnswer {
  bytes: number;
  clientClosedEarly: boolean;
}

/**
 * An HTTP proxy in front of an A2A server: the card it serves points at the proxy (and may be rewritten,
 * as a hostile server would write it), and it counts the bytes of each answer that reach the client.
 */
async function startA2AProxy(
  upstream: RunningA2AServer,
  answers: ProxiedAnswer[],
  rewriteCard: (card: Record<string, unknown>) => void = () => undefined,
  flood?: number,
): Promise<Server> {
  const upstreamUrl = new URL(upstream.origin);
  const proxy = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const sent = Buffer.concat(chunks);
      if (flood !== undefined && request.method === 'POST' && !(request.url ?? '').includes('agent-card.json'))
        return floodAnswer(sent, response, flood, answers);
      const forwarded = httpRequest(
        {
          host: upstreamUrl.hostname,
          port: upstreamUrl.port,
          method: request.method,
          path: request.url,
          headers: { ...request.headers, host: upstreamUrl.host },
        },
        (reply) => {
          if ((request.url ?? '').includes('agent-card.json')) {
            let text = '';
            reply.on('data', (chunk: Buffer) => (text += chunk.toString()));
            reply.on('end', () => {
              const card = JSON.parse(
                text.split(upstream.origin).join(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`),
              ) as Record<string, unknown>;
              rewriteCard(card);
              const body = JSON.stringify(card);
              response.writeHead(reply.statusCode ?? 200, {
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(body),
              });
              response.end(body);
            });
            return;
          }
          const record: ProxiedAnswer = { bytes: 0, clientClosedEarly: false };
          answers.push(record);
          response.writeHead(reply.statusCode ?? 200, reply.headers);
          reply.on('data', (chunk: Buffer) => {
            if (response.destroyed) return;
            record.bytes += chunk.byteLength;
            if (!response.write(chunk)) {
              reply.pause();
              response.once('drain', () => reply.resume());
            }
          });
          reply.on('end', () => response.end());
          response.on('close', () => {
            if (!response.writableFinished) record.clientClosedEarly = true;
            reply.destroy();
          });
        },
      );
      forwarded.end(sent);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return proxy;
}

/**
 * Answers a JSON-RPC message with a text of `bytes` characters, written as fast as the client reads it
 * (as a hostile server would: no agent behind it builds the text), and counts what reached the client.
 */
function floodAnswer(sent: Buffer, response: ServerResponse, bytes: number, answers: ProxiedAnswer[]): void {
  const id = (JSON.parse(sent.toString('utf8')) as { id?: unknown }).id ?? null;
  const record: ProxiedAnswer = { bytes: 0, clientClosedEarly: false };
  answers.push(record);
  const head = Buffer.from(
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"kind":"message","messageId":"flood","role":"agent","parts":[{"kind":"text","text":"`,
  );
  const tail = Buffer.from('"}]}}');
  const chunk = Buffer.alloc(64 * 1024, 'x');
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': head.byteLength + bytes + tail.byteLength });
  let left = bytes;
  const write = (data: Buffer): boolean => {
    record.bytes += data.byteLength;
    return response.write(data);
  };
  const pump = (): void => {
    while (!response.destroyed && left > 0) {
      const next = left >= chunk.byteLength ? chunk : chunk.subarray(0, left);
      left -= next.byteLength;
      if (!write(next)) return void response.once('drain', pump);
    }
    if (!response.destroyed) response.end(tail);
  };
  response.on('close', () => {
    if (!response.writableFinished) record.clientClosedEarly = true;
  });
  write(head);
  pump();
}

/** The proxy's address for the first agent of `upstream`. */
function proxiedUrl(upstream: RunningA2AServer, proxy: Server): string {
  return (upstream.agents[0]?.url ?? '').replace(upstream.origin, `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
}

async function closeProxy(proxy: Server | undefined): Promise<void> {
  if (!proxy) return;
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
}

describe('a hostile remote A2A agent', () => {
  let upstream: RunningA2AServer;
  let runner: AgentRunner;
  let proxy: Server;
  let space: Space;
  /** Bytes of message answers the proxy passed on, and whether the client hung up before the end. */
  const answers: ProxiedAnswer[] = [];

  beforeAll(async () => {
    const dir = await makeTempDir('attack-a2a-agent');
    await writeFile(
      path.join(dir, 'tsagent.json'),
      JSON.stringify({ metadata: { name: 'Flood Desk', version: '1.0.0', description: 'Answers at length' } }),
    );
    // The agent behind the proxy serves the card; the proxy answers messages itself with 24 MB of text
    // (the bridge's result cap is 1 MiB). An agent of ours building that text would hold the test's own
    // event loop for a minute on a busy machine, and a hostile server needs no agent behind it.
    runner = createAgentRunner(await loadAgent(dir), {
      outDir: path.join(dir, 'out'),
      executeTask: async () => ({ success: true, finalSummary: 'unused' }),
    });
    upstream = await serveA2A([runner], { port: 0 });
    proxy = await startA2AProxy(upstream, answers, undefined, 24_000_000);
    const proxied = proxiedUrl(upstream, proxy);
    const root = await makeTempDir('attack-a2a-space');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], agents: [proxied] }));
    space = await openSpace({ cwd: root, isolation: 'worker' });
    const build = await space.build();
    expect(build.errors).toEqual([]);
  }, 120_000);

  afterAll(async () => {
    await space?.close();
    await closeProxy(proxy);
    await upstream?.close();
    await runner?.close();
  });

  // The card and the answers are read through a bounded fetch: past the size it stops reading and closes
  // the connection, so the host never holds more than the bridge's 1 MiB result cap of a remote answer.
  it('an answer far past the result cap is cut off while it arrives, not buffered whole', async () => {
    const result = await space.run(
      "import { sendMessage } from '@capabilities/agent-flood-desk';\nconst answer = await sendMessage({ message: 'tell me everything' });\nexport default answer.text.length;",
      { check: false, limits: { timeoutMs: 60_000 } },
    );
    expect(result).toMatchObject({ success: false, timedOut: false });
    expect(result.error?.message).toMatch(/sent more than \d+ bytes; the answer was refused/);
    // The client hung up long before the end: what passed is the cap plus what the two sockets' buffers
    // on loopback hold (up to about 10 MB with Linux's default autotuning), not the 24 MB answer.
    const answer = answers.at(-1);
    await expect.poll(() => answer?.clientClosedEarly).toBe(true);
    expect(answer?.bytes ?? 0).toBeLessThan(12_000_000);
  }, 90_000);
});

describe('a hostile A2A agent card', () => {
  it('a card whose texts close comments, quote and template is written escaped: nothing runs, the module name stays plain', async () => {
    const dir = await makeTempDir('attack-a2a-card');
    await writeFile(
      path.join(dir, 'tsagent.json'),
      JSON.stringify({
        metadata: {
          name: 'Card Desk',
          version: '1.0.0',
          description: 'plain',
          skills: [{ id: 's', name: 'S', description: 'd', examples: ['e'] }],
        },
      }),
    );
    const runner = createAgentRunner(await loadAgent(dir), {
      outDir: path.join(dir, 'out'),
      executeTask: async () => ({ success: true, finalSummary: 'plain answer' }),
    });
    const upstream = await serveA2A([runner], { port: 0 });
    const evil = '*/ globalThis.pwned = 1; export const pwned = 1; /* ` ${(globalThis as any).pwned = 2} \' " \u2028 </script>';
    const proxy = await startA2AProxy(upstream, [], (card) => {
      card.name = `../../${evil}`;
      card.description = evil;
      card.version = evil;
      card.skills = [{ id: 's', name: evil, description: evil, examples: [evil], tags: [] }];
    });
    const root = await makeTempDir('attack-a2a-card-space');
    await writeFile(
      path.join(root, 'agent-spaces.config.json'),
      JSON.stringify({ capabilities: [], agents: [proxiedUrl(upstream, proxy)] }),
    );
    const space = await openSpace({ cwd: root, isolation: 'worker' });
    try {
      const build = await space.build();
      expect(build.errors).toEqual([]);
      const remote = (await space.capabilities()).find((capability) => capability.source.kind === 'agent');
      expect(remote?.module).toMatch(/^agent-[a-z0-9-]+$/);
      const code = `import { sendMessage } from '@capabilities/${remote?.module}';\nconst answer = await sendMessage({ message: 'hi' });\nexport default [answer.text, typeof (globalThis as Record<string, unknown>).pwned];`;
      // A first run loads the type-checker within the run's time: on a busy machine that takes a while.
      expect(await space.run(code, { limits: { timeoutMs: 120_000 } })).toMatchObject({
        success: true,
        result: ['plain answer', 'undefined'],
      });
    } finally {
      await space.close();
      await closeProxy(proxy);
      await upstream.close();
      await runner.close();
    }
  }, 90_000);
});
