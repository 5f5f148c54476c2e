/*
Copyright 2026 The Reloader port's authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

import type { k8s } from '@kubescaffold/runtime';
import type { ReloadSource, SourceType } from './source.js';

/**
 * Reloader's util.ConvertToEnvVarName: upper case, each run of other characters one `_` (none at the start).
 */
export function envVarNameOf(text: string): string {
  let out = '';
  let lastValid = false;
  for (const ch of text.toUpperCase()) {
    if ((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')) {
      out += ch;
      lastValid = true;
    } else {
      if (lastValid) out += '_';
      lastValid = false;
    }
  }
  return out;
}

/** The env var Reloader keeps the source's hash in: `STAKATER_<NAME>_<TYPE>`. */
export function reloaderEnvVar(source: Pick<ReloadSource, 'name' | 'type'>): string {
  return `STAKATER_${envVarNameOf(source.name)}_${source.type}`;
}

function volumeOf(volumes: k8s.V1Volume[], type: SourceType, name: string): string | undefined {
  for (const v of volumes) {
    const projected = v.projected?.sources ?? [];
    if (type === 'CONFIGMAP') {
      if (v.configMap?.name === name || projected.some((s) => s.configMap?.name === name)) return v.name;
    } else if (v.secret?.secretName === name || projected.some((s) => s.secret?.name === name)) return v.name;
  }
  return undefined;
}

function withMount(containers: k8s.V1Container[], volume: string): k8s.V1Container | undefined {
  return containers.find((c) => (c.volumeMounts ?? []).some((m) => m.name === volume));
}

function withEnvReference(containers: k8s.V1Container[], type: SourceType, name: string): k8s.V1Container | undefined {
  return containers.find(
    (c) =>
      (c.env ?? []).some((e) =>
        type === 'SECRET' ? e.valueFrom?.secretKeyRef?.name === name : e.valueFrom?.configMapKeyRef?.name === name,
      ) ||
      (c.envFrom ?? []).some((e) => (type === 'SECRET' ? e.secretRef?.name === name : e.configMapRef?.name === name)),
  );
}

/**
 * The container whose env var (or whose pod) rolls for `source` (Reloader's getContainerUsingResource): the one that
 * mounts it, else the one that reads it into its env; an init container that uses it stands for the first container.
 * Without an auto annotation (the source is named), the first container when none uses it.
 */
export function containerUsing(
  podSpec: k8s.V1PodSpec,
  source: Pick<ReloadSource, 'name' | 'type'>,
  autoReload: boolean,
): k8s.V1Container | undefined {
  const containers = podSpec.containers ?? [];
  const inits = podSpec.initContainers ?? [];
  const volume = volumeOf(podSpec.volumes ?? [], source.type, source.name);
  if (volume !== undefined) {
    const mounting = withMount(containers, volume);
    if (mounting) return mounting;
    if (inits.length > 0 && withMount(inits, volume)) return containers[0];
  }
  const reading = withEnvReference(containers, source.type, source.name);
  if (reading) return reading;
  if (inits.length > 0 && withEnvReference(inits, source.type, source.name)) return containers[0];
  return autoReload ? undefined : containers[0];
}
