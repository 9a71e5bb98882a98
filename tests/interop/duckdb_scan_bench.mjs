#!/usr/bin/env node
// Times DuckDB (single thread) scanning a Parquet file with every value materialised:
//   node duckdb_scan_bench.mjs FILE [REPEATS]   -> one line: {"seconds":[...],"rows":N}
import { DuckDBInstance } from '@duckdb/node-api';

const [file, repeats = '3'] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await inst.connect();
const lit = `'${file.replace(/'/g, "''")}'`;
const seconds = [];
let rows = 0;
for (let i = 0; i < Number(repeats); i++) {
  const t0 = process.hrtime.bigint();
  const r = await conn.runAndReadAll(`SELECT count(*), sum(hash(COLUMNS(*))) FROM read_parquet(${lit})`);
  seconds.push(Number(process.hrtime.bigint() - t0) / 1e9);
  rows = Number(r.getRows()[0][0]);
}
process.stdout.write(JSON.stringify({ seconds, rows }) + '\n');
