import { formatIssues, type ResolvedConfig } from '../config/index.js';
import { ConfigError, type ConfigIssue } from '../core/index.js';
import { ENGINE_CHOICES, type EngineChoice } from '../runtime/index.js';

/**
 * The engine a space's runs ask for: the option, else the config's `sandbox.engine`; undefined when
 * neither says (the sandbox then takes `AGENT_SPACES_ENGINE`, else `auto`).
 * The config accepts any string there (config does not import the runtime, whose engines they are):
 * this is where it is checked, failing as the config's own checks do — which key, in which file, and
 * what the choices are.
 */
export function spaceEngineChoice(config: ResolvedConfig, option: EngineChoice | undefined): EngineChoice | undefined {
  if (option !== undefined) return option;
  const asked = config.sandbox.engine;
  if (asked === undefined || isEngineChoice(asked)) return asked;
  const issues: ConfigIssue[] = [
    {
      path: 'sandbox.engine',
      message: `must be one of ${ENGINE_CHOICES.map((name) => `"${name}"`).join(', ')} (got ${JSON.stringify(asked)})`,
    },
  ];
  const where = config.file === undefined ? '' : ` in ${config.file}`;
  throw new ConfigError(
    `invalid configuration${where}:\n${formatIssues(issues)}`,
    issues,
    config.file === undefined ? {} : { file: config.file },
  );
}

function isEngineChoice(name: string): name is EngineChoice {
  return (ENGINE_CHOICES as readonly string[]).includes(name);
}
