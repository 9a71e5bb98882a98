#!/usr/bin/env node
// Writes the DuckDB-produced Parquet files the reader tests use (tests/data/duckdb/), one per
// DuckDB setting that changes the encodings, with every type lakedump supports, plus the
// expected rows as DuckDB reads them back (expected.duckdb.json, canonical form of read.mjs).
//   usage: node make_duckdb_files.mjs OUTDIR
import { DuckReader } from './lib.mjs';
import { writeFileSync } from 'node:fs';

const out = process.argv[2];
if (!out) { console.error('usage: node make_duckdb_files.mjs OUTDIR'); process.exit(2); }
const duck = await DuckReader.create();
const n = 3000;
const select = `
  SELECT i::INTEGER AS id,
    CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 2 = 0) END AS c_bool,
    CASE WHEN i % 5 = 0 THEN NULL ELSE (i % 200 - 100)::TINYINT END AS c_int8,
    (i * 37 % 60000 - 30000)::SMALLINT AS c_int16,
    CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919)::INTEGER END AS c_int32,
    (i::BIGINT * 1000003 * 1000003 - 5)::BIGINT AS c_int64,
    CASE WHEN i % 13 = 0 THEN NULL ELSE (i / 8.0)::FLOAT END AS c_float,
    (i * 1.1 - 77)::DOUBLE AS c_double,
    ((i * 3.25) % 99)::DECIMAL(4,2) AS c_dec4,
    (i * 12345.678901)::DECIMAL(18,6) AS c_dec18,
    CASE WHEN i % 3 = 0 THEN NULL ELSE (i::HUGEINT * 98765432109876543210)::DECIMAL(38,10) END AS c_dec38,
    CASE WHEN i % 4 = 0 THEN NULL ELSE 'str' || (i % 50)::VARCHAR || repeat('é', i % 5) END AS c_string,
    ('s' || i::VARCHAR)::BLOB AS c_blob,
    (DATE '1970-01-01' + (i * 17 - 20000)::INTEGER)::DATE AS c_date,
    (TIME '00:00:00' + to_microseconds(i * 28123457))::TIME AS c_time,
    (TIMESTAMP '1969-07-20 20:17:40' + to_microseconds(i * 3600123457)) AS c_ts,
    CASE WHEN i % 9 = 0 THEN NULL ELSE (TIMESTAMPTZ '2000-01-01 00:00:00+00' + to_microseconds(i * 86400001)) END AS c_tstz,
    ('00000000-0000-4000-8000-' || lpad(printf('%x', i), 12, '0'))::UUID AS c_uuid,
    (i % 250)::UTINYINT AS c_u8,
    (i * 20)::USMALLINT AS c_u16,
    (i::UBIGINT * 1400000)::UINTEGER AS c_u32,
    (18446744073709551615 - i)::UBIGINT AS c_u64,
    (TIMESTAMP '2020-01-01' + to_minutes(i))::TIMESTAMP_MS AS c_ts_ms,
    (TIMESTAMP '2020-01-01' + to_minutes(i))::TIMESTAMP_NS AS c_ts_ns
  FROM range(${n}) t(i)`;
const variants = [
  ['duckdb_default', ''],
  ['duckdb_v2', ", PARQUET_VERSION 'V2'"],
  ['duckdb_zstd_small_groups', ', COMPRESSION zstd, ROW_GROUP_SIZE 1000'],
  ['duckdb_uncompressed', ', COMPRESSION uncompressed'],
  ['duckdb_gzip', ', COMPRESSION gzip'],
  ['duckdb_lz4', ', COMPRESSION lz4_raw'],
];
let expected = null;
for (const [name, opts] of variants) {
  const file = `${out}/${name}.parquet`;
  await duck.conn.run(`COPY (${select}) TO ${DuckReader.lit(file)} (FORMAT parquet${opts})`);
  const r = JSON.stringify({ reader: 'duckdb', ...(await duck.read(file)) }) + '\n';
  // Every variant holds the same rows: one expected file serves them all.
  if (name === variants[0][0]) writeFileSync(`${out}/expected.duckdb.json`, r);
  else if (r !== expected) throw new Error(`${name}: DuckDB reads different rows`);
  expected = r;
}
duck.close();
