import { UserError } from '../errors.js';

/** A cluster operation failed; the message says which object or connection, and what to do. */
export class ClusterError extends UserError {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'ClusterError';
  }
}
