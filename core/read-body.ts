/**
 * Reads a response's body up to `maxBytes`: past that it stops reading, closes the connection and
 * returns undefined, instead of buffering whatever a server sends. An empty body is an empty buffer.
 */
export async function readBodyUpTo(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
