/** Applying and deleting a project's manifests on a cluster: what install, deploy and their opposites do. */
export { ClusterError } from './errors.js';
export { connect, loadConfig, explainConnectionError, type Cluster, type ConnectOptions } from './connect.js';
export { applyManifests, FIELD_MANAGER, type ApplyOptions, type ApplyResult, type ApplyAction } from './apply.js';
export { deleteManifests, type DeleteOptions, type DeleteResult } from './delete.js';
export { applyOrder, deleteOrder, displayName, type ManifestObject } from './objects.js';
export { buildConfig, buildConfigYaml, setManagerImage } from './manifests.js';
export { waitForCRDsEstablished } from './wait.js';
export { runManager, buildProject, type RunOptions } from './run.js';
