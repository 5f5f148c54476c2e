export {
  Builder,
  newControllerManagedBy,
  newTypedControllerManagedBy,
  type BuilderControllerOptions,
  type BuilderWatchOptions,
} from './builder.js';
