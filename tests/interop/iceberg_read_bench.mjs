#!/usr/bin/env node
// Times full reads of snapshots of one Iceberg table by two readers lakedump did not write,
// each applying the snapshot's position deletes (bench/iceberg_compact_read.sh):
//   icebird: icebergRead, every row materialised as an object;
//   duckdb:  merge-on-read in SQL, as an Iceberg engine does it: the data files (from the
//            manifests icebird reads) ANTI JOIN the position delete files on (file_path, pos),
//            every value hashed; one thread.
// The snapshots are read in turn in every round (interleaved), each as Iceberg reads an older
// snapshot (time travel: that snapshot's manifest list).
//   usage: node iceberg_read_bench.mjs TABLE_URL REPEATS LABEL=SNAPSHOT_ID|LABEL=current...
//   -> {"LABEL": {"icebird":[s...],"duckdb":[s...],"rows":N,"duckdb_rows":N,
//                 "duckdb_hash":"...","data_files":D,"delete_files":F}, ...}
import { DuckDBInstance } from '@duckdb/node-api';
import { icebergManifests, icebergMetadata, icebergRead } from 'icebird';
import { installFileFetch } from './fetch_shim.mjs';

const [url, repeats, ...targets] = process.argv.slice(2);
if (!url || !repeats || targets.length === 0) {
  console.error('usage: node iceberg_read_bench.mjs TABLE_URL REPEATS LABEL=SNAPSHOT_ID|LABEL=current...');
  process.exit(2);
}
installFileFetch();
const lit = s => `'${s.replace(/'/g, "''")}'`;
const local = u => u.startsWith('file://') ? u.slice('file://'.length) : u;

// The table's metadata with `id` as its current snapshot (icebird parses ids as doubles).
async function metadataAt(id) {
  const metadata = await icebergMetadata({ tableUrl: url });
  if (id === 'current') return metadata;
  const found = metadata.snapshots.find(s => s['snapshot-id'] === Number(id));
  if (!found) { console.error(`no snapshot ${id}`); process.exit(1); }
  return { ...metadata, 'current-snapshot-id': found['snapshot-id'] };
}

async function duckdbQuery(metadata) {
  const data = [], deletes = [];
  for (const { entries } of await icebergManifests(metadata)) {
    for (const e of entries) {
      if (e.status === 2) continue;
      (e.data_file.content ? deletes : data).push(e.data_file.file_path);
    }
  }
  const files = `[${data.map(f => lit(local(f))).join(', ')}]`;
  const sql = deletes.length === 0
    ? `SELECT count(*), sum(hash(COLUMNS(*))) FROM read_parquet(${files})`
    : `SELECT count(*), sum(hash(COLUMNS(* EXCLUDE (filename, file_row_number)))) FROM
         (SELECT * FROM read_parquet(${files}, filename = true, file_row_number = true)) d
       ANTI JOIN read_parquet([${deletes.map(f => lit(local(f))).join(', ')}]) x
         ON x.file_path = 'file://' || d.filename AND x.pos = d.file_row_number`;
  return { sql, data: data.length, deletes: deletes.length };
}

const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await inst.connect();
const out = {};
for (let i = 0; i < Number(repeats); i++) {
  for (const target of targets) {
    const [label, id] = target.split('=');
    const o = out[label] ??= { icebird: [], duckdb: [] };
    let t0 = process.hrtime.bigint();
    const rows = await icebergRead({ tableUrl: url, metadata: await metadataAt(id) });
    o.icebird.push(Number(process.hrtime.bigint() - t0) / 1e9);
    o.rows = rows.length;
    t0 = process.hrtime.bigint();
    const q = await duckdbQuery(await metadataAt(id));
    const r = await conn.runAndReadAll(q.sql);
    o.duckdb.push(Number(process.hrtime.bigint() - t0) / 1e9);
    o.duckdb_rows = Number(r.getRows()[0][0]);
    o.duckdb_hash = r.getRows()[0].slice(1).map(String).join(',');
    o.data_files = q.data;
    o.delete_files = q.deletes;
  }
}
process.stdout.write(JSON.stringify(out) + '\n');
