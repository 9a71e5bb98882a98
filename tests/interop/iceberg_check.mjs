#!/usr/bin/env node
// Checks every table of a local lakedump dump made with --table-format iceberg as an
// Apache Iceberg v2 table, with readers we did not write:
//   - icebird (reads the table from version-hint.text on, through fetch_shim.mjs) returns
//     the same rows as DuckDB reading the table's Parquet files (the oracle that the other
//     interop tests hold equal to the source), value by value;
//   - avsc decodes the manifest list and the manifests; every Avro record field carries a
//     field-id and every list an element-id; the headers have Iceberg's keys; the entries'
//     paths, sizes, record counts, value/null counts, integer bounds and split offsets
//     agree with the files;
//   - hyparquet shows each Parquet column's field_id, the current Iceberg schema's id (a list's
//     element its element-id); in a table's first schema 1..n, and n+1.. for list elements in
//     column order; after a schema change the kept and fresh ids (docs/iceberg.md).
//   usage: node iceberg_check.mjs DUMP_DIR [--quiet]
// Prints `ok TABLE check` / `FAIL TABLE check: ...` lines, then `N passed, M failed`;
// exits 1 if anything failed, 2 on bad usage.
import fs from 'node:fs';
import path from 'node:path';
import avro from 'avsc';
import { icebergRead } from 'icebird';
import { parquetMetadata } from 'hyparquet';
import { installFileFetch } from './fetch_shim.mjs';
import { DuckReader, Micros, canon, listElementType, parseDecimalType, truncate } from './lib.mjs';

const args = process.argv.slice(2);
const quiet = args.includes('--quiet');
const dirs = args.filter(a => !a.startsWith('--'));
if (dirs.length !== 1) {
  console.error('usage: node iceberg_check.mjs DUMP_DIR [--quiet]');
  process.exit(2);
}
const root = path.resolve(dirs[0]);
installFileFetch();

let passed = 0, failed = 0;
function report(name, check, err) {
  if (err) { failed++; console.log(`FAIL ${name} ${check}: ${truncate(String(err), 400)}`); }
  else { passed++; if (!quiet) console.log(`ok ${name} ${check}`); }
}
async function check(name, what, fn) {
  try { await fn(); report(name, what); } catch (e) { report(name, what, e?.stack ?? e); }
}
function assert(cond, msg) { if (!cond) throw new Error(msg); }

// 64-bit longs as BigInt (snapshot ids do not fit a double).
const bigLong = avro.types.LongType.__with({
  fromBuffer: buf => buf.readBigInt64LE(),
  toBuffer: n => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(n)); return b; },
  fromJSON: BigInt,
  toJSON: Number,
  isValid: n => typeof n === 'bigint',
  compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
});

// {header: {key: string}, schemaJson, records}
function readAvro(file) {
  return new Promise((resolve, reject) => {
    const records = [];
    let header, schemaJson;
    avro.createFileDecoder(file, {
      parseHook: s => { schemaJson = s; return avro.Type.forSchema(s, { registry: { long: bigLong } }); },
    })
      .on('metadata', (type, codec, h) => {
        header = Object.fromEntries(Object.entries(h.meta).map(([k, v]) => [k, v.toString()]));
      })
      .on('data', r => records.push(r))
      .on('error', reject)
      .on('end', () => resolve({ header, schemaJson, records }));
  });
}

// Every record field has a field-id; every non-map array an element-id; map arrays have
// key/value records (whose fields then carry ids).
function idProblems(type, where, out) {
  if (Array.isArray(type)) { type.forEach(t => idProblems(t, where, out)); return out; }
  if (!type || typeof type !== 'object') return out;
  if (type.type === 'record') {
    for (const f of type.fields) {
      if (typeof f['field-id'] !== 'number') out.push(`${where}.${f.name} has no field-id`);
      idProblems(f.type, `${where}.${f.name}`, out);
    }
  } else if (type.type === 'array') {
    if (type.logicalType !== 'map' && typeof type['element-id'] !== 'number') out.push(`${where} has no element-id`);
    idProblems(type.items, `${where}[]`, out);
  }
  return out;
}

