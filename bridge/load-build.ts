import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AgentSpacesError, BUILD_LAYOUT, errorMessage } from '../core/index.js';
import type { CapabilitySpec } from '../core/index.js';

/**
 * Reads the built capabilities: every `<outDir>/capabilities/<module>/schema.json` (one
 * `CapabilitySpec` as JSON each), sorted by module name.
 */
export async function loadBuiltCapabilities(outDir: string): Promise<CapabilitySpec[]> {
  const folder = join(outDir, BUILD_LAYOUT.capabilitiesDir);
  let entries: string[];
  try {
    entries = (await readdir(folder, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (error) {
    throw new AgentSpacesError('BUILD_MISSING', `no built capabilities in ${folder}: run \`agent-spaces capabilities build\` first`, {
      details: { folder },
      cause: error,
    });
  }

  const specs: CapabilitySpec[] = [];
  for (const name of entries.sort()) {
    const file = join(folder, name, BUILD_LAYOUT.moduleFiles.schema);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    specs.push(parseSpec(text, file));
  }
  return specs;
}

function parseSpec(text: string, file: string): CapabilitySpec {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AgentSpacesError(
      'BUILD_INVALID',
      `${file} is not valid JSON (${errorMessage(error)}): rebuild with \`agent-spaces capabilities build\``,
      {
        details: { file },
        cause: error,
      },
    );
  }
  const spec = value as Partial<CapabilitySpec> | null;
  if (typeof spec !== 'object' || spec === null || typeof spec.module !== 'string' || !Array.isArray(spec.functions)) {
    throw new AgentSpacesError(
      'BUILD_INVALID',
      `${file} is not a capability schema (needs "module" and "functions"): rebuild with \`agent-spaces capabilities build\``,
      {
        details: { file },
      },
    );
  }
  return { ...spec, config: spec.config ?? {} } as CapabilitySpec;
}
