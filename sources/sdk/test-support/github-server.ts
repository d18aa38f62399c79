import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server saw. */
export interface SeenRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

export interface GitHubServer {
  origin: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** A user as GitHub's REST API answers it (every field its schema requires). */
export function githubUser(login: string, id: number): Record<string, unknown> {
  const url = `https://api.github.com/users/${login}`;
  return {
    login,
    id,
    node_id: `U_${id}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${id}`,
    gravatar_id: '',
    url,
    html_url: `https://github.com/${login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: 'User',
    site_admin: false,
  };
}

/** An issue as GitHub's REST API answers `GET /repos/{owner}/{repo}/issues/{issue_number}`. */
export function githubIssue(owner: string, repo: string, number: number, title: string): Record<string, unknown> {
  const repository = `https://api.github.com/repos/${owner}/${repo}`;
  const url = `${repository}/issues/${number}`;
  return {
    id: 1000 + number,
    node_id: `I_${number}`,
    url,
    repository_url: repository,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `https://github.com/${owner}/${repo}/issues/${number}`,
    number,
    state: 'open',
    title,
    body: 'Steps to reproduce: …',
    user: githubUser('octocat', 1),
    labels: [
      { id: 208045946, node_id: 'L_1', url: `${repository}/labels/bug`, name: 'bug', description: null, color: 'f29513', default: true },
    ],
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    comments: 2,
    closed_at: null,
    created_at: '2026-11-01T10:00:00Z',
    updated_at: '2026-11-02T10:00:00Z',
    author_association: 'OWNER',
  };
}

/**
 * A local HTTP server answering like api.github.com for the issue routes a test calls: `GET
 * /repos/{owner}/{repo}/issues/{n}` (404 with GitHub's error body for n ≥ 900), `GET
 * /repos/{owner}/{repo}/issues` and `POST /repos/{owner}/{repo}/issues`. It records every request.
 */
export async function startGitHubServer(): Promise<GitHubServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      requests.push({ method: request.method ?? '', url: request.url ?? '', authorization: request.headers.authorization, body });
      const answer = (status: number, value: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        response.end(JSON.stringify(value));
      };
      const one = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)$/.exec(url.pathname);
      const list = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(url.pathname);
      if (request.method === 'GET' && one !== null) {
        const number = Number(one[3]);
        if (number >= 900)
          return answer(404, {
            message: 'Not Found',
            documentation_url: 'https://docs.github.com/rest/issues/issues#get-an-issue',
            status: '404',
          });
        return answer(200, githubIssue(one[1] ?? '', one[2] ?? '', number, `Issue ${number}`));
      }
      if (request.method === 'GET' && list !== null) {
        const perPage = Number(url.searchParams.get('per_page') ?? '30');
        const issues = [1, 2, 3].map((number) => githubIssue(list[1] ?? '', list[2] ?? '', number, `Issue ${number}`));
        return answer(200, issues.slice(0, perPage));
      }
      if (request.method === 'POST' && list !== null) {
        const { title } = JSON.parse(body) as { title: string };
        return answer(201, githubIssue(list[1] ?? '', list[2] ?? '', 42, title));
      }
      return answer(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
