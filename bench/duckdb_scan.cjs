// DuckDB side of decode_vs_duckdb.sh: times DuckDB reading a Parquet file with every value of
// every column materialized: SELECT count(*), sum(hash(COLUMNS(*))) FROM read_parquet(FILE).
// hash() needs each value decoded (count(*) alone is answered from the footer, min/max could
// use the column statistics), and costs DuckDB little next to decoding.
//   node duckdb_scan.cjs INTEROP_DIR FILE THREADS RUNS [LABEL]
// Prints: duckdb file=L rows=N threads=T median_s=S rows_per_s=R cpu_s=C rows_per_cpu_s=R
// (cpu_s: process CPU time, user + system, of the query; medians of RUNS runs)
const path = require('node:path');
const [interop, file, threads, runs, label] = process.argv.slice(2);
const { DuckDBInstance } = require(path.join(interop, 'node_modules', '@duckdb', 'node-api'));

(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(`SET threads=${Number(threads)}`);
  const lit = `'${file.replace(/'/g, "''")}'`;
  const times = [];
  const cpus = [];
  let n = 0;
  for (let i = 0; i < Number(runs); i++) {
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    const r = await c.runAndReadAll(`SELECT count(*), sum(hash(COLUMNS(*))) FROM read_parquet(${lit})`);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    const c1 = process.cpuUsage(c0);
    cpus.push((c1.user + c1.system) / 1e6);
    n = Number(r.getRows()[0][0]);
  }
  times.sort((a, b) => a - b);
  cpus.sort((a, b) => a - b);
  const med = times[Math.floor(times.length / 2)];
  const cpu = cpus[Math.floor(cpus.length / 2)];
  console.log(`duckdb file=${label || file} rows=${n} threads=${threads} median_s=${med.toFixed(4)} rows_per_s=${Math.round(n / med)} cpu_s=${cpu.toFixed(4)} rows_per_cpu_s=${Math.round(n / cpu)}`);
})().catch(e => { console.error(e); process.exit(1); });
