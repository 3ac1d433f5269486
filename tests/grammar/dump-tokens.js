#!/usr/bin/env node
// Prints the TextMate tokens of a file, one line per token: `line:start-end 'text' scopes`.
// A debugging aid for writing grammar tests:
//   node dump-tokens.js ../../syntaxes/cli-script.tmLanguage.json FILE [more grammars...]
'use strict';
const fs = require('fs');
const path = require('path');
const tm = require('vscode-textmate');
const onig = require('vscode-oniguruma');

async function main() {
  const [mainGrammar, file, ...extra] = process.argv.slice(2);
  const grammars = {};
  for (const g of [mainGrammar, ...extra, path.join(__dirname, 'fixtures/shell-stub.tmLanguage.json')]) {
    const raw = tm.parseRawGrammar(fs.readFileSync(g, 'utf8'), g);
    grammars[raw.scopeName] = raw;
  }
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma').replace(/main\.js$/, 'onig.wasm')).buffer;
  const onigLib = onig.loadWASM(wasm).then(() => ({
    createOnigScanner: (p) => new onig.OnigScanner(p),
    createOnigString: (s) => new onig.OnigString(s),
  }));
  const registry = new tm.Registry({ onigLib, loadGrammar: async (s) => grammars[s] || null });
  const rootScope = tm.parseRawGrammar(fs.readFileSync(mainGrammar, 'utf8'), mainGrammar).scopeName;
  const grammar = await registry.loadGrammar(rootScope);
  let state = tm.INITIAL;
  fs.readFileSync(file, 'utf8').split(/\r\n|\n|\r/).forEach((line, i) => {
    const r = grammar.tokenizeLine(line, state);
    for (const t of r.tokens) {
      const text = line.slice(t.startIndex, t.endIndex);
      console.log(`${i + 1}:${t.startIndex}-${t.endIndex} ${JSON.stringify(text)} ${t.scopes.slice(1).join(' ')}`);
    }
    state = r.ruleStack;
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
