/*
Copyright 2026 The Sealed Secrets port's authors.

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

// The original's myNamespace: where its keys live, and the one namespace it watches with --all-namespaces=false.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceAccountDir } from '@kubescaffold/runtime/clientcmd';

/** $POD_NAMESPACE, else the pod's service account namespace, else "default". */
export function controllerNamespace(env: NodeJS.ProcessEnv = process.env): string {
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE;
  try {
    const ns = readFileSync(join(serviceAccountDir(env), 'namespace'), 'utf8').trim();
    if (ns) return ns;
  } catch {
    // Not in a pod.
  }
  return 'default';
}
