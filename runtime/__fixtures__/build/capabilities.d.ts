declare module '@capabilities/math' {
  /** Adds two numbers. */
  export function add(args: { a: number; b: number }): Promise<number>;
  /** Waits `ms` milliseconds on the host, then resolves to `ms`. */
  export function sleep(args: { ms: number }): Promise<number>;
  /** Resolves to its argument. */
  export function echo(args: { value: unknown }): Promise<unknown>;
  /** Rejects with the given tool error code. */
  export function fail(args: { code: string; message?: string }): Promise<never>;
  export const math: { add: typeof add; sleep: typeof sleep; echo: typeof echo; fail: typeof fail };
  export default math;
}

declare module '@capabilities/crm' {
  export interface Customer { id: string; name: string; email: string }
  export function getCustomer(args: { id: string }): Promise<Customer>;
  /** Requires approval. */
  export function deleteCustomer(args: { id: string }): Promise<{ deleted: boolean }>;
  export const crm: { getCustomer: typeof getCustomer; deleteCustomer: typeof deleteCustomer };
  export default crm;
}
