#!/usr/bin/env node
// Print a Parquet file's content as read by independent readers, one canonical JSON line each:
//   {"reader":"duckdb","columns":["a","b"],"types":["int32","string"],"rows":[["1","x"],...]}
// usage: node read.mjs FILE [--reader duckdb|hyparquet|parquet-wasm|all]
// Each reader uses the column types it infers itself (see README.md for the value forms).
import { makeReaders, READER_NAMES } from './lib.mjs';

const args = process.argv.slice(2);
let file = null;
let which = 'all';
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--reader') which = args[++i];
  else if (args[i].startsWith('--reader=')) which = args[i].slice(9);
  else if (args[i] === '-h' || args[i] === '--help') { file = null; break; }
  else file = args[i];
}
if (!file || !(which === 'all' || READER_NAMES.includes(which))) {
  console.error('usage: node read.mjs FILE [--reader duckdb|hyparquet|parquet-wasm|all]');
  process.exit(2);
}
const names = which === 'all' ? READER_NAMES : [which];
let failed = 0;
for (const name of names) {
  const [reader] = await makeReaders([name]);
  try {
    const r = await reader.read(file);
    process.stdout.write(JSON.stringify({ reader: name, columns: r.columns, types: r.types, rows: r.rows }) + '\n');
  } catch (e) {
    failed++;
    process.stdout.write(JSON.stringify({ reader: name, error: String(e?.message ?? e) }) + '\n');
  } finally {
    reader.close?.();
  }
}
process.exit(failed ? 1 : 0);
