/**
 * Errors a user can cause (bad input, missing files, corrupt data). The CLI prints their message
 * alone, without a stack trace, and exits with their status.
 */
export class UserError extends Error {
  constructor(
    message: string,
    /** Exit status: 2 for bad input, 1 for a failure of the run. */
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'UserError';
  }
}
