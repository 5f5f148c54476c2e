/** A build failure; the message names the file (or kustomization) involved and what to change. */
export class KustomizeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KustomizeError';
  }
}
