// Prompt size: what the planner sends the model for a space of hundreds of tools (the canonical prompt,
// the task and the four planner tools; then the same after one search), against the same tools sent the
// usual way, as plain OpenAI function definitions. Tokens are counted with js-tiktoken (o200k_base, the
// encoding of the GPT-4o/4.1/5 and o-series models).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getEncoding } from 'js-tiktoken';
import { createSpace, searchTools } from '../space/index.js';
import { PLANNER_TOOLS } from '../planner/planner-tools.js';
import { buildSystemPrompt, buildTaskMessage } from '../planner/prompt.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const TASK = 'Find the unpaid invoices of Acme from last month and email the total to the account owner.';
const SIZES = [100, 300, 600];
const PER_MODULE = 20;

const SERVICES = [
  'billing',
  'crm',
  'calendar',
  'mail',
  'tickets',
  'inventory',
  'shipping',
  'payroll',
  'analytics',
  'storage',
  'chat',
  'wiki',
  'hr',
  'marketing',
  'ledger',
  'forms',
  'surveys',
  'maps',
  'search',
  'auth',
  'builds',
  'deploys',
  'metrics',
  'alerts',
  'catalog',
  'orders',
  'returns',
  'quotes',
  'contracts',
  'assets',
];
const ENTITIES = ['invoice', 'customer', 'event', 'message', 'ticket', 'item', 'parcel', 'employee', 'report', 'file'];
const VERBS = [
  ['list', 'Lists {e}s matching the filters, newest first, with pagination.'],
  ['get', 'Returns one {e} by its id, with every field.'],
  ['create', 'Creates a {e} and returns it with its new id.'],
  ['update', 'Updates fields of a {e}; fields left out are unchanged.'],
] as const;

function toolFile(module: string, index: number) {
  const functions = Array.from({ length: PER_MODULE }, (_, i) => {
    const entity = ENTITIES[(index + Math.floor(i / VERBS.length)) % ENTITIES.length] ?? 'item';
    const [verb, text] = VERBS[i % VERBS.length] ?? VERBS[0];
    return {
      name: `${verb}_${entity}s`,
      description: `${text.replace('{e}', entity)} Part of the ${module} service; respects the caller's permissions and rate limits.`,
      parameters: {
        type: 'object',
        properties: {
          id: { type: 'string', description: `The ${entity} id, e.g. "${entity.slice(0, 3)}-123".` },
          query: { type: 'string', description: 'Free-text filter over names and notes.' },
          status: { type: 'string', enum: ['open', 'pending', 'closed', 'archived'], description: 'Only this status.' },
          since: { type: 'string', format: 'date-time', description: 'Only items changed after this instant (ISO 8601).' },
          limit: { type: 'integer', minimum: 1, maximum: 500, description: 'Most items to return (default 50).' },
          fields: { type: 'array', items: { type: 'string' }, description: 'Fields to include; all when omitted.' },
        },
        required: verb === 'list' ? [] : ['id'],
      },
    };
  });
  // Nothing is called here: the implementation is named (never loaded) because a space builds no JSON tool without one.
  return { name: module, description: `The ${module} service`, implementation: './impl.mjs', functions };
}

async function makeSpace(tools: number): Promise<string> {
  await mkdir(path.join(REPO, '.tmp'), { recursive: true });
  const root = path.join(REPO, '.tmp', `bench-planner-${tools}-${process.pid}`);
  await mkdir(path.join(root, 'tools'), { recursive: true });
  const modules = Math.ceil(tools / PER_MODULE);
  for (let m = 0; m < modules; m++) {
    const service = `${SERVICES[m % SERVICES.length] ?? 'svc'}${m >= SERVICES.length ? `-${Math.floor(m / SERVICES.length) + 1}` : ''}`;
    await writeFile(path.join(root, 'tools', `${service}.json`), JSON.stringify(toolFile(service, m)));
  }
  // The implementation every tool file names: never called here, but a JSON tool's file must exist to build.
  await writeFile(path.join(root, 'tools', 'impl.mjs'), 'export default {};\n');
  await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['tools/*.json'] }));
  return root;
}

export async function run(): Promise<string> {
  const encoding = getEncoding('o200k_base');
  const tokenizer = { name: 'js-tiktoken o200k_base', count: (text: string) => encoding.encode(text).length };
  const rows: string[] = [];
  for (const size of SIZES) {
    const root = await makeSpace(size);
    const space = await createSpace({ cwd: root });
    try {
      const built = await space.build();
      // A build that left tools out would measure the wrong space (it did: the implementation file was missing).
      if (built.errors.length > 0) throw new Error(`bench planner: the build of ${size} tools failed: ${built.errors[0]?.message ?? ''}`);
      const catalog = await space.catalog();
      const specs = await space.capabilities();
      const functions = specs.reduce((sum, spec) => sum + spec.functions.length, 0);
      if (functions < size) throw new Error(`bench planner: the space has ${functions} functions, not the ${size} it was made with`);
      const messages = [
        { role: 'system', content: buildSystemPrompt() },
        { role: 'user', content: buildTaskMessage(TASK) },
      ];
      const planner = tokenizer.count(JSON.stringify({ messages, tools: PLANNER_TOOLS }));
      const search = searchTools(catalog, 'unpaid invoices customer email', { detailLevel: 'summary', limit: 10 });
      const afterSearch = tokenizer.count(
        JSON.stringify({
          messages: [
            ...messages,
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_1',
                  type: 'function',
                  function: { name: 'search_tools', arguments: '{"query":"unpaid invoices customer email"}' },
                },
              ],
            },
            { role: 'tool', tool_call_id: 'call_1', content: JSON.stringify({ ok: true, ...search }) },
          ],
          tools: PLANNER_TOOLS,
        }),
      );
      // The usual way: every tool as a function definition, with a one-line system prompt.
      const plainTools = specs.flatMap((spec) =>
        spec.functions.map((fn) => ({
          type: 'function',
          function: { name: `${spec.module}__${fn.name}`.slice(0, 64), description: fn.description ?? '', parameters: fn.inputSchema },
        })),
      );
      const plain = tokenizer.count(
        JSON.stringify({
          messages: [{ role: 'system', content: 'You are a helpful assistant. Use the tools to complete the task.' }, messages[1]],
          tools: plainTools,
        }),
      );
      rows.push(
        `| ${catalog.functions.length} | ${plain.toLocaleString('en')} | ${planner.toLocaleString('en')} | ${(planner / plain).toFixed(3)} (${((1 - planner / plain) * 100).toFixed(1)}% smaller) | ${afterSearch.toLocaleString('en')} | ${(afterSearch / plain).toFixed(3)} |`,
      );
    } finally {
      await space.close();
      await rm(root, { recursive: true, force: true });
    }
  }
  return [
    '## Planner prompt size',
    '',
    `Tokens sent to the model for the task "${TASK}" (tokenizer: ${tokenizer.name}). Baseline: the same tools as plain OpenAI function definitions in one request. Planner: the canonical prompt, the task and the four planner tools (first request), and the second request after one \`search_tools\` (limit 10, summary).`,
    '',
    '| tools | plain function definitions (baseline) | planner, first request | ratio to baseline | planner, after one search | ratio to baseline |',
    '|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}
