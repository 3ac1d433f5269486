// Loaded with `node --require` before the tests: `require('vscode')` then gives the mock in vscodeMock.ts
// (the real module exists only inside VS Code's extension host).
import Module = require('node:module');
import * as path from 'node:path';

const mockPath = path.join(__dirname, 'vscodeMock.js');
const moduleWithResolver = Module as unknown as {
  _resolveFilename(request: string, parent: unknown, isMain: boolean, options: unknown): string;
};
const original = moduleWithResolver._resolveFilename;
moduleWithResolver._resolveFilename = function (request, parent, isMain, options) {
  if (request === 'vscode') {
    return mockPath;
  }
  return original.call(this, request, parent, isMain, options);
};