const fromUri = uri => { assert(uri.startsWith('file://'), `not a file:// URI: ${uri}`); return uri.slice(7); };
const mapOf = arr => new Map((arr ?? []).map(({ key, value }) => [key, value]));

// A canonical date or timestamp ("[-]Y-MM-DD[ HH:MM:SS[.ffffff]]", any number of year digits)
// as milliseconds since the epoch, or null when JS's Date cannot hold it (or it is ±infinity).
function canonToMs(text) {
  const m = /^(-?\d+)-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d):(\d\d)(?:\.(\d+))?)?/.exec(String(text));
  if (!m) return null;
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0),
    Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3)));
  return Number.isNaN(d.getTime()) ? null : d.getTime();
}

// icebird's value (hyparquet's default conversions: decimals as numbers, timestamps as
// millisecond Dates, JSON parsed, binary UTF-8-decoded) against the canonical expected value
// of type t. What those conversions lose is checked on the same files by DuckDB, the oracle.
function sameValue(t, got, want) {
  if (want === null) return got === null || got === undefined;
  if (got === null || got === undefined) return false;
  const element = listElementType(t);
  if (element !== null) {
    return Array.isArray(got) && Array.isArray(want) && got.length === want.length &&
      got.every((g, i) => sameValue(element, g, want[i]));
  }
  if (parseDecimalType(t) && typeof got === 'number') {
    const w = Number(want);
    return Math.abs(got - w) <= 1e-9 * Math.max(1, Math.abs(w));
  }
  if ((t === 'date' || t === 'timestamp' || t === 'timestamptz') && got instanceof Date) {
    // hyparquet's Date: invalid beyond JS's range (±infinity, year 5874897), and milliseconds
    // truncated toward zero (so 1 ms off below the epoch).
    const wantMs = canonToMs(want);
    if (Number.isNaN(got.getTime()) || wantMs === null) return Number.isNaN(got.getTime()) && wantMs === null;
    return Math.abs(got.getTime() - wantMs) <= (t === 'date' ? 0 : 1);
  }
  if (t === 'json' && !(got instanceof Uint8Array)) {
    // hyparquet parses JSON columns; a document that is a bare string comes back as a string.
    let parsed;
    try { parsed = JSON.parse(want); } catch { parsed = undefined; }
    if (parsed !== undefined && JSON.stringify(got) === JSON.stringify(parsed)) return true;
  }
  if (t === 'binary' && typeof got === 'string') {
    // icebird leaves hyparquet's utf8 option on, so un-annotated BYTE_ARRAY (Iceberg binary,
    // as Java writes it too) comes back UTF-8-decoded: compare through the same decoding.
    return new TextDecoder().decode(Buffer.from(want, 'hex')) === got;
  }
  if ((t === 'time' || t === 'timetz') && (typeof got === 'bigint' || typeof got === 'number')) {
    return canon(t, new Micros(BigInt(got))) === want;
  }
  return JSON.stringify(canon(t, got)) === JSON.stringify(want);
}

