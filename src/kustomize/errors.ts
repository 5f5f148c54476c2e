import { UserError } from '../errors.js';

/** A build failure; the message names the file (or kustomization) involved and what to change. */
export class KustomizeError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'KustomizeError';
  }
}
