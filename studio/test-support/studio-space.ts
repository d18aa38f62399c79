// A copy of the example space for studio tests: the repository's capabilities and stations server, its
// own build output, and a copy of the station-guide agent (so saving tools never touches the repository).
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeExampleSpace, REPO } from '../../test/support/example-space.js';
import { callReply, startScriptedModelServer } from '../../test/support/scripted-model-server.js';
import { openSpace } from '../../agents/index.js';
import { executeTask } from '../../planner/index.js';

export { REPO };

export interface StudioSpace {
  root: string;
  env: Record<string, string>;
  agentDir: string;
}

/** A tool whose parameters use what the generated form must handle: $ref, nested objects, arrays, enums, oneOf. */
const SHIPMENT_TOOL = {
  name: 'quote_shipment',
  description: 'Quote a shipment (a fixture for the studio form: $ref, nested objects, arrays, enums, oneOf)',
  implementation: './shipment.ts',
  parameters: {
    type: 'object',
    $defs: {
      address: { type: 'object', properties: { city: { type: 'string', minLength: 1 }, zip: { type: 'string' } }, required: ['city'] },
    },
    properties: {
      from: { $ref: '#/$defs/address' },
      parcels: {
        type: 'array',
        minItems: 1,
        items: { type: 'object', properties: { weightKg: { type: 'number', minimum: 0.1 } }, required: ['weightKg'] },
      },
      speed: { type: 'string', enum: ['economy', 'express'] },
      payment: {
        oneOf: [
          {
            title: 'card',
            type: 'object',
            properties: { last4: { type: 'string', pattern: '^[0-9]{4}$' } },
            required: ['last4'],
            additionalProperties: false,
          },
          { title: 'invoice', type: 'object', properties: { po: { type: 'string' } }, required: ['po'], additionalProperties: false },
        ],
      },
    },
    required: ['from', 'parcels', 'speed'],
  },
};

const SHIPMENT_IMPLEMENTATION = `export function quote_shipment(args: { from: { city: string }; parcels: { weightKg: number }[]; speed: string; payment?: unknown }) {
  const weight = args.parcels.reduce((sum, parcel) => sum + parcel.weightKg, 0);
  return { quote: \`\${args.parcels.length} parcel(s), \${weight} kg from \${args.from.city} by \${args.speed}\`, payment: args.payment ?? null };
}
`;

export async function makeStudioSpace(prefix: string): Promise<StudioSpace> {
  const agentDir = 'agents/station-guide';
  const made = await makeExampleSpace(prefix, { agents: [agentDir], outDir: '.agent-spaces' });
  // The example space's sources plus the form fixture.
  const configFile = path.join(made.root, 'agent-spaces.config.json');
  const config = JSON.parse(await readFile(configFile, 'utf8')) as { capabilities: string[] };
  config.capabilities.push('tools/*.json');
  await writeFile(configFile, JSON.stringify(config, null, 2));
  await mkdir(path.join(made.root, 'tools'), { recursive: true });
  await writeFile(path.join(made.root, 'tools/shipment.json'), JSON.stringify(SHIPMENT_TOOL, null, 2));
  await writeFile(path.join(made.root, 'tools/shipment.ts'), SHIPMENT_IMPLEMENTATION);
  const space = made;
  const copy = path.join(space.root, agentDir);
  await cp(path.join(REPO, 'examples/agents/station-guide'), copy, { recursive: true });
  // The copy's own MCP server is the repository's, wherever the copy lives.
  const file = path.join(copy, 'tsagent.json');
  const agent = JSON.parse(await readFile(file, 'utf8')) as { mcpServers: { stations: { args: string[] } } };
  agent.mcpServers.stations.args = ['--import', 'tsx', path.join(REPO, 'examples/mcp-server/stations-server.ts')];
  await writeFile(file, JSON.stringify(agent, null, 2));
  return { ...space, agentDir: path.join(space.root, agentDir) };
}

/**
 * Records a real planner task in the space's run folder: `executeTask` against the scripted model
 * server (a search, a direct call, finish), so the runs pane has a trace to open.
 */
export async function recordTask(root: string): Promise<string> {
  const model = await startScriptedModelServer([
    callReply('search_tools', { query: 'schedule' }),
    callReply('call_tool', { name: 'train-schedule.getSchedule', arguments: { station: 'Central' } }),
    callReply('finish', { summary: 'Central has trains to three destinations.', result: { destinations: 3 } }),
  ]);
  const space = await openSpace({ cwd: root });
  try {
    const result = await executeTask('Which destinations does Central serve?', {
      space,
      model: { baseURL: model.baseURL, apiKey: 'test', model: 'scripted-model' },
      taskId: 'task-central',
    });
    if (!result.success) throw new Error(`the recorded task failed: ${JSON.stringify(result.error)}`);
    return 'task-central';
  } finally {
    await space.close();
    await model.close();
  }
}

/** A hash of the UI's sources (and the lock file, for the versions of Vite and CodeMirror). */
async function uiSourceHash(): Promise<string> {
  const hash = createHash('sha256');
  const uiDir = path.join(REPO, 'studio/ui');
  const files = (await readdir(uiDir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  for (const file of [...files, path.join(REPO, 'package-lock.json')]) hash.update(file).update(await readFile(file));
  return hash.digest('hex');
}

/**
 * Builds the UI for tests and screenshots into `.tmp/studio-ui/<hash of its sources>/`, once per version
 * of the sources. Not dist/studio-ui: a package build (npm pack in another test) empties dist/ while it
 * runs. Built into a temporary folder and renamed, so two builders at once never serve half a build.
 */
export async function ensureUiBuilt(): Promise<string> {
  const hash = await uiSourceHash();
  const outDir = path.join(REPO, '.tmp/studio-ui', hash.slice(0, 16));
  if (await stat(path.join(outDir, 'index.html')).catch(() => undefined)) return outDir;
  const building = `${outDir}.${process.pid}.tmp`;
  const { build } = await import('vite');
  await build({
    configFile: path.join(REPO, 'studio/ui/vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: building, emptyOutDir: true },
  });
  await rename(building, outDir).catch(async () => {
    await rm(building, { recursive: true, force: true }); // another builder finished first
  });
  return outDir;
}
