export { Builder, newControllerManagedBy, type BuilderControllerOptions, type BuilderWatchOptions } from './builder.js';
