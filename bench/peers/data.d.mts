export interface Row {
  id: number;
  name: string;
  email: string;
  score: number;
  active: boolean;
  tags: string[];
  address: { city: string; zip: string };
}
export declare function row(i: number): Row;
export declare const BIG_ROWS: number;
export declare const CHUNK_ROWS: number;
export declare function bigPayload(): { rows: Row[] };
export declare function chunkPayload(i: number): { i: number; items: Row[] };
export declare function digest(value: unknown): { sha: string; bytes: number };
export declare const tools: {
  echo: (args: { text: string }) => { text: string };
  sleep: (args: { ms: number }) => Promise<{ ms: number }>;
  big: () => { rows: Row[] };
  chunk: (args: { i: number }) => { i: number; items: Row[] };
};
