import { defineCommand, pick } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'studio',
  synopsis: ['agent-spaces studio [--port <p>] [--open] [--store <url>] [--eval-dir <dir>] [--spaces <[name=]dir,...>]'],
  description:
    'a local web UI over the space (loopback only, a token in the address it prints): capabilities,\nplayground, function tester, agent tool editor, runs and traces, approvals (also of run, task and serve\nstarted with --studio and its address), eval runs side by side. With a store: runs go to its workers,\nand the inbox decides the approvals of every run in it. With --spaces, several folders, a space picker in the page',
  options: ['config', 'cwd', 'port', 'open', 'store', 'eval-dir', 'spaces'],
  stopsItself: true,
  async run({ args: [first], cwd, common, values }) {
    if (first) throw new UsageError(`unexpected argument "${first}" (studio takes options only)`);
    return (await import('./studio.js')).studioCommand({
      cwd,
      ...(common.config ? { config: common.config } : {}),
      ...pick(values, ['port', 'store', 'spaces']),
      ...(values['eval-dir'] ? { evalDir: values['eval-dir'] } : {}),
      open: values.open === true,
    });
  },
});
