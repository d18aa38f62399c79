/** A command line the CLI cannot act on: printed with a pointer to the help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
