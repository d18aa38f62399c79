import { statSync } from 'node:fs';

/** Whether `file` is a regular file (false when it is missing or unreadable). */
export function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Whether `folder` is a directory (false when it is missing or unreadable). */
export function isFolder(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}
