/** The studio's API: every call carries the token the page was opened with. */
const TOKEN_KEY = 'agent-spaces-studio-token';

/** Reads the token from the address (`#token=…`), keeps it for this tab, and takes it out of the address bar. */
export function takeToken(): string {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match?.[1]) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, '', `${location.pathname}#/capabilities`);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

let token = '';
export function setToken(value: string): void {
  token = value;
}

/** The space this tab works on, of a studio over several (`agent-spaces studio --spaces`): '' for the default. */
const SPACE_KEY = 'agent-spaces-studio-space';
export function currentSpace(): string {
  return sessionStorage.getItem(SPACE_KEY) ?? '';
}
/** Picks another space for this tab; the page reloads to show it (every pane and the event stream). */
export function pickSpace(name: string): void {
  sessionStorage.setItem(SPACE_KEY, name);
  location.reload();
}
const spaceHeader = (): Record<string, string> => (currentSpace() ? { 'x-agent-spaces-space': currentSpace() } : {});

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function api<T = unknown>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...spaceHeader(),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!response.ok)
    throw new ApiError(
      response.status,
      data.error?.code ?? 'ERROR',
      data.error?.message ?? `${method} ${path} failed (${response.status})`,
    );
  return data as T;
}

type Listener = (data: Record<string, unknown>) => void;
const listeners = new Map<string, Set<Listener>>();
let source: EventSource | undefined;

/** Subscribes to one type of the server's events (one EventSource for the whole page). */
export function onEvent(type: string, listener: Listener): () => void {
  const space = currentSpace() ? `&space=${encodeURIComponent(currentSpace())}` : '';
  source ??= new EventSource(`/api/events?token=${encodeURIComponent(token)}${space}`);
  let set = listeners.get(type);
  if (!set) {
    set = new Set();
    listeners.set(type, set);
    source.addEventListener(type, (event) => {
      const data = JSON.parse((event as MessageEvent<string>).data) as Record<string, unknown>;
      for (const each of listeners.get(type) ?? []) each(data);
    });
  }
  set.add(listener);
  return () => set.delete(listener);
}
