export { Builder, newControllerManagedBy, type BuilderControllerOptions } from './builder.js';
