// A sandbox worker that cannot start: it says why on stderr and exits before its 'ready' (as the real
// worker does when no engine loads on this Node).
process.stderr.write('sandbox-worker: no engine: nothing loads here\n');
process.exit(3);
