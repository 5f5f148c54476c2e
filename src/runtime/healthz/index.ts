export { HealthzHandler, ping, type Checker } from './healthz.js';
