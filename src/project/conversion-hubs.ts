import { pluralize } from './flect.js';
import type { ProjectConfig } from './project.js';

/** A project's Kind whose versions a conversion webhook converts, and the resource name of its hub (stored) version. */
export interface ConversionHub {
  kind: string;
  /** The versions served, the hub first. */
  versions: string[];
  /** `plural.version.group`, as `kubectl get` names the hub version: it reads without a conversion. */
  hubResource: string;
}

/** The Kinds of PROJECT that have a conversion webhook (`create webhook --conversion`), with their hubs. */
export function conversionHubs(config: ProjectConfig): ConversionHub[] {
  return (config.resources ?? [])
    .filter((r) => r.webhooks?.conversion && !r.core && !r.external)
    .map((r) => {
      const group = [r.group, r.domain ?? config.domain].filter((p) => p).join('.');
      const plural = r.plural ?? pluralize(r.kind.toLowerCase());
      return {
        kind: r.kind,
        versions: [r.version, ...(r.webhooks?.spoke ?? [])],
        hubResource: `${plural}.${r.version}.${group}`,
      };
    });
}
