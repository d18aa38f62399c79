import { z } from 'zod';

const rateLimit = z.strictObject({
  requests: z.number().int().positive(),
  period: z.enum(['second', 'minute', 'hour', 'day']),
  onLimit: z.enum(['fail', 'queue']).optional(),
  maxWaitMs: z.number().int().positive().optional(),
  maxQueue: z.number().int().positive().optional(),
});
const callers = z.enum(['code', 'direct', 'both']);

/**
 * One TypeScript SDK (`sdks.<name>`): the functions of a module or package become the typed functions
 * of `@capabilities/<name>`, their schemas derived from the SDK's own declarations. Calls run on the
 * host; constructor arguments (`create.args`) stay there (`${VAR}`s expanded, their secrets redacted).
 */
export const sdkSchema = z
  .strictObject({
    /** A local file or folder, relative to the config file (`./sdk/company`). */
    module: z.string().min(1).optional(),
    /** A package installed beside the config (an npm dependency or a workspace package): `@octokit/rest`. */
    package: z.string().min(1).optional(),
    /**
     * Where the functions live in the module, or in the instance `create` builds: a dotted path
     * (`api`, `rest` for Octokit's `octokit.rest.issues.get`); default: the module (instance) itself.
     */
    path: z
      .string()
      .regex(/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/, 'a dotted path of property names (`rest`, `api.v2`)')
      .optional(),
    /**
     * Build an instance from config and take its methods: `{ export: 'Octokit', args: [{ auth: '${GITHUB_TOKEN}' }] }`
     * (`new Octokit(...args)`; `call: true` calls a factory function instead).
     */
    create: z
      .strictObject({
        export: z.string().min(1),
        args: z.array(z.unknown()).optional(),
        call: z.boolean().optional(),
      })
      .optional(),
    /** Functions to keep, by dotted path or glob (`issues.*`, `repos.get`); default: all. */
    include: z.array(z.string().min(1)).optional(),
    /** Functions to leave out, by dotted path or glob. */
    exclude: z.array(z.string().min(1)).optional(),
    /** `true`: every function waits for approval; a list: those functions (dotted paths or globs). */
    requireApproval: z.union([z.boolean(), z.array(z.string().min(1))]).optional(),
    rateLimit: rateLimit.optional(),
    /** Who may call its functions: `'code' | 'direct' | 'both'`, or per dotted path (`'*'` for the rest). */
    callers: z.union([callers, z.record(z.string().min(1), callers)]).optional(),
    /**
     * Top-level argument properties a program may never pass (their schema becomes `false`), e.g.
     * Octokit's `['baseUrl', 'headers', 'request']`: a program choosing where the client's token goes.
     */
    denyArguments: z.array(z.string().min(1)).optional(),
    /** Module name override (default: the SDK's name in kebab-case). */
    moduleName: z
      .string()
      .regex(/^[a-z][a-z0-9-]*$/, 'must be kebab-case (a-z, 0-9, -)')
      .optional(),
    /**
     * Unwrap results shaped like an HTTP response envelope (`{ data, status, headers, url }`, as
     * Octokit's) to their `data` (default true).
     */
    unwrapResponses: z.boolean().optional(),
    /** Largest declarations (`index.d.ts` text) the SDK's module may have, in characters (default 400,000). */
    maxDeclarationChars: z.number().int().positive().optional(),
    disabled: z.boolean().optional(),
  })
  .refine((sdk) => (sdk.module === undefined) !== (sdk.package === undefined), {
    message: 'give exactly one of `module` (a local path) or `package` (an installed package name)',
  });

export type SdkConfig = z.output<typeof sdkSchema>;

/** SDK names: letters, digits, `_ . -`. */
export const sdkNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'SDK names use letters, digits, _ . -');
