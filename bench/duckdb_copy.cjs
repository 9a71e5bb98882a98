// DuckDB side of encode_vs_duckdb.sh: loads a Parquet file into an in-memory
// TEMP table, then times `COPY (SELECT * FROM t) TO ... (FORMAT parquet)`.
//   node duckdb_copy.cjs INTEROP_DIR INPUT.parquet OUT.parquet CODEC THREADS RUNS [ROW_GROUP_SIZE] [WARMUP]
// WARMUP (default 1): untimed COPYs first, as parquet_encode_bench's --warmup.
// Prints: duckdb rows=N codec=C threads=T median_s=S rows_per_s=R cpu_s=C rows_per_cpu_s=R bytes=B
// (cpu_s: process CPU time, user + system, of the COPY: robust on a shared machine)
const path = require('node:path');
const fs = require('node:fs');
const [interop, input, out, codec, threads, runs, rgSize, warmupArg] = process.argv.slice(2);
const warmup = warmupArg === undefined ? 1 : Number(warmupArg);
const { DuckDBInstance } = require(path.join(interop, 'node_modules', '@duckdb', 'node-api'));

(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(`SET threads=${Number(threads)}`);
  await c.run(`SET preserve_insertion_order=true`);
  await c.run(`CREATE TEMP TABLE t AS SELECT * FROM read_parquet('${input}')`);
  const n = (await c.runAndReadAll('SELECT count(*) FROM t')).getRows()[0][0];
  const times = [];
  const cpus = [];
  const extra = rgSize ? `, ROW_GROUP_SIZE ${Number(rgSize)}` : '';
  for (let i = -warmup; i < Number(runs); i++) {
    fs.rmSync(out, { force: true });  // untimed, as parquet_encode_bench does
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    await c.run(`COPY (SELECT * FROM t) TO '${out}' (FORMAT parquet, COMPRESSION ${codec}${extra})`);
    if (i < 0) continue;  // warm-up
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    const c1 = process.cpuUsage(c0);
    cpus.push((c1.user + c1.system) / 1e6);
  }
  times.sort((a, b) => a - b);
  cpus.sort((a, b) => a - b);
  const med = times[Math.floor(times.length / 2)];
  const cpu = cpus[Math.floor(cpus.length / 2)];
  const bytes = fs.statSync(out).size;
  console.log(`duckdb rows=${n} codec=${codec} threads=${threads} median_s=${med.toFixed(3)} rows_per_s=${Math.round(Number(n) / med)} cpu_s=${cpu.toFixed(3)} rows_per_cpu_s=${Math.round(Number(n) / cpu)} bytes=${bytes}`);
})().catch(e => { console.error(e); process.exit(1); });
