/** A cluster operation failed; the message says which object or connection, and what to do. */
export class ClusterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterError';
  }
}
