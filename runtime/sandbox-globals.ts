/**
 * The globals a program sees inside the isolate besides ES2022, as TypeScript declarations: the type
 * checker adds them to every check. Keep this in step with what the isolate's bootstrap provides.
 */
export const SANDBOX_GLOBALS_DECLARATION = `
interface Console {
  log(...data: unknown[]): void; info(...data: unknown[]): void; warn(...data: unknown[]): void;
  error(...data: unknown[]): void; debug(...data: unknown[]): void; trace(...data: unknown[]): void;
}
declare var console: Console;
`;
