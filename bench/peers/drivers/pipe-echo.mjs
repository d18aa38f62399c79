// The child of the W2 pipe floor (floor.mjs, pipeRoundTrips): echoes every byte it reads on fd 3 — a
// socketpair its parent opened with stdio 'pipe' — back on the same fd.
import net from 'node:net';

const socket = new net.Socket({ fd: 3, readable: true, writable: true });
socket.on('data', (chunk) => socket.write(chunk));
socket.on('end', () => socket.end());
socket.on('error', () => {});
