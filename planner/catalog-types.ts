import type { Space } from '../space/index.js';

// The build's search index, as the space hands it out (the planner does not reach into the compiler).
export type Catalog = Awaited<ReturnType<Space['catalog']>>;
export type CatalogEntry = Catalog['functions'][number];
