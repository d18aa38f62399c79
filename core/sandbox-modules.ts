/**
 * The list of npm packages a build bundled for the sandbox (`sandbox.modules`), as the build writes it
 * (`BUILD_LAYOUT.sandboxModulesFile`) and the runtime and the type checker read it.
 */

/** One importable specifier (`date-fns`, `lodash-es/chunk`) and its bundle. */
export interface SandboxModuleEntry {
  /** The package it belongs to (`lodash-es`, `@scope/name`). */
  package: string;
  /** The package's installed version. */
  version: string;
  /** The bundle, relative to `BUILD_LAYOUT.sandboxModulesDir` (`bundles/…/index.<hash>.js`). */
  file: string;
  /** The bundle's size in bytes. */
  bytes: number;
  /** The other packages the bundle holds (its dependencies), each with its fingerprint in `inputs`. */
  includes?: string[];
}

/** What `BUILD_LAYOUT.sandboxModulesFile` holds. */
export interface SandboxModulesManifest {
  version: 1;
  /** By specifier, sorted. */
  modules: Record<string, SandboxModuleEntry>;
  /**
   * The declarations programs are checked against: a folder (relative to
   * `BUILD_LAYOUT.sandboxModulesDir`) holding `node_modules/<package>/…` with the packages' own
   * `.d.ts` files and `package.json` (and `@types/*` for packages without their own).
   */
  typesDir?: string;
  /** What the bundles were made from: `<package>` → `<version>` (and the lockfile's integrity, when there is one). */
  inputs: Record<string, string>;
}

/** The manifest in `data`, or undefined when it is not one. */
export function parseSandboxModules(data: unknown): SandboxModulesManifest | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const manifest = data as Partial<SandboxModulesManifest>;
  if (manifest.version !== 1 || typeof manifest.modules !== 'object' || manifest.modules === null) return undefined;
  if (typeof manifest.inputs !== 'object' || manifest.inputs === null) return undefined;
  if (manifest.typesDir !== undefined && typeof manifest.typesDir !== 'string') return undefined;
  for (const entry of Object.values(manifest.modules) as unknown[]) {
    const fields = entry as Partial<SandboxModuleEntry> | null;
    if (typeof fields?.file !== 'string' || typeof fields.package !== 'string' || typeof fields.version !== 'string') return undefined;
  }
  return manifest as SandboxModulesManifest;
}
