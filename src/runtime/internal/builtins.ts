/**
 * Node built-ins the runtime takes through process.getBuiltinModule rather than an ESM import. An ESM import
 * evaluates every export of the built-in's namespace: on Node 22 and later that makes `import http from 'node:http'`
 * load undici for http.WebSocket (10 MiB of RSS in an operator whose budget is 64), `node:fs` its promises API, dirs,
 * watchers and streams, `node:crypto` WebCrypto, and `node:net` BlockList and SocketAddress (together about 0.3 MiB of
 * an idle manager's RSS on Node 22; bench/README.md, "Idle memory, module by module"). getBuiltinModule returns the
 * CommonJS module, whose lazy exports stay unloaded until read.
 */
export const http = process.getBuiltinModule('node:http');
export const fs = process.getBuiltinModule('node:fs');
export const crypto = process.getBuiltinModule('node:crypto');
export const net = process.getBuiltinModule('node:net');
