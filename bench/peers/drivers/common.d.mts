export declare function importFrom(prefix: string, name: string, subpath?: string): Promise<Record<string, unknown>>;
export interface DriverSystem {
  run(body: string, uses: string[], options: { check: boolean }): Promise<unknown>;
  probe?(probe: { name: string } & Record<string, unknown>): Promise<unknown>;
  close?(): Promise<void>;
  info?: string;
}
export declare function serveDriver<M>(driver: {
  load: (options: Record<string, unknown>) => Promise<M>;
  setup: (modules: M, options: Record<string, unknown>) => Promise<DriverSystem>;
}): Promise<void>;
export declare function prelude(uses: string[], nameOf: (name: string) => string): string;
