/**
 * The guest code every engine evaluates first in a fresh context, as one function expression of its
 * five host callbacks (`$0` … `$4`: send, writeLog, complete, timer, url). Calling it installs the
 * globals and returns `{ deliver, run, wake }` (see bootstrap-source.ts).
 */
import { BOOTSTRAP_SOURCE } from './bootstrap-source.js';

export const BOOTSTRAP_FUNCTION = `(function ($0, $1, $2, $3, $4) {${BOOTSTRAP_SOURCE}\n})`;
