/** A command line the CLI cannot act on: printed with a pointer to the help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command (or group) the line named, whose help the message points at; none: the whole help. */
  readonly command: string | undefined;

  constructor(message: string, options: { command?: string } = {}) {
    super(message);
    this.command = options.command;
  }
}