const duck = await DuckReader.create();
const manifest = JSON.parse(fs.readFileSync(path.join(root, '_manifest.json'), 'utf8'));
for (const t of manifest.tables) {
  const name = `${t.schema}.${t.table}`;
  const tableJson = JSON.parse(fs.readFileSync(path.join(root, t.key), 'utf8'));
  const tableDir = path.join(root, path.dirname(t.key));
  const tableUrl = 'file://' + tableDir;
  const files = tableJson.files.map(f => ({ ...f, path: path.join(root, f.key) }));

  // The oracle: DuckDB over the table's Parquet files, in key order.
  const expected = { columns: null, types: null, rows: [], perFile: [] };
  for (const f of files) {
    const r = await duck.read(f.path);
    expected.columns ??= r.columns;
    expected.types ??= r.types;
    expected.rows.push(...r.rows);
    expected.perFile.push(r.rows);
  }

  let metadata;
  await check(name, 'metadata.json', async () => {
    const hint = fs.readFileSync(path.join(tableDir, 'metadata', 'version-hint.text'), 'utf8');
    assert(/^[0-9]+$/.test(hint), `version-hint.text is ${JSON.stringify(hint)}`);
    metadata = JSON.parse(fs.readFileSync(path.join(tableDir, 'metadata', `v${hint}.metadata.json`), 'utf8'));
    for (const k of ['format-version', 'table-uuid', 'location', 'last-sequence-number', 'last-updated-ms',
      'last-column-id', 'schemas', 'current-schema-id', 'partition-specs', 'default-spec-id',
      'last-partition-id', 'sort-orders', 'default-sort-order-id', 'snapshots', 'current-snapshot-id',
      'snapshot-log', 'metadata-log']) assert(k in metadata, `missing ${k}`);
    assert(metadata['format-version'] === 2, 'format-version is not 2');
    assert(metadata.location === tableUrl, `location ${metadata.location} != ${tableUrl}`);
    const schema = metadata.schemas.find(s => s['schema-id'] === metadata['current-schema-id']);
    assert(JSON.stringify(schema.fields.map(f => f.name)) === JSON.stringify(expected.columns), 'column names differ');
    if (metadata.schemas.length === 1) {
      // A table's first schema: ids 1..n in column order, and a list's element gets a fresh
      // id after every column's, in column order.
      schema.fields.forEach((f, i) => assert(f.id === i + 1, `field ${f.name} has id ${f.id}`));
      let nextId = schema.fields.length + 1;
      for (const f of schema.fields) {
        if (typeof f.type !== 'object') continue;
        assert(f.type.type === 'list' && f.type['element-id'] === nextId++, `field ${f.name}: ${JSON.stringify(f.type)}`);
      }
      assert(metadata['last-column-id'] === nextId - 1, `last-column-id ${metadata['last-column-id']}`);
    } else {
      // After a schema change (docs/iceberg.md): unique ids, none above last-column-id.
      const ids = schema.fields.flatMap(f => (typeof f.type === 'object' ? [f.id, f.type['element-id']] : [f.id]));
      assert(new Set(ids).size === ids.length, `repeated field ids ${ids}`);
      assert(ids.every(id => Number.isInteger(id) && id > 0 && id <= metadata['last-column-id']), `field ids ${ids} vs last-column-id ${metadata['last-column-id']}`);
      assert(metadata.snapshots.find(s => s['snapshot-id'] === metadata['current-snapshot-id'])['schema-id'] === metadata['current-schema-id'], 'the current snapshot has another schema-id');
    }
    for (const f of schema.fields) {
      if (typeof f.type !== 'object') continue;
      assert(f.type.type === 'list' && Number.isInteger(f.type['element-id']), `field ${f.name}: ${JSON.stringify(f.type)}`);
      assert(typeof f.type['element-required'] === 'boolean', `field ${f.name}: element-required`);
    }
    const mapping = JSON.parse(metadata.properties['schema.name-mapping.default']);
    assert(mapping.length === schema.fields.length, 'name mapping length');
    schema.fields.forEach((f, i) => {
      assert(mapping[i]['field-id'] === f.id && mapping[i].names[0] === f.name, `name mapping of ${f.name}`);
      if (typeof f.type === 'object') {
        const nested = JSON.stringify(mapping[i].fields);
        assert(nested === JSON.stringify([{ 'field-id': f.type['element-id'], names: ['element'] }]), `name mapping of ${f.name}'s element: ${nested}`);
      }
    });
    const snap = metadata.snapshots.find(s => s['snapshot-id'] === metadata['current-snapshot-id']);
    const s = snap.summary;
    // The first snapshot of a table appends; a later dump's (its history, docs/iceberg.md)
    // overwrites, a child of the one before (which gc --expire-snapshots may have removed).
    const parent = snap['parent-snapshot-id'];
    assert(s.operation === (parent === undefined ? 'append' : 'overwrite'), `operation ${s.operation}`);
    assert(snap['sequence-number'] === metadata['last-sequence-number'], 'sequence-number');
    assert(s['total-records'] === String(tableJson.rows), `total-records ${s['total-records']} != ${tableJson.rows}`);
    assert(s['total-data-files'] === String(files.length), 'total-data-files');
    assert(s['total-files-size'] === String(tableJson.bytes), 'total-files-size');
    for (const k of ['total-delete-files', 'total-position-deletes', 'total-equality-deletes']) assert(s[k] === '0', k);
  });
  if (!metadata) continue;

  await check(name, 'icebird rows', async () => {
    const rows = await icebergRead({ tableUrl });
    assert(rows.length === expected.rows.length, `icebird read ${rows.length} rows, expected ${expected.rows.length}`);
    for (let i = 0; i < rows.length; i++) {
      for (let c = 0; c < expected.columns.length; c++) {
        const col = expected.columns[c], type = expected.types[c];
        const got = rows[i][col];
        const want = expected.rows[i][c];
        assert(sameValue(type, got, want), `row ${i} column ${col} (${type}): icebird ${truncate(got instanceof Date ? (Number.isNaN(got.getTime()) ? 'Invalid Date' : got.toISOString()) : String(JSON.stringify(got, (k, v) => typeof v === 'bigint' ? v.toString() : v)))} expected ${JSON.stringify(want)}`);
      }
    }
  });

  await check(name, 'avro manifests (avsc)', async () => {
    const snap = metadata.snapshots.find(s => s['snapshot-id'] === metadata['current-snapshot-id']);
    const list = await readAvro(fromUri(snap['manifest-list']));
    const lp = idProblems(list.schemaJson, 'manifest_file', []);
    assert(lp.length === 0, lp.join('; '));
    assert(list.schemaJson.name === 'manifest_file', 'manifest list record name');
    for (const k of ['snapshot-id', 'sequence-number', 'format-version']) assert(k in list.header, `manifest list header lacks ${k}`);
    // The snapshot's own manifest first; after it, an overwrite's manifests of the files it
    // removes (DELETED entries), checked below.
    assert(list.records.length >= 1, 'no manifests');
    const mf = list.records[0];
    const mpath = fromUri(mf.manifest_path);
    assert(BigInt(fs.statSync(mpath).size) === mf.manifest_length, 'manifest_length');
    assert(mf.added_files_count === files.length, 'added_files_count');
    assert(mf.added_rows_count === BigInt(tableJson.rows), 'added_rows_count');
    assert(mf.content === 0 && mf.sequence_number === BigInt(snap['sequence-number']), 'content / sequence_number');
    const m = await readAvro(mpath);
    const mp = idProblems(m.schemaJson, 'manifest_entry', []);
    assert(mp.length === 0, mp.join('; '));
    assert(m.schemaJson.name === 'manifest_entry', 'manifest record name');
    const r2 = m.schemaJson.fields.find(f => f.name === 'data_file').type;
    assert(r2.name === 'r2' && r2.fields.find(f => f.name === 'partition').type.name === 'r102', 'r2/r102 names');
    for (const k of ['schema', 'partition-spec', 'partition-spec-id', 'format-version', 'content']) {
      assert(k in m.header, `manifest header lacks ${k}`);
    }
    assert(m.header['format-version'] === '2' && m.header.content === 'data', 'manifest header values');
    assert(m.records.length === files.length, `${m.records.length} entries for ${files.length} files`);
    m.records.forEach((e, k) => {
      const f = files[k], d = e.data_file;
      assert(e.status === 1, 'status');
      assert(fromUri(d.file_path) === f.path, `file_path ${d.file_path}`);
      assert(d.file_format === 'PARQUET', 'file_format');
      assert(d.record_count === BigInt(f.rows), 'record_count');
      assert(d.file_size_in_bytes === BigInt(fs.statSync(f.path).size), 'file_size_in_bytes');
      const values = mapOf(d.value_counts), nulls = mapOf(d.null_value_counts);
      const sizes = mapOf(d.column_sizes), lo = mapOf(d.lower_bounds), hi = mapOf(d.upper_bounds);
      const fileRows = expected.perFile[k];
      const schemaFields = metadata.schemas.find(s => s['schema-id'] === metadata['current-schema-id']).fields;
      expected.columns.forEach((col, c) => {
        const listType = typeof schemaFields[c].type === 'object' ? schemaFields[c].type : null;
        if (listType) {
          // Keyed by the element's id: a value per element, null list or empty list (the
          // Parquet leaf's values); no null count, no bounds; nothing under the list's own id.
          const id = listType['element-id'];
          const slots = fileRows.reduce((n, r) => n + (r[c] === null ? 1 : Math.max(1, r[c].length)), 0);
          assert(values.get(id) === BigInt(slots), `value_counts[${id}] ${values.get(id)} != ${slots}`);
          assert(sizes.get(id) > 0n || f.rows === 0, `column_sizes[${id}]`);
          assert(!nulls.has(id) && !lo.has(id) && !hi.has(id), `list element ${id} has a null count or bounds`);
          assert(![values, nulls, sizes, lo, hi].some(m => m.has(schemaFields[c].id)), `metrics under list ${col}'s own id`);
          return;
        }
        const id = schemaFields[c].id;
        assert(values.get(id) === BigInt(f.rows), `value_counts[${id}]`);
        const n = fileRows.filter(r => r[c] === null).length;
        assert(nulls.get(id) === BigInt(n), `null_value_counts[${id}] ${nulls.get(id)} != ${n}`);
        assert(sizes.get(id) > 0n || f.rows === 0, `column_sizes[${id}]`);
        const type = expected.types[c];
        const present = fileRows.map(r => r[c]).filter(v => v !== null);
        if (/^int(8|16|32|64)$/.test(type) && present.length > 0) {
          const vals = present.map(BigInt);
          const min = vals.reduce((a, b) => (b < a ? b : a)), max = vals.reduce((a, b) => (b > a ? b : a));
          const dec = b => (type === 'int64' ? b.readBigInt64LE() : BigInt(b.readInt32LE()));
          assert(dec(lo.get(id)) === min, `lower_bounds[${id}] ${dec(lo.get(id))} != ${min}`);
          assert(dec(hi.get(id)) === max, `upper_bounds[${id}] ${dec(hi.get(id))} != ${max}`);
        }
        if (type === 'string' && present.length > 0 && lo.has(id)) {
          const min = present.reduce((a, b) => (Buffer.compare(Buffer.from(b), Buffer.from(a)) < 0 ? b : a));
          assert(Buffer.compare(lo.get(id), Buffer.from(min)) <= 0, `lower_bounds[${id}] above the min`);
        }
      });
      const offsets = d.split_offsets ?? [];
      assert(offsets.length >= 1 && offsets[0] === 4n, `split_offsets ${offsets}`);
      for (let i = 1; i < offsets.length; i++) assert(offsets[i] > offsets[i - 1], 'split_offsets not ascending');
    });

    // An overwrite lists the files it removes as DELETED entries (status 2), with this
    // snapshot's id and explicit sequence numbers; they are the parent's live files.
    const snapshotId = BigInt(list.header['snapshot-id']);
    const parentId = snap['parent-snapshot-id'];
    const removed = new Map();  // path -> {rows, sequence_number, file_sequence_number}
    let removedRows = 0n;
    for (const dm of list.records.slice(1)) {
      assert(parentId !== undefined, 'an appending snapshot lists removed files');
      assert(dm.content === 0 && dm.added_files_count === 0 && dm.existing_files_count === 0 &&
        dm.deleted_files_count > 0 && dm.added_snapshot_id === snapshotId, `removed-files manifest counts ${dm.manifest_path}`);
      assert(dm.sequence_number === BigInt(snap['sequence-number']), 'removed-files manifest sequence_number');
      const dpath = fromUri(dm.manifest_path);
      assert(BigInt(fs.statSync(dpath).size) === dm.manifest_length, 'removed-files manifest_length');
      const dmf = await readAvro(dpath);
      const dp = idProblems(dmf.schemaJson, 'manifest_entry', []);
      assert(dp.length === 0, dp.join('; '));
      for (const k of ['schema', 'partition-spec', 'partition-spec-id', 'format-version', 'content']) {
        assert(k in dmf.header, `removed-files manifest header lacks ${k}`);
      }
      assert(dmf.records.length === dm.deleted_files_count, 'deleted_files_count');
      let rows = 0n;
      for (const e of dmf.records) {
        assert(e.status === 2, `removed file status ${e.status}`);
        assert(e.snapshot_id === snapshotId, 'removed file snapshot_id');
        assert(typeof e.sequence_number === 'bigint' && typeof e.file_sequence_number === 'bigint', 'removed file without explicit sequence numbers');
        assert(!removed.has(e.data_file.file_path), `${e.data_file.file_path} removed twice`);
        removed.set(e.data_file.file_path, e);
        rows += e.data_file.record_count;
      }
      assert(rows === dm.deleted_rows_count, 'deleted_rows_count');
      removedRows += rows;
    }
    if (parentId !== undefined) {
      assert(String(removed.size) === snap.summary['deleted-data-files'], `${removed.size} removed files, summary says ${snap.summary['deleted-data-files']}`);
      assert(String(removedRows) === snap.summary['deleted-records'], 'deleted-records');
      // The parent snapshot (unless gc expired it): its live files, with their sequence numbers.
      const parent = metadata.snapshots.find(s => s['snapshot-id'] === parentId);
      if (parent) {
        const plist = await readAvro(fromUri(parent['manifest-list']));
        const live = new Map();
        for (const pm of plist.records) {
          for (const e of (await readAvro(fromUri(pm.manifest_path))).records) {
            if (e.status !== 2) live.set(e.data_file.file_path, e.sequence_number ?? pm.sequence_number);
          }
        }
        assert(JSON.stringify([...live.keys()].sort()) === JSON.stringify([...removed.keys()].sort()), 'the removed files are not the parent snapshot\'s');
        for (const [p, seq] of live) assert(removed.get(p).sequence_number === seq && removed.get(p).file_sequence_number === seq, `${p}: sequence numbers`);
      }
    }
  });

  await check(name, 'parquet field ids (hyparquet)', async () => {
    for (const f of files) {
      const buf = fs.readFileSync(f.path);
      const md = parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
      // Each column carries its field id (a list: on its LIST group, none on the repeated
      // group, the element's id on the element).
      const fields = metadata.schemas.find(s => s['schema-id'] === metadata['current-schema-id']).fields;
      let i = 1;
      for (const field of fields) {
        const e = md.schema[i];
        assert(e?.name === field.name && e.field_id === field.id, `${f.key}: column ${e?.name} field_id ${e?.field_id}, want ${field.id}`);
        if (typeof field.type === 'object') {
          assert(md.schema[i + 1].field_id === undefined, `${f.key}: ${field.name}'s repeated group has a field_id`);
          const element = md.schema[i + 2];
          assert(element.field_id === field.type['element-id'], `${f.key}: ${field.name}'s element field_id ${element.field_id}`);
          i += 3;
        } else {
          i += 1;
        }
      }
      assert(i === md.schema.length, `${f.key}: ${md.schema.length - 1} schema elements`);
    }
  });
}
duck.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
