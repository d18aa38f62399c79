// @tanstack/ai-code-mode with @tanstack/ai-isolate-quickjs (QuickJS in WebAssembly through
// quickjs-emscripten, its asyncify build): the same tools as the isolated-vm TanStack driver, exposed
// as `external_<name>`. ai-isolate-quickjs 0.1.30 wants ai-code-mode 0.2.5 (and @tanstack/ai 0.28), so it
// has a cache folder of its own. Runs on Node 22 (the peers' Node).
/* global process */
import { importFrom, prelude, serveDriver } from './common.mjs';
import { tanstackTools } from './tanstack-tools.mjs';

await serveDriver({
  async load(options) {
    const [ai, codeMode, isolateQuickJs, zod] = await Promise.all([
      importFrom(options.prefix, '@tanstack/ai'),
      importFrom(options.prefix, '@tanstack/ai-code-mode'),
      importFrom(options.prefix, '@tanstack/ai-isolate-quickjs'),
      importFrom(options.prefix, 'zod'),
    ]);
    return { ai, codeMode, isolateQuickJs, z: zod.z };
  },
  async setup({ ai, codeMode, isolateQuickJs, z }, options) {
    const { definitions, close } = await tanstackTools({ ai, z }, options, 'bench-tanstack-quickjs');
    const tool = codeMode.createCodeModeTool({
      driver: isolateQuickJs.createQuickJSIsolateDriver(),
      tools: definitions,
      timeout: 120_000,
      memoryLimit: 128,
    });
    return {
      info: `@tanstack/ai-code-mode + ai-isolate-quickjs on Node ${process.version}`,
      async run(body, uses) {
        const output = await tool.execute({ typescriptCode: prelude(uses, (name) => `external_${name}`) + body });
        if (!output.success) throw new Error(`TanStack QuickJS run failed: ${JSON.stringify(output.error)}`);
        return output.result;
      },
      close,
    };
  },
});
