#!/usr/bin/env node
// Check Parquet files against expected content with three independent readers.
//   usage: node check.mjs [--reader NAME[,NAME...]] [--quiet] DIR|FILE.parquet ...
// For every X.parquet under DIR (recursively) that has a sibling X.expected.json:
//   {"columns": [...], "types": [...], "rows": [[...], ...]}
// reads X.parquet with duckdb, hyparquet and parquet-wasm, and compares column names, column types
// and every value in canonical form (README.md). If X.meta.json exists, also checks DuckDB's
// parquet_schema / parquet_metadata for it. Prints `ok X reader` or `FAIL X reader: ...` per check,
// then `N passed, M failed`; exits 1 if anything failed (or nothing was found), 2 on bad usage.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  makeReaders, READER_NAMES, canon, isKnownType, typeCompatible, truncate, DuckReader,
} from './lib.mjs';

// Find X.parquet files with an X.expected.json beside them.
export function findCases(target) {
  const out = [];
  const st = fs.statSync(target);
  if (st.isFile()) {
    const base = target.replace(/\.parquet$/, '');
    out.push({ name: path.basename(base), parquet: target, base });
    return out;
  }
  const walk = (dir) => {
    const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) { if (e.name !== 'node_modules') walk(p); continue; }
      if (!e.name.endsWith('.parquet')) continue;
      const base = p.slice(0, -'.parquet'.length);
      if (!fs.existsSync(base + '.expected.json')) continue;
      out.push({ name: path.relative(target, base) || path.basename(base), parquet: p, base });
    }
  };
  walk(target);
  return out;
}

function show(v) {
  return truncate(JSON.stringify(v) ?? 'undefined');
}

// Normalise the expected file; throws on malformed input.
export function loadExpected(file) {
  const exp = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!Array.isArray(exp.columns) || !Array.isArray(exp.types) || !Array.isArray(exp.rows)) {
    throw new Error('expected.json needs arrays "columns", "types" and "rows"');
  }
  if (exp.columns.length !== exp.types.length) throw new Error('"columns" and "types" differ in length');
  exp.types = exp.types.map(t => String(t).replace(/\s+/g, '').toLowerCase());
  for (const t of exp.types) if (!isKnownType(t)) throw new Error(`unknown type ${JSON.stringify(t)}`);
  const rows = exp.rows.map((row, r) => {
    if (!Array.isArray(row) || row.length !== exp.columns.length) {
      throw new Error(`row ${r} has ${Array.isArray(row) ? row.length : 'no'} values, expected ${exp.columns.length}`);
    }
    return row.map((v, c) => {
      try { return canon(exp.types[c], v); } catch (e) { throw new Error(`row ${r} col ${exp.columns[c]}: ${e.message}`); }
    });
  });
  return { columns: exp.columns, types: exp.types, rows };
}

// Compare one reader's result with the expected content; returns null or a failure message.
export function compare(readerName, got, exp) {
  if (JSON.stringify(got.columns) !== JSON.stringify(exp.columns)) {
    return `columns: got ${show(got.columns)} expected ${show(exp.columns)}`;
  }
  const badTypes = [];
  got.types.forEach((t, j) => {
    if (!typeCompatible(readerName, t, exp.types[j])) badTypes.push(`column ${exp.columns[j]} type: got ${t} expected ${exp.types[j]}`);
  });
  if (badTypes.length) return badTypes.join('; ');
  const n = Math.min(got.rows.length, exp.rows.length);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < exp.columns.length; c++) {
      const g = JSON.stringify(got.rows[r][c]);
      const e = JSON.stringify(exp.rows[r][c]);
      if (g !== e) return `first difference at row ${r} col ${exp.columns[c]}: got ${truncate(g)} expected ${truncate(e)}`;
    }
  }
  if (got.rows.length !== exp.rows.length) {
    return `row count: got ${got.rows.length} expected ${exp.rows.length}`;
  }
  return null;
}

