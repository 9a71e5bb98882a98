#!/usr/bin/env node
// Self-test of the interop oracle: writes Parquet files with DuckDB (every canonical type, every
// codec lakedump must support, page v1 and v2, several row groups, an empty file) into a temp dir
// together with hand-written expected.json / meta.json, runs check.mjs's logic over them with all
// three readers, and checks that deliberately wrong expectations are reported as failures.
//   usage: node selftest.mjs [--keep] [--quiet]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckReader } from './lib.mjs';
import { checkTargets } from './check.mjs';

const keep = process.argv.includes('--keep');
const quiet = process.argv.includes('--quiet');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lakedump-interop-'));
const posDir = path.join(dir, 'pos');
const negDir = path.join(dir, 'neg');
fs.mkdirSync(posDir);
fs.mkdirSync(negDir);

const COLUMNS = [
  ['b', 'BOOLEAN', 'bool'],
  ['i8', 'TINYINT', 'int8'],
  ['i16', 'SMALLINT', 'int16'],
  ['i32', 'INTEGER', 'int32'],
  ['i64', 'BIGINT', 'int64'],
  ['f', 'FLOAT', 'float'],
  ['d', 'DOUBLE', 'double'],
  ['dec4', 'DECIMAL(4,2)', 'decimal(4,2)'],
  ['dec18', 'DECIMAL(18,6)', 'decimal(18,6)'],
  ['dec38', 'DECIMAL(38,10)', 'decimal(38,10)'],
  ['dec0', 'DECIMAL(10,0)', 'decimal(10,0)'],
  ['s', 'VARCHAR', 'string'],
  ['bin', 'BLOB', 'binary'],
  ['dt', 'DATE', 'date'],
  ['tm', 'TIME', 'time'],
  ['ts', 'TIMESTAMP', 'timestamp'],
  ['tz', 'TIMESTAMPTZ', 'timestamptz'],
  ['u', 'UUID', 'uuid'],
  ['j', 'JSON', 'json'],
];

const LONG = 'abcdefgh€'.repeat(6600); // 72,600 bytes of UTF-8
const UNI = 'héllo wörld — 日本語 🎉 Ω';

