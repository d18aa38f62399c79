// The QuickJS floor: bare quickjs-emscripten in the driver's process, a run as quickjs-run.mjs makes it
// (a fresh runtime and context, one host function `__call`, the result out as JSON text). For W4 the tools
// wrap an MCP SDK Client, as in the isolated-vm floor. What any QuickJS design must pay.
/* global process */
import { mcpTools, serveDriver } from './common.mjs';
import { loadQuickJs, runInQuickJs } from './quickjs-run.mjs';
import { tools } from '../data.mjs';

await serveDriver({
  async load() {
    return { QuickJS: await loadQuickJs() };
  },
  async setup({ QuickJS }, options) {
    const mcp = await mcpTools(options, 'bench-quickjs-floor');
    const host = { ...tools, ...mcp.tools };
    return {
      info: `bare quickjs-emscripten (quickjs-ng sync build) on Node ${process.version}`,
      async run(body, uses) {
        const callTool = (name, argsJson) => Promise.resolve(host[name](JSON.parse(argsJson))).then((value) => JSON.stringify(value));
        return JSON.parse(await runInQuickJs(QuickJS, body, uses, callTool));
      },
      close: mcp.close,
    };
  },
});
