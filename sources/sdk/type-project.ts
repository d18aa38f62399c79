import type * as Morph from 'ts-morph';

/**
 * A ts-morph project that reads TypeScript as a strict ES-module build with bundler resolution does,
 * with no tsconfig's files in it: where an SDK's declarations and a tool file's `returns: {} as T` are
 * read. ts-morph is loaded here, on first use, so that a space without either never loads it.
 */
export async function createTypeProject(): Promise<{ project: Morph.Project; morph: typeof Morph }> {
  const morph = await import('ts-morph');
  const { ts } = morph;
  const project = new morph.Project({
    skipAddingFilesFromTsConfig: true,
    compilerOptions: {
      strict: true,
      target: ts.ScriptTarget.ESNext,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      lib: ['lib.esnext.full.d.ts'],
      // Read only, never emitted: imports that name a file's `.ts` extension (as Node's own type
      // stripping and tsx accept) resolve, and an SDK's `module` may name its `.ts` file.
      noEmit: true,
      allowImportingTsExtensions: true,
    },
  });
  return { project, morph };
}