// Checks X.meta.json against DuckDB's view of the file's metadata. min/max are aggregated over all
// row groups (min of the row-group minimums, compared as values of the column's DuckDB type);
// null_count is the sum over row groups.
export async function checkMeta(duck, file, metaFile) {
  const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
  const problems = [];
  const f = DuckReader.lit(file);
  if (meta.num_rows !== undefined || meta.num_row_groups !== undefined) {
    const r = await duck.query(`SELECT num_rows, num_row_groups FROM parquet_file_metadata(${f})`);
    const [numRows, numRg] = r.rows[0];
    if (meta.num_rows !== undefined && String(numRows) !== String(meta.num_rows)) problems.push(`num_rows: got ${numRows} expected ${meta.num_rows}`);
    if (meta.num_row_groups !== undefined && String(numRg) !== String(meta.num_row_groups)) problems.push(`num_row_groups: got ${numRg} expected ${meta.num_row_groups}`);
  }
  const schema = await duck.schema(file);
  const schemaRows = (await duck.query(`SELECT name, type, converted_type, logical_type FROM parquet_schema(${f})`)).rows;
  for (const [col, want] of Object.entries(meta.columns ?? {})) {
    const sc = schema.find(c => c.name === col);
    if (!sc) { problems.push(`column ${col}: not in file`); continue; }
    const ps = schemaRows.find(r => r[0] === col);
    if (want.logical_type !== undefined) {
      const hay = `${ps?.[3] ?? ''} ${ps?.[2] ?? ''}`;
      if (!hay.toLowerCase().includes(String(want.logical_type).toLowerCase())) {
        problems.push(`column ${col} logical_type: got ${JSON.stringify(hay.trim())} expected to contain ${JSON.stringify(want.logical_type)}`);
      }
    }
    if (want.physical_type !== undefined && String(ps?.[1]) !== String(want.physical_type)) {
      problems.push(`column ${col} physical_type: got ${ps?.[1]} expected ${want.physical_type}`);
    }
    const needStats = ['min', 'max', 'null_count', 'compression'].some(k => want[k] !== undefined);
    if (!needStats) continue;
    const T = sc.duckType;
    const id = DuckReader.lit(col);
    const cast = (x) => `CAST(TRY_CAST(${x} AS ${T}) AS VARCHAR)`;
    const q = `SELECT
        CAST(min(TRY_CAST(coalesce(stats_min_value, stats_min) AS ${T})) AS VARCHAR),
        CAST(max(TRY_CAST(coalesce(stats_max_value, stats_max) AS ${T})) AS VARCHAR),
        min(coalesce(stats_min_value, stats_min)), max(coalesce(stats_max_value, stats_max)),
        CAST(sum(stats_null_count) AS VARCHAR), count(*) - count(stats_null_count),
        string_agg(DISTINCT compression, ','), count(*)
      FROM parquet_metadata(${f}) WHERE path_in_schema = ${id}`;
    const [gotMin, gotMax, rawMin, rawMax, nullSum, nullMissing, comps, nrg] = (await duck.query(q)).rows[0];
    const cmpStat = async (key, gotTyped, gotRaw) => {
      if (want[key] === undefined) return;
      let wantTyped = null;
      try {
        wantTyped = (await duck.query(`SELECT ${cast(DuckReader.lit(String(want[key])))}`)).rows[0][0];
      } catch { /* fall back to string comparison */ }
      const ok = (wantTyped !== null && gotTyped !== null) ? wantTyped === gotTyped : String(want[key]) === gotRaw;
      if (!ok) problems.push(`column ${col} ${key}: got ${JSON.stringify(gotTyped ?? gotRaw)} expected ${JSON.stringify(String(want[key]))}`);
    };
    if (Number(nrg) === 0 && (want.min !== undefined || want.max !== undefined)) problems.push(`column ${col}: no row groups`);
    await cmpStat('min', gotMin, rawMin);
    await cmpStat('max', gotMax, rawMax);
    if (want.null_count !== undefined) {
      if (Number(nullMissing) > 0) problems.push(`column ${col} null_count: missing in ${nullMissing} row group(s)`);
      else if (String(nullSum) !== String(want.null_count)) problems.push(`column ${col} null_count: got ${nullSum} expected ${want.null_count}`);
    }
    if (want.compression !== undefined && String(comps).toUpperCase() !== String(want.compression).toUpperCase()) {
      problems.push(`column ${col} compression: got ${comps} expected ${want.compression}`);
    }
  }
  return problems.length ? problems.join('; ') : null;
}

// Runs all checks; returns {passed, failed}. `log` receives one line per check.
export async function checkTargets(targets, { readers: readerNames = READER_NAMES, log = console.log, quiet = false } = {}) {
  const readers = await makeReaders(readerNames);
  let duck = readers.find(r => r.name === 'duckdb');
  const ownDuck = !duck;
  let passed = 0;
  let failed = 0;
  const ok = (msg) => { passed++; if (!quiet) log(`ok ${msg}`); };
  const fail = (msg) => { failed++; log(`FAIL ${msg}`); };
  try {
    for (const target of targets) {
      for (const cs of findCases(target)) {
        let exp;
        try {
          exp = loadExpected(cs.base + '.expected.json');
        } catch (e) {
          fail(`${cs.name} expected: ${e.message}`);
          continue;
        }
        for (const reader of readers) {
          let got;
          try {
            got = await reader.read(cs.parquet, exp.types);
          } catch (e) {
            fail(`${cs.name} ${reader.name}: error: ${truncate(String(e?.message ?? e), 500)}`);
            continue;
          }
          const msg = compare(reader.name, got, exp);
          if (msg) fail(`${cs.name} ${reader.name}: ${msg}`); else ok(`${cs.name} ${reader.name}`);
        }
        if (fs.existsSync(cs.base + '.meta.json')) {
          try {
            duck ??= await DuckReader.create();
            const msg = await checkMeta(duck, cs.parquet, cs.base + '.meta.json');
            if (msg) fail(`${cs.name} meta: ${msg}`); else ok(`${cs.name} meta`);
          } catch (e) {
            fail(`${cs.name} meta: error: ${truncate(String(e?.message ?? e), 500)}`);
          }
        }
      }
    }
  } finally {
    for (const r of readers) r.close?.();
    if (ownDuck && duck) duck.close();
  }
  return { passed, failed };
}

async function main() {
  const args = process.argv.slice(2);
  const targets = [];
  let readerNames = READER_NAMES;
  let quiet = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--reader' || a === '--readers') readerNames = args[++i].split(',');
    else if (a.startsWith('--reader=') || a.startsWith('--readers=')) readerNames = a.split('=')[1].split(',');
    else if (a === '--quiet' || a === '-q') quiet = true;
    else if (a === '-h' || a === '--help') { targets.length = 0; break; }
    else targets.push(a);
  }
  if (readerNames.length === 1 && readerNames[0] === 'all') readerNames = READER_NAMES;
  if (!targets.length || readerNames.some(n => !READER_NAMES.includes(n))) {
    console.error('usage: node check.mjs [--reader duckdb,hyparquet,parquet-wasm] [--quiet] DIR|FILE.parquet ...');
    process.exit(2);
  }
  for (const t of targets) {
    if (!fs.existsSync(t)) { console.error(`check.mjs: ${t}: no such file or directory`); process.exit(2); }
  }
  const { passed, failed } = await checkTargets(targets, { readers: readerNames, quiet });
  if (passed + failed === 0) console.log(`check.mjs: no X.parquet with a sibling X.expected.json under ${targets.join(' ')}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed || passed === 0 ? 1 : 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
