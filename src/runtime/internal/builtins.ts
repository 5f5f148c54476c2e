/**
 * Node built-ins the runtime takes through process.getBuiltinModule rather than an ESM import. An ESM import
 * evaluates every export of the built-in's namespace: on Node 22 and later that makes `import http from 'node:http'`
 * load undici for http.WebSocket (10 MiB of RSS in an operator whose budget is 64), and `node:fs` its promises API.
 * getBuiltinModule returns the CommonJS module, whose lazy exports stay unloaded until read.
 */
export const http = process.getBuiltinModule('node:http');
export const fs = process.getBuiltinModule('node:fs');
