import type { KubeObject, Resource } from '../rest/types.js';
import { AdmissionWebhook, defaultingHandler, validatingHandler } from './admission.js';
import type { SpokeConversion, SpokeConversions } from './conversion.js';
import type { WebhookServer } from './server.js';
import type { CustomDefaulter, CustomValidator } from './types.js';
import { ConfigurationError } from '../errors.js';

/** What the builder needs of a manager: its webhook server (the Manager provides it). */
export interface WebhookServerProvider {
  /** The server webhooks are registered with. */
  getWebhookServer(): WebhookServer;
}

/** kubebuilder's webhook paths: /<prefix>-<group with dots as dashes>-<version>-<lowercase kind>. */
function generatePath(prefix: 'mutate' | 'validate', res: Resource): string {
  return `/${prefix}-${res.group.replace(/\./g, '-')}-${res.version}-${res.kind.toLowerCase()}`;
}

/** The default path of a defaulting webhook: /mutate-crew-example-com-v1-captain. */
export function defaultingWebhookPath(res: Resource): string {
  return generatePath('mutate', res);
}

/** The default path of a validating webhook: /validate-crew-example-com-v1-captain. */
export function validatingWebhookPath(res: Resource): string {
  return generatePath('validate', res);
}

/**
 * Registers a kind's webhooks with the manager's webhook server (controller-runtime's WebhookBuilder); each call
 * maps to one handler on one path, which you could register by hand with mgr.getWebhookServer().register().
 */
export class WebhookBuilder<T extends KubeObject> {
  private defaulter: { impl: CustomDefaulter<T>; path: string } | undefined;
  private validator: { impl: CustomValidator<T>; path: string } | undefined;
  private spokes: ReadonlyArray<SpokeConversion<T>> | undefined;
  private completed = false;

  constructor(
    private readonly mgr: WebhookServerProvider,
    private readonly res: Resource<T>,
  ) {}

  /** A mutating webhook that applies `defaulter`'s changes; served at defaultingWebhookPath(res) unless `path` is given. */
  withDefaulter(defaulter: CustomDefaulter<T>, opts: { path?: string } = {}): this {
    this.defaulter = { impl: defaulter, path: opts.path ?? defaultingWebhookPath(this.res) };
    return this;
  }

  /** A validating webhook; served at validatingWebhookPath(res) unless `path` is given. */
  withValidator(validator: CustomValidator<T>, opts: { path?: string } = {}): this {
    this.validator = { impl: validator, path: opts.path ?? validatingWebhookPath(this.res) };
    return this;
  }

  /** Conversions between the hub (this builder's resource, the storage version) and each spoke, served at /convert. */
  withConversion<Spokes extends KubeObject[]>(spokes: SpokeConversions<T, Spokes>): this {
    this.spokes = spokes as unknown as ReadonlyArray<SpokeConversion<T>>;
    return this;
  }

  /** Registers everything given; throws if nothing was, or a path is taken. */
  complete(): void {
    if (this.completed) throw new ConfigurationError('complete() was already called');
    if (!this.defaulter && !this.validator && !this.spokes) {
      throw new ConfigurationError(
        `webhook for ${this.res.kind}: give withDefaulter, withValidator or withConversion before complete()`,
      );
    }
    this.completed = true;
    const server = this.mgr.getWebhookServer();
    if (this.defaulter)
      server.register(this.defaulter.path, new AdmissionWebhook(defaultingHandler(this.res, this.defaulter.impl)));
    if (this.validator)
      server.register(this.validator.path, new AdmissionWebhook(validatingHandler(this.res, this.validator.impl)));
    if (this.spokes) server.conversionWebhook().register(this.res, this.spokes);
  }
}

/** Starts a webhook builder for `res` (the hub, when conversions are given). */
export function newWebhookManagedBy<T extends KubeObject>(
  mgr: WebhookServerProvider,
  res: Resource<T>,
): WebhookBuilder<T> {
  return new WebhookBuilder(mgr, res);
}
