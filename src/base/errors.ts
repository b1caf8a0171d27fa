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

/** What a failed system call says, in words, for errors of the user's environment (disk full, a
 * directory where a file should be, permissions); null for any other error. */
const SYSTEM_ERRORS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file larger than the file size limit (ulimit -f)',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ENOENT: 'no such file or directory',
  ENAMETOOLONG: "the path is longer than the system's limit",
  EEXIST: 'already exists',
  ENOTEMPTY: 'directory not empty',
  EIO: 'input/output error',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  ELOOP: 'too many symbolic links',
  ENXIO: 'no such device',
  EBADF: 'not open for writing',
};

export function systemErrorText(e: unknown): string | null {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && code in SYSTEM_ERRORS ? `${SYSTEM_ERRORS[code]} (${code})` : null;
}
