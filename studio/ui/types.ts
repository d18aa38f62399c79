/** The shapes the studio's API answers with: written once, in the server's wire-types (type-only). */
export type * from '../server/wire-types.js';
