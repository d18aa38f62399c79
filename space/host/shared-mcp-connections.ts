import { connectMcpServer, type McpConnection, type McpSourceOptions } from '../../sources/index.js';

/** What `createMcpSource({ connect })` takes: opens one connection to a configured server. */
type Connector = NonNullable<McpSourceOptions['connect']>;
type Elicit = NonNullable<NonNullable<Parameters<Connector>[2]>['onElicitation']>;
type McpServerConfig = Parameters<Connector>[1];

/**
 * The fields of a server's config that decide which server is reached and as whom: the command, its
 * arguments, environment and folder, or the URL and headers (credentials included), and the protocol.
 * Everything else (`module`, `requireApproval`, `rateLimit`, `callers`, timeouts of calls…) is the
 * space's policy, applied by its own bridge and pool, and does not part two connections.
 */
const CONNECTION_FIELDS = ['type', 'command', 'args', 'env', 'cwd', 'url', 'headers', 'protocol', 'connectTimeoutMs'] as const;

/** The connections a host's spaces share, by server: `connect` for each space's MCP source, and a count. */
export interface SharedMcpConnections {
  readonly connect: Connector;
  /** Connections open now (each shared by every space holding it). */
  openCount(): number;
  /** Connections opened since the host started (a reconnect after a crash counts again). */
  openedCount(): number;
}

interface SharedEntry {
  connection: Promise<McpConnection>;
  holders: number;
  /** The question handlers of the spaces holding it (a pool's slot answers in the name of its calls). */
  askers: Set<Elicit>;
}

/**
 * One connection per server and credentials for every space of a host: a space's pool connecting to a
 * server another space's pool holds gets a handle on the same connection (`close()` releases it; the
 * last release closes it). Keyed by the connection fields of the resolved config (env and headers
 * with their secrets expanded), so two spaces with different credentials never share.
 *
 * A 2025-era server's question during a call (elicitation) does not say which call it is about: with
 * one space holding the connection it is that space's; with several, it is declined, so that no
 * space's approver ever answers (or sees) a question raised by another space's call.
 */
export function createSharedMcpConnections(connect: Connector = connectMcpServer): SharedMcpConnections {
  const entries = new Map<string, SharedEntry>();
  let opened = 0;
  return {
    openCount: () => entries.size,
    openedCount: () => opened,
    async connect(name, config, options = {}) {
      const asks = options.onElicitation !== undefined;
      const key = connectionKey(config, asks);
      let entry = entries.get(key);
      if (entry === undefined) {
        const created: SharedEntry = { holders: 0, askers: new Set(), connection: Promise.resolve(undefined as unknown as McpConnection) };
        const onElicitation: Elicit = (request) => {
          const [only, ...others] = created.askers;
          return only !== undefined && others.length === 0 ? only(request) : Promise.resolve({ action: 'decline' });
        };
        created.connection = connect(name, config, asks ? { onElicitation } : {}).then((connection) => {
          opened += 1;
          forgetWhenClosed(connection, () => {
            if (entries.get(key) === created) entries.delete(key);
          });
          return connection;
        });
        created.connection.catch(() => {
          if (entries.get(key) === created) entries.delete(key);
        });
        entries.set(key, created);
        entry = created;
      }
      const held = entry;
      held.holders += 1;
      if (options.onElicitation) held.askers.add(options.onElicitation);
      let connection: McpConnection;
      try {
        connection = await held.connection;
      } catch (error) {
        held.holders -= 1;
        throw error;
      }
      return handle(connection, async () => {
        held.holders -= 1;
        if (options.onElicitation) held.askers.delete(options.onElicitation);
        if (held.holders > 0) return;
        if (entries.get(key) === held) entries.delete(key);
        await connection.close();
      });
    },
  };
}

/** The connection seen by one holder: the same client and process, with `close()` releasing this hold once. */
function handle(connection: McpConnection, release: () => Promise<void>): McpConnection {
  let released = false;
  return {
    get client() {
      return connection.client;
    },
    get serverInfo() {
      return connection.serverInfo;
    },
    ...(connection.era === undefined ? {} : { era: connection.era }),
    ...(connection.protocolVersion === undefined ? {} : { protocolVersion: connection.protocolVersion }),
    transport: connection.transport,
    ...(connection.pid === undefined ? {} : { pid: connection.pid }),
    stderrTail: () => connection.stderrTail(),
    ...(connection.exitStatus === undefined ? {} : { exitStatus: () => connection.exitStatus?.() }),
    async close() {
      if (released) return;
      released = true;
      await release();
    },
  };
}

/** A connection that dies (a crashed server) is forgotten, so the next space to connect starts a new one. */
function forgetWhenClosed(connection: McpConnection, forget: () => void): void {
  const { client } = connection;
  const previous = client.onclose;
  client.onclose = () => {
    previous?.();
    forget();
  };
}

/** The identity of a connection: its connection fields, keys sorted at every level, and whether it may ask questions. */
function connectionKey(config: McpServerConfig, asks: boolean): string {
  const fields = Object.fromEntries(CONNECTION_FIELDS.map((field) => [field, (config as Record<string, unknown>)[field]]));
  return JSON.stringify(sorted({ ...fields, asks }));
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
  );
}
