import { defineCommand } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'capabilities save',
  synopsis: ['agent-spaces capabilities save <program.ts> --as <group.name> [--description <text>] [--json]'],
  description:
    'save a program that worked as a function of @capabilities/saved-<group>, callable from later programs and as a direct call;\nthe program has the form `export default async function name(input: { ... }): Promise<Result>` and must type-check\nagainst the current capabilities; writes saved/<group>/<name>.ts and .json and rebuilds (saving again replaces it)',
  options: ['config', 'cwd', 'json', 'as', 'description'],
  async run({ args, common, values }) {
    if (args.length !== 1)
      throw new UsageError(`capabilities save takes one program file (got ${args.length === 0 ? 'none' : `"${args.join(' ')}"`})`);
    if (values.as === undefined) throw new UsageError('capabilities save needs --as <group.name>, e.g. --as reports.weeklySummary');
    const [file = ''] = args;
    return (await import('./capabilities-save.js')).saveCommand({
      ...common,
      file,
      as: values.as,
      ...(values.description === undefined ? {} : { description: values.description }),
    });
  },
});
