// What an index key put on Array.prototype for a moment does to a V8 context's arrays (the guest's
// bootstrap did this once in every sandbox context; bench/README.md, the fourteenth session):
//   node bench/array-protector.mjs          # as a context is now
//   node bench/array-protector.mjs probe    # after Array.prototype[0] was defined and deleted
/* global console, performance, process */
if (process.argv[2] === 'probe') {
  Object.defineProperty(Array.prototype, '0', { set() {}, configurable: true });
  JSON.stringify([[]]);
  delete Array.prototype[0];
}
const timed = (work) => {
  const started = performance.now();
  work();
  return `${(performance.now() - started).toFixed(0)} ms`;
};
const fill = timed(() => {
  for (let k = 0; k < 200; k++) new Array(1e5).fill(7);
});
const push = timed(() => {
  for (let k = 0; k < 100; k++) {
    const a = [];
    for (let i = 0; i < 1e5; i++) a.push(i);
  }
});
const spread = timed(() => {
  for (let k = 0; k < 100; k++) {
    const a = Array.from({ length: 1e4 }, (_, i) => i);
    [...a, ...a].map((x) => x * 2);
  }
});
console.log(
  `${process.argv[2] === 'probe' ? 'after the probe' : 'untouched'}: 200 × fill(1e5) ${fill}, 1e7 push ${push}, 100 × spread/map ${spread}`,
);
