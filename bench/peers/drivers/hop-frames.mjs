// Frames of the process hop floor (hop-floor.mjs ⇄ hop-sandbox.mjs) on a socketpair: the byte lengths of a
// header and a body (two 32-bit unsigned integers, big-endian), then the header's and the body's UTF-8. A
// body — a program, a call's arguments, a result — travels as its own text, never escaped into the header.
/* global Buffer */

/** Writes one frame: one buffer, one write. */
export function writeFrame(socket, header, body) {
  const headerBytes = Buffer.byteLength(header);
  const bodyBytes = Buffer.byteLength(body);
  const frame = Buffer.allocUnsafe(8 + headerBytes + bodyBytes);
  frame.writeUInt32BE(headerBytes, 0);
  frame.writeUInt32BE(bodyBytes, 4);
  frame.write(header, 8);
  frame.write(body, 8 + headerBytes);
  socket.write(frame);
}

/** A 'data' listener that hands each whole frame to `onFrame(header, body)`. */
export function frameReader(onFrame) {
  let held = [];
  let heldBytes = 0;
  let needed = 8;
  return (chunk) => {
    held.push(chunk);
    heldBytes += chunk.length;
    while (heldBytes >= needed) {
      const data = held.length === 1 ? held[0] : Buffer.concat(held, heldBytes);
      const headerBytes = data.readUInt32BE(0);
      const bodyBytes = data.readUInt32BE(4);
      needed = 8 + headerBytes + bodyBytes;
      if (data.length < needed) {
        held = [data];
        return;
      }
      onFrame(data.toString('utf8', 8, 8 + headerBytes), data.toString('utf8', 8 + headerBytes, needed));
      const rest = data.subarray(needed);
      held = rest.length > 0 ? [rest] : [];
      heldBytes = rest.length;
      needed = 8;
    }
  };
}
