#!/usr/bin/env node
// Reads one Iceberg table with icebird (through fetch_shim.mjs: file:// URLs, or s3:// ones
// from LD_ICEBERG_S3_ENDPOINT) and prints {"rows": N, "sha256": "..."} over its rows, so
// that two copies of a table (a local and an S3 dump) can be compared.
//   usage: node iceberg_read.mjs TABLE_URL [--rows] [--metadata vN.metadata.json] [--snapshot ID]
//     --rows       also print "values": the rows as JSON objects (64-bit integers as strings,
//                  bytes as hex, dates and timestamps as ISO strings, NaN/Infinity as strings)
//     --metadata   read that metadata file instead of the one version-hint.text names
//     --snapshot   read that snapshot of the metadata (time travel) instead of its current one,
//                  with the schema it names (its schema-id), as Iceberg reads an older snapshot
import crypto from 'node:crypto';
import { icebergMetadata, icebergRead } from 'icebird';
import { installFileFetch } from './fetch_shim.mjs';

const args = process.argv.slice(2);
const option = name => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const metadataFileName = option('--metadata');
const snapshot = option('--snapshot');
const withRows = args.includes('--rows');
const url = args.filter(a => a !== '--rows')[0];
if (!url) {
  console.error('usage: node iceberg_read.mjs TABLE_URL [--rows] [--metadata FILE] [--snapshot ID]');
  process.exit(2);
}
installFileFetch();
let metadata = await icebergMetadata({ tableUrl: url, metadataFileName });
if (snapshot !== undefined) {
  // icebird parses the JSON with doubles: compare the 63-bit ids as the same doubles.
  const found = metadata.snapshots.find(s => s['snapshot-id'] === Number(snapshot));
  if (!found) { console.error(`no snapshot ${snapshot}`); process.exit(1); }
  // As Iceberg reads an older snapshot: with the schema it was written with.
  metadata = {
    ...metadata,
    'current-snapshot-id': found['snapshot-id'],
    'current-schema-id': found['schema-id'] ?? metadata['current-schema-id'],
  };
}
const rows = await icebergRead({ tableUrl: url, metadata });
const text = JSON.stringify(rows, (k, v) => {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return v;
});
const out = { rows: rows.length, sha256: crypto.createHash('sha256').update(text).digest('hex') };
if (withRows) out.values = JSON.parse(text);
console.log(JSON.stringify(out));
