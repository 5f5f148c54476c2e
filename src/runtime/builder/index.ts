export {
  Builder,
  newControllerManagedBy,
  newTypedControllerManagedBy,
  type BuilderControllerOptions,
  type BuilderReadOptions,
  type BuilderWatchOptions,
} from './builder.js';
