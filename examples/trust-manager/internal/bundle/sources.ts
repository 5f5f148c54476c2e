// trust-manager's pkg/bundle/internal/source (BuildBundle): the certificates of a Bundle's sources, read from the trust
// namespace, gathered into one pool. The errors keep the original's words, which the Synced condition shows.
import { isNotFound, type Client } from '@kubescaffold/runtime';
import {
  ConfigMaps,
  Secrets,
  selectorFromLabelSelector,
  type LabelSelector,
  type Selector,
} from '@kubescaffold/runtime/rest';
import type { BundleSource, SourceObjectKeySelector } from '../../api/v1alpha1/bundle_types.js';
import { CertPool, type CertPoolOptions } from '../pem/certpool.js';

/** A source that is not there (yet): the Bundle waits for it, as the original's NotFoundError. */
export class SourceNotFoundError extends Error {}

/** A source whose data is not PEM. */
export class InvalidPEMError extends Error {}

/** A Secret that cannot be a source as asked (includeAllKeys on a TLS Secret). */
export class InvalidSecretError extends Error {}

/** Where buildBundle reads the sources from, and how it pools their certificates. */
export interface BuildBundleOptions {
  /** Reads the trust namespace's ConfigMaps and Secrets (the manager's cached client). */
  reader: Pick<Client, 'get' | 'list'>;
  /** The trust namespace. */
  namespace: string;
  /** The pool's filters. */
  pool?: CertPoolOptions;
  /** Told when a source's label selector matches nothing (the original logs it and goes on). */
  onEmptySelector?: (kind: 'ConfigMap' | 'Secret', selector: string) => void;
}

/**
 * The certificates of every source, deduplicated; throws SourceNotFoundError for a missing source or when none is
 * found, InvalidPEMError for data that is not PEM.
 */
export async function buildBundle(opts: BuildBundleOptions, sources: readonly BundleSource[]): Promise<CertPool> {
  const pool = new CertPool(opts.pool);
  for (const source of sources) {
    if (source.configMap) await addConfigMaps(opts, source.configMap, pool);
    else if (source.secret) await addSecrets(opts, source.secret, pool);
    else if (source.inLine) {
      try {
        pool.addCertsFromPEM(source.inLine);
      } catch (err) {
        throw new InvalidPEMError(`inline source contains invalid PEM data: ${(err as Error).message}`);
      }
    } else if (source.useDefaultCAs !== undefined) {
      if (!source.useDefaultCAs) continue;
      // The port has no default CA package: as the original started without --default-package-location.
      throw new SourceNotFoundError(
        'no default package was specified when trust-manager was started; default CAs not available',
      );
    } else {
      throw new Error(`don't know how to process source: ${JSON.stringify(source)}`);
    }
  }
  if (pool.size() === 0) throw new SourceNotFoundError("couldn't find any valid certificates in bundle");
  return pool;
}

function addPEM(pool: CertPool, data: string | Buffer, where: string): void {
  try {
    pool.addCertsFromPEM(data);
  } catch (err) {
    throw new InvalidPEMError(`invalid PEM data in ${where}: ${(err as Error).message}`);
  }
}

async function addConfigMaps(opts: BuildBundleOptions, ref: SourceObjectKeySelector, pool: CertPool): Promise<void> {
  const { namespace } = opts;
  let configMaps;
  if (ref.name) {
    try {
      configMaps = [await opts.reader.get(ConfigMaps, { namespace, name: ref.name })];
    } catch (err) {
      const message = `failed to get ConfigMap ${namespace}/${ref.name}: ${(err as Error).message}`;
      throw isNotFound(err) ? new SourceNotFoundError(message) : new Error(message, { cause: err });
    }
  } else {
    const selector = parseSelector(ref, 'ConfigMap', namespace);
    configMaps = (await opts.reader.list(ConfigMaps, { namespace, labelSelector: selector.toString() })).items;
    if (configMaps.length === 0) {
      opts.onEmptySelector?.('ConfigMap', selector.toString());
      return;
    }
  }
  for (const cm of configMaps) {
    const where = (key: string): string => `ConfigMap ${cm.metadata?.namespace}/${cm.metadata?.name} at key "${key}"`;
    if (ref.key) {
      const text = cm.data?.[ref.key];
      const binary = cm.binaryData?.[ref.key];
      if (text !== undefined) addPEM(pool, text, where(ref.key));
      else if (binary !== undefined) addPEM(pool, Buffer.from(binary, 'base64'), where(ref.key));
      else
        throw new SourceNotFoundError(
          `no data found in ConfigMap ${cm.metadata?.namespace}/${cm.metadata?.name} at key "${ref.key}"`,
        );
    } else if (ref.includeAllKeys) {
      for (const [key, text] of Object.entries(cm.data ?? {})) addPEM(pool, text, where(key));
      for (const [key, b64] of Object.entries(cm.binaryData ?? {}))
        addPEM(pool, Buffer.from(b64, 'base64'), where(key));
    }
  }
}

async function addSecrets(opts: BuildBundleOptions, ref: SourceObjectKeySelector, pool: CertPool): Promise<void> {
  const { namespace } = opts;
  let secrets;
  if (ref.name) {
    try {
      secrets = [await opts.reader.get(Secrets, { namespace, name: ref.name })];
    } catch (err) {
      const message = `failed to get Secret ${namespace}/${ref.name}: ${(err as Error).message}`;
      throw isNotFound(err) ? new SourceNotFoundError(message) : new Error(message, { cause: err });
    }
  } else {
    const selector = parseSelector(ref, 'Secret', namespace);
    secrets = (await opts.reader.list(Secrets, { namespace, labelSelector: selector.toString() })).items;
    if (secrets.length === 0) {
      opts.onEmptySelector?.('Secret', selector.toString());
      return;
    }
  }
  for (const secret of secrets) {
    const name = `${secret.metadata?.namespace}/${secret.metadata?.name}`;
    if (ref.key) {
      const b64 = secret.data?.[ref.key];
      if (b64 === undefined) throw new SourceNotFoundError(`no data found in Secret ${name} at key "${ref.key}"`);
      addPEM(pool, Buffer.from(b64, 'base64'), `Secret ${name} at key "${ref.key}"`);
    } else if (ref.includeAllKeys) {
      if (secret.type === 'kubernetes.io/tls') {
        throw new InvalidSecretError(`includeAllKeys is not supported for TLS Secrets such as ${name}`);
      }
      for (const [key, b64] of Object.entries(secret.data ?? {})) {
        addPEM(pool, Buffer.from(b64, 'base64'), `Secret ${name} at key "${key}"`);
      }
    }
  }
}

function parseSelector(ref: SourceObjectKeySelector, kind: 'ConfigMap' | 'Secret', namespace: string): Selector {
  try {
    // An operator the runtime does not know is refused here, as by LabelSelectorAsSelector.
    return selectorFromLabelSelector(ref.selector as LabelSelector);
  } catch (err) {
    throw new Error(
      `failed to parse label selector as Selector for ${kind} in namespace ${namespace}: ${(err as Error).message}`,
    );
  }
}
