import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface PetstoreServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: SeenRequest[];
  /** Answer the next request for `path` (path only, no query) with a 302 to `location`. */
  redirectOnce(path: string, location: string): void;
  /** Serve this many extra pets from findPetsByStatus (an oversize response). */
  padPets(count: number): void;
  /** Never answer the next request for `path`: `received` when it comes, `gone` when its client goes away. */
  holdOnce(path: string): { received: Promise<void>; gone: Promise<void> };
  close(): Promise<void>;
}

interface Pet {
  id: number;
  name: string;
  photoUrls: string[];
  status?: string;
  tags?: { id?: number; name?: string }[];
  category?: { id?: number; name?: string };
}

/**
 * A real HTTP server implementing the Swagger Petstore's operations (`/api/v3`) in memory, as the
 * published petstore3 service behaves: pets, orders, users and the inventory (which needs the
 * `api_key` header). It also serves spec texts (`specs`) at their paths, and records every request.
 */
export async function startPetstoreServer(options: { apiKey: string; specs?: Record<string, string> }): Promise<PetstoreServer> {
  const requests: SeenRequest[] = [];
  const redirects = new Map<string, string>();
  const held = new Map<string, { received: () => void; gone: () => void }>();
  let padding = 0;
  const pets = new Map<number, Pet>([[1, { id: 1, name: 'Rex', photoUrls: [], status: 'available', tags: [{ id: 1, name: 'good' }] }]]);
  const orders = new Map<number, Record<string, unknown>>();
  const users = new Map<string, Record<string, unknown>>();

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      const url = new URL(request.url ?? '/', 'http://localhost');
      const hold = held.get(url.pathname);
      if (hold !== undefined) {
        held.delete(url.pathname);
        response.on('close', hold.gone);
        hold.received();
        return;
      }
      const location = redirects.get(url.pathname);
      if (location !== undefined) {
        redirects.delete(url.pathname);
        response.writeHead(302, { location }).end();
        return;
      }
      const spec = options.specs?.[url.pathname];
      if (spec !== undefined) {
        response.writeHead(200, { 'content-type': 'application/yaml' }).end(spec);
        return;
      }
      route(request.method ?? 'GET', url, body, request, response);
    });
  });

  const json = (response: ServerResponse, status: number, value: unknown): void => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  };

  function route(method: string, url: URL, body: string, request: IncomingMessage, response: ServerResponse): void {
    const path = url.pathname.replace(/^\/api\/v3/, '');
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    // Ids and user names become `{}`: `GET /pet/{}`, `GET /user/{}` (but `/user/login` stays itself).
    const shape = parts.map((part, index) =>
      index === 0 ||
      (parts[0] === 'user' && ['login', 'logout', 'createWithList'].includes(part)) ||
      (parts[0] === 'pet' && part.startsWith('findBy')) ||
      part === 'order' ||
      part === 'inventory'
        ? part
        : '{}',
    );
    const key = `${method} /${shape.join('/')}`;
    switch (key) {
      case 'POST /pet':
      case 'PUT /pet': {
        const pet = JSON.parse(body) as Pet;
        if (method === 'PUT' && !pets.has(pet.id)) return json(response, 404, { code: 404, message: 'Pet not found' });
        pets.set(pet.id, pet);
        return json(response, 200, pet);
      }
      case 'GET /pet/findByStatus': {
        const status = url.searchParams.get('status') ?? 'available';
        const found = [...pets.values()].filter((pet) => pet.status === status);
        for (let index = 0; index < padding; index += 1) found.push({ id: 1000 + index, name: `pad-${index}`, photoUrls: [], status });
        return json(response, 200, found);
      }
      case 'GET /pet/findByTags': {
        const tags = url.searchParams.getAll('tags');
        return json(
          response,
          200,
          [...pets.values()].filter((pet) => pet.tags?.some((tag) => tags.includes(tag.name ?? ''))),
        );
      }
      case 'GET /pet/{}': {
        const pet = pets.get(Number(parts[1]));
        return pet ? json(response, 200, pet) : json(response, 404, { code: 1, type: 'error', message: 'Pet not found' });
      }
      case 'POST /pet/{}': {
        const pet = pets.get(Number(parts[1]));
        if (!pet) return json(response, 404, { code: 1, type: 'error', message: 'Pet not found' });
        Object.assign(pet, {
          ...(url.searchParams.has('name') ? { name: url.searchParams.get('name') } : {}),
          ...(url.searchParams.has('status') ? { status: url.searchParams.get('status') } : {}),
        });
        return json(response, 200, pet);
      }
      case 'DELETE /pet/{}':
        pets.delete(Number(parts[1]));
        return json(response, 200, { code: 200, type: 'unknown', message: String(parts[1]) });
      case 'GET /store/inventory': {
        const given = request.headers.api_key;
        // The published service answers 401 quoting what it got: a server may echo a credential.
        if (given !== options.apiKey) return json(response, 401, { code: 401, message: `api_key ${String(given)} is not valid` });
        const inventory: Record<string, number> = {};
        for (const pet of pets.values()) if (pet.status) inventory[pet.status] = (inventory[pet.status] ?? 0) + 1;
        return json(response, 200, inventory);
      }
      case 'POST /store/order': {
        const order = JSON.parse(body) as Record<string, unknown>;
        orders.set(Number(order.id), order);
        return json(response, 200, order);
      }
      case 'GET /store/order/{}': {
        const order = orders.get(Number(parts[2]));
        return order ? json(response, 200, order) : json(response, 404, { code: 1, type: 'error', message: 'Order not found' });
      }
      case 'POST /user': {
        const user = JSON.parse(body) as Record<string, unknown>;
        users.set(String(user.username), user);
        return json(response, 200, user);
      }
      case 'GET /user/login': {
        const user = users.get(url.searchParams.get('username') ?? '');
        if (!user || user.password !== url.searchParams.get('password'))
          return json(response, 400, { message: 'Invalid username/password supplied' });
        response
          .writeHead(200, { 'content-type': 'application/json', 'x-rate-limit': '5000' })
          .end(JSON.stringify(`Logged in user session: ${Date.now()}`));
        return;
      }
      case 'GET /user/{}': {
        const user = users.get(parts[1] ?? '');
        return user ? json(response, 200, user) : json(response, 404, { message: 'User not found' });
      }
      default:
        json(response, 404, { code: 404, message: `no route ${key}` });
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    redirectOnce: (path, location) => void redirects.set(path, location),
    padPets: (count) => void (padding = count),
    holdOnce: (path) => {
      let received = (): void => undefined;
      let gone = (): void => undefined;
      const promises = {
        received: new Promise<void>((resolve) => (received = resolve)),
        gone: new Promise<void>((resolve) => (gone = resolve)),
      };
      held.set(path, { received, gone });
      return promises;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
