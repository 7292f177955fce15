// Times GPT-2's JavaScript reference encoder (npm gpt-3-encoder's Encoder.js) on the documents
// bench_tokenizer wrote: TEXT_FILE holds them back to back, LENGTHS_FILE their byte lengths.
// Each of REPEAT runs loads Encoder.js afresh (an empty cache, as a new process would have) and
// times only the encode calls. Prints "best_seconds tokens fnv1a" on one line.
// Usage: node reference_bench.js GPT2_DIR TEXT_FILE LENGTHS_FILE REPEAT
'use strict';
const fs = require('fs');
const path = require('path');

if (process.argv.length !== 6) {
  process.stderr.write('usage: node reference_bench.js GPT2_DIR TEXT_FILE LENGTHS_FILE REPEAT\n');
  process.exit(2);
}
const encoderPath = path.resolve(process.argv[2], 'Encoder.js');
const bytes = fs.readFileSync(process.argv[3]);
const lengths = fs.readFileSync(process.argv[4], 'utf-8').trim().split(/\s+/).map(Number);
const decoder = new TextDecoder('utf-8');
const documents = [];
let offset = 0;
for (const length of lengths) {
  documents.push(decoder.decode(bytes.subarray(offset, offset + length)));
  offset += length;
}

let seconds = Infinity;
let results = [];
for (let run = 0; run < Number(process.argv[5]); ++run) {
  delete require.cache[encoderPath];
  const { encode } = require(encoderPath);
  const start = process.hrtime.bigint();
  results = documents.map((text) => encode(text));
  seconds = Math.min(seconds, Number(process.hrtime.bigint() - start) / 1e9);
}

let tokens = 0;
let hash = 0x811c9dc5;
for (const ids of results) {
  tokens += ids.length;
  for (const id of ids) hash = Math.imul(hash ^ id, 16777619) >>> 0;
}
process.stdout.write(`${seconds} ${tokens} ${hash}\n`);