// [SQL literal, expected value] per column, per row
const ROWS = [
  COLUMNS.map(() => ['NULL', null]),
  [
    ['false', false], ['-128', '-128'], ['-32768', '-32768'], ['-2147483648', '-2147483648'],
    ['-9223372036854775808', '-9223372036854775808'], ["'-0.0'::FLOAT", '-0'], ["'-0.0'::DOUBLE", '-0'],
    ['-99.99', '-99.99'], ['-999999999999.999999', '-999999999999.999999'],
    ['-9999999999999999999999999999.9999999999', '-9999999999999999999999999999.9999999999'],
    ['-9999999999', '-9999999999'], ["''", ''], ["''::BLOB", ''], ["'0001-01-01'", '0001-01-01'],
    ["'00:00:00'", '00:00:00'], ["'0001-01-01 00:00:00'", '0001-01-01 00:00:00'],
    ["'1900-01-01 00:00:00+00'", '1900-01-01T00:00:00Z'],
    ["'00000000-0000-0000-0000-000000000000'", '00000000-0000-0000-0000-000000000000'], ["'[]'", '[]'],
  ],
  [
    ['true', true], ['127', '127'], ['32767', 32767], ['2147483647', '2147483647'],
    ['9223372036854775807', '9223372036854775807'], ["'NaN'::FLOAT", 'NaN'], ["'NaN'::DOUBLE", 'NaN'],
    ['99.99', '99.99'], ['999999999999.999999', '999999999999.999999'],
    ['9999999999999999999999999999.9999999999', '9999999999999999999999999999.9999999999'],
    ['9999999999', '9999999999'], [`'${UNI}'`, UNI], ["'\\x00\\xFF\\x10'::BLOB", '00ff10'],
    ["'9999-12-31'", '9999-12-31'], ["'23:59:59.999999'", '23:59:59.999999'],
    ["'9999-12-31 23:59:59.999999'", '9999-12-31T23:59:59.999999'],
    ["'2262-04-11 23:47:16.854775+00'", '2262-04-11T23:47:16.854775Z'],
    ["'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF'", 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
    [`'{"k":"v","n":[1,2.5,null]}'`, '{"k":"v","n":[1,2.5,null]}'],
  ],
  [
    ['true', true], ['0', 0], ['0', '0'], ['0', '0'], ['0', '0'], ["'Infinity'::FLOAT", 'Infinity'],
    ["'-Infinity'::DOUBLE", '-Infinity'], ['0', '0.00'], ['0.000001', '0.000001'],
    ['-0.0000000001', '-0.0000000001'], ['0', '0'], [`repeat('abcdefgh€', 6600)`, LONG],
    ["'\\xDE\\xAD\\xBE\\xEF'::BLOB", 'DEADBEEF'], ["'1969-12-31'", '1969-12-31'],
    ["'12:00:00.5'", '12:00:00.5'], ["'1969-12-31 23:59:59.999999'", '1969-12-31T23:59:59.999999'],
    ["'1969-12-31 23:59:59.999999+00'", '1969-12-31 23:59:59.999999+00'],
    ["'550e8400-e29b-41d4-a716-446655440000'", '550e8400-e29b-41d4-a716-446655440000'], [`'"str"'`, '"str"'],
  ],
  [
    ['false', false], ['-1', '-1'], ['-1', '-1'], ['-1', '-1'], ['-1', -1], ['3.14::FLOAT', 3.14],
    ['0.1', 0.1], ['-0.01', '-0.01'], ['-0.5', '-0.500000'], ['12345678901234567890.0123456789', '12345678901234567890.0123456789'],
    ['-1', '-1'], [`E'line1\\nline2\\t"quoted" \\\\ back'`, 'line1\nline2\t"quoted" \\ back'],
    ["'\\xDE\\xAD\\xBE\\xEF\\x00'::BLOB", 'deadbeef00'], ["'1500-02-28'", '1500-02-28'],
    ["'01:02:03.000004'", '01:02:03.000004'], ["'1582-10-10 12:00:00'", '1582-10-10T12:00:00'],
    ["'2100-03-01 00:00:00.000001+00'", '2100-03-01T00:00:00.000001Z'],
    ["'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'", 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'], ["'null'", 'null'],
  ],
  [
    ['NULL', null], ['NULL', null], ['NULL', null], ['123456', '123456'], ['NULL', null],
    ['1.0e-45::FLOAT', 1e-45], ['5e-324', 5e-324], ['NULL', null], ['NULL', null], ['NULL', null], ['NULL', null],
    ['NULL', null], ['NULL', null], ["'2262-04-12'", '2262-04-12'], ['NULL', null],
    ["'1677-09-21 00:12:43.145224'", '1677-09-21T00:12:43.145224'], ["'2500-06-30 12:00:00+00'", '2500-06-30T12:00:00.000000Z'],
    ['NULL', null], ['NULL', null],
  ],
  [
    ['NULL', null], ['NULL', null], ['NULL', null], ['NULL', null], ['NULL', null],
    ['3.4028235e38::FLOAT', 3.4028234663852886e38], ['1.7976931348623157e308', 1.7976931348623157e308],
    ['NULL', null], ['NULL', null], ['NULL', null], ['NULL', null], ['NULL', null], ['NULL', null],
    ['NULL', null], ['NULL', null], ['NULL', null], ['NULL', null], ['NULL', null], ['NULL', null],
  ],
];

const CODECS = ['uncompressed', 'snappy', 'zstd', 'gzip', 'lz4_raw'];

const log = (s) => { if (!quiet || s.startsWith('FAIL')) console.log(s); };

async function generate(duck) {
  const q = (sql) => duck.conn.run(sql);
  await q(`CREATE TABLE alltypes (${COLUMNS.map(([n, t]) => `${DuckReader.ident(n)} ${t}`).join(', ')})`);
  for (const row of ROWS) await q(`INSERT INTO alltypes VALUES (${row.map(c => c[0]).join(', ')})`);
  const expected = {
    columns: COLUMNS.map(c => c[0]),
    types: COLUMNS.map(c => c[2]),
    rows: ROWS.map(r => r.map(c => c[1])),
  };
  const meta = {
    num_rows: ROWS.length,
    columns: {
      i32: { logical_type: 'INT_32', physical_type: 'INT32', min: '-2147483648', max: '2147483647', null_count: 2 },
      i64: { min: '-9223372036854775808', max: '9223372036854775807' },
      dt: { logical_type: 'DATE', min: '0001-01-01', max: '9999-12-31', null_count: 2 },
      dec38: { logical_type: 'Decimal', physical_type: 'FIXED_LEN_BYTE_ARRAY' },
      ts: { logical_type: 'isAdjustedToUTC=0' },
      tz: { logical_type: 'isAdjustedToUTC=1', min: '1900-01-01 00:00:00+00', max: '2500-06-30T12:00:00Z' },
      u: { logical_type: 'UUID' },
      s: { logical_type: 'UTF8', min: '', null_count: 3 },
    },
  };
  const order = 'ORDER BY rowid';
  for (const codec of CODECS) {
    const name = `alltypes_${codec}`;
    await q(`COPY (SELECT * FROM alltypes ${order}) TO ${DuckReader.lit(path.join(posDir, name + '.parquet'))} (FORMAT parquet, COMPRESSION ${codec})`);
    fs.writeFileSync(path.join(posDir, name + '.expected.json'), JSON.stringify(expected));
    fs.writeFileSync(path.join(posDir, name + '.meta.json'), JSON.stringify({ ...meta, columns: { ...meta.columns, i64: { ...meta.columns.i64, compression: codec } } }));
  }
  // data page v2 and the V2 encodings (DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, BYTE_STREAM_SPLIT...)
  // Column i32 is left out: DuckDB computes INT32 deltas in 64 bits and writes a miniblock bit
  // width of 33 for [INT32_MIN, INT32_MAX], which parquet-wasm (arrow-rs) rejects.
  const ix = expected.columns.indexOf('i32');
  const drop = (a) => a.filter((_, j) => j !== ix);
  const expectedV2 = { columns: drop(expected.columns), types: drop(expected.types), rows: expected.rows.map(drop) };
  for (const codec of ['zstd', 'snappy']) {
    const name = `alltypes_v2_${codec}`;
    await q(`COPY (SELECT * EXCLUDE (i32) FROM alltypes ${order}) TO ${DuckReader.lit(path.join(posDir, name + '.parquet'))} (FORMAT parquet, COMPRESSION ${codec}, PARQUET_VERSION V2)`);
    fs.writeFileSync(path.join(posDir, name + '.expected.json'), JSON.stringify(expectedV2));
  }
  // empty file
  await q(`COPY (SELECT * FROM alltypes WHERE false) TO ${DuckReader.lit(path.join(posDir, 'empty.parquet'))} (FORMAT parquet)`);
  fs.writeFileSync(path.join(posDir, 'empty.expected.json'), JSON.stringify({ ...expected, rows: [] }));

  // larger file: several row groups, dictionary pages, nulls every 10th row
  const N = 30000;
  const sql = `SELECT i * 7919 - 1000000 AS k, 'v' || (i % 100) AS s, i / 8 AS d,
      CASE WHEN i % 10 = 0 THEN NULL ELSE i::INTEGER END AS n,
      (DATE '1970-01-01' + (i - 15000)::INTEGER) AS dt
    FROM range(${N}) t(i) ORDER BY i`;
  const bigRows = [];
  const bigCols = ['k', 's', 'd', 'n', 'dt'];
  for (let i = 0; i < N; i++) {
    const dt = new Date((i - 15000) * 86400000).toISOString().slice(0, 10);
    bigRows.push([String(i * 7919 - 1000000), `v${i % 100}`, i / 8, i % 10 === 0 ? null : String(i), dt]);
  }
  for (const codec of ['zstd', 'snappy', 'gzip', 'lz4_raw', 'uncompressed']) {
    const name = `many_${codec}`;
    await q(`COPY (${sql}) TO ${DuckReader.lit(path.join(posDir, name + '.parquet'))} (FORMAT parquet, COMPRESSION ${codec}, ROW_GROUP_SIZE 10240)`);
    fs.writeFileSync(path.join(posDir, name + '.expected.json'), JSON.stringify({ columns: bigCols, types: ['int64', 'string', 'double', 'int32', 'date'], rows: bigRows }));
    fs.writeFileSync(path.join(posDir, name + '.meta.json'), JSON.stringify({
      num_rows: N,
      columns: {
        k: { min: String(-1000000), max: String((N - 1) * 7919 - 1000000), null_count: 0, compression: codec },
        n: { min: '1', max: String(N - 1), null_count: N / 10 },
        s: { logical_type: 'UTF8', min: 'v0', max: 'v99' },
        dt: { min: '1928-12-07', max: '2011-01-25' },
      },
    }));
  }

  // negative cases: the checker must report each of these
  const src = path.join(posDir, 'alltypes_zstd.parquet');
  const neg = (name, exp, metaObj) => {
    fs.copyFileSync(src, path.join(negDir, name + '.parquet'));
    fs.writeFileSync(path.join(negDir, name + '.expected.json'), JSON.stringify(exp));
    if (metaObj) fs.writeFileSync(path.join(negDir, name + '.meta.json'), JSON.stringify(metaObj));
  };
  const mut = (r, c, v) => {
    const e = structuredClone(expected);
    e.rows[r][c] = v;
    return e;
  };
  const ci = (n) => COLUMNS.findIndex(c => c[0] === n);
  const negatives = [
    // [name, expected, meta, number of failures the checker must report]
    ['neg_dec38_last_digit', mut(4, ci('dec38'), '12345678901234567890.0123456788'), null, 3],
    ['neg_i64_off_by_one', mut(1, ci('i64'), '-9223372036854775807'), null, 3],
    ['neg_float_rounding', mut(4, ci('f'), 3.1400003), null, 3],
    ['neg_negzero', mut(1, ci('d'), 0), null, 3],
    ['neg_ts_micro', mut(3, ci('ts'), '1969-12-31T23:59:59.999998'), null, 3],
    ['neg_tz_type', { ...expected, types: expected.types.map(t => (t === 'timestamptz' ? 'timestamp' : t)), rows: expected.rows.map(r => r.map((v, j) => (COLUMNS[j][2] === 'timestamptz' && v !== null ? String(v).replace(/Z$|\+00$/, '') : v))) }, null, 3],
    ['neg_null', mut(0, ci('s'), ''), null, 3],
    ['neg_missing_row', { ...expected, rows: expected.rows.slice(0, -1) }, null, 3],
    ['neg_meta', expected, { columns: { i32: { min: '-2147483647', null_count: 1, logical_type: 'Decimal' } } }, 1],
  ];
  for (const [name, exp, m] of negatives) neg(name, exp, m);
  return negatives;
}

const duck = await DuckReader.create();
let negatives;
try {
  negatives = await generate(duck);
} finally {
  duck.close();
}

const t0 = Date.now();
const pos = await checkTargets([posDir], { log, quiet });
let passed = pos.passed;
let failed = pos.failed;
for (const [name, , , wantFails] of negatives) {
  const lines = [];
  const r = await checkTargets([path.join(negDir, name + '.parquet')], { log: (s) => lines.push(s) });
  const fails = lines.filter(s => s.startsWith('FAIL'));
  if (fails.length === wantFails) {
    passed++;
    log(`ok negative ${name} (${fails.length} failure(s) reported, e.g. ${fails[0]?.slice(0, 160)})`);
  } else {
    failed++;
    log(`FAIL negative ${name}: checker reported ${r.failed} failure(s), wanted ${wantFails}: ${lines.join(' | ').slice(0, 600)}`);
  }
}
if (!quiet) console.log(`checked in ${Date.now() - t0} ms; files in ${dir}${keep ? '' : ' (removed)'}`);
if (!keep) fs.rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
